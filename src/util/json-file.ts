import { readFileSync } from 'node:fs';
import { UserError } from './user-error.js';

/** A file's text; a file that cannot be read is a UserError naming it (`what`, default the path) with `hint`. */
export function readTextFile(path: string, options: { what?: string; hint?: string } = {}): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${options.what ?? path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: options.hint,
    });
  }
}

/**
 * A JSON file's value. A file that cannot be read, or is not JSON, is a UserError naming it
 * (`what`: how the user knows it, e.g. `--matrix sweep.json`; default the path) with `hint`.
 */
export function readJsonFile(path: string, options: { what?: string; hint?: string } = {}): unknown {
  const text = readTextFile(path, options);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`${options.what ?? path}: not JSON: ${(e as Error).message}`, { hint: options.hint });
  }
}

/**
 * The JSON documents of a text, one after another: one, or the pages `gh api --paginate` writes
 * without `--slurp`. Anything else is a UserError naming `what`, with `hint`.
 */
export function jsonDocuments(text: string, what: string, hint?: string): unknown[] {
  const docs: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  const parse = (doc: string): unknown => {
    try {
      return JSON.parse(doc);
    } catch (e) {
      throw new UserError(`${what}: not JSON: ${(e as Error).message}`, { hint });
    }
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) docs.push(parse(text.slice(start, i + 1)));
      if (depth < 0) throw new UserError(`${what}: not JSON: an unmatched ${JSON.stringify(c)} at offset ${i}`, { hint });
    } else if (depth === 0 && !/\s/.test(c))
      throw new UserError(`${what}: not JSON: ${JSON.stringify(c)} at offset ${i} is outside any JSON object or array`, {
        hint,
      });
  }
  if (depth !== 0 || inString) throw new UserError(`${what}: not JSON: it ends inside a value`, { hint });
  if (docs.length === 0) throw new UserError(`${what}: not JSON: it is empty`, { hint });
  return docs;
}
