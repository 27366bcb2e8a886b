import { readFileSync } from 'node:fs';
import { UserError } from './user-error.js';

/**
 * A JSON file's value. A file that cannot be read, or is not JSON, is a UserError naming it
 * (`what`: how the user knows it, e.g. `--matrix sweep.json`; default the path) with `hint`.
 */
export function readJsonFile(path: string, options: { what?: string; hint?: string } = {}): unknown {
  const what = options.what ?? path;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: options.hint,
    });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`${what}: not JSON: ${(e as Error).message}`, { hint: options.hint });
  }
}
