import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PyRandom } from '../pycompat/index.js';
import { readRegularFile } from '../util/bounded-read.js';
import { derivedRow } from './datasets.js';
import type { Doc } from './datasets.js';

/**
 * `process_docs: !function <module>.<function>`: lm-eval imports the Python module beside the task
 * file and maps the split through the function. Frontier runs no Python, so it knows functions by
 * their source: the function's definition and the module's top-level assignments, with comments
 * and spacing ignored, must be one Frontier has an implementation of. A function whose source
 * differs in any other way is refused, so an edited function never runs with the old behaviour.
 */

export interface ProcessDocs {
  /** `utils.process_docs`, as the task file names it. */
  name: string;
  /** The Python definition (what lm-eval writes into the results file's config). */
  source: string;
  apply(docs: readonly Doc[]): Doc[];
}

/** The largest Python module read for its functions' source: InferenceX's utils.py is 1 KB. */
export const MAX_PROCESS_DOCS_MODULE_BYTES = 1 << 20;

const LETTERS = 'ABCD';

/**
 * InferenceX's `utils/evals/utils.py` `process_docs` for GPQA: each pass over the docs (two by
 * default) shuffles the four answers with one random.Random(3407), records where the correct one
 * went as `answer` (a letter) and the pass as `repeat_id`.
 */
function gpqaShuffle(docs: readonly Doc[], nRepeats = 2, seed = 3407): Doc[] {
  const rng = new PyRandom(seed);
  const rows: Doc[] = [];
  for (let r = 0; r < nRepeats; r++) {
    for (const doc of docs) {
      const base = [doc['Correct Answer'], doc['Incorrect Answer 1'], doc['Incorrect Answer 2'], doc['Incorrect Answer 3']];
      const perm = rng.sample([0, 1, 2, 3], 4);
      const next = derivedRow(doc, { ...doc });
      perm.forEach((j, i) => (next[LETTERS[i]!] = base[j]));
      next.answer = LETTERS[perm.indexOf(0)];
      next.repeat_id = r;
      rows.push(next);
    }
  }
  return rows;
}

/** Known functions: fingerprint of their normalised source → implementation. */
const KNOWN: Record<string, { description: string; apply: (docs: readonly Doc[]) => Doc[] }> = {
  e5deb3c3: { description: "InferenceX's GPQA answer shuffle (utils/evals/utils.py)", apply: (docs) => gpqaShuffle(docs) },
};

/** The `def <name>(` block of a Python module, as written. */
function definition(module: string, name: string): string | undefined {
  const lines = module.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^def ${name}\\s*\\(`).test(l));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && (lines[end]!.trim() === '' || /^[\s#]/.test(lines[end]!) || /^\)/.test(lines[end]!))) end++;
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
  return `${lines.slice(start, end).join('\n')}\n`;
}

/** What identifies a function: its definition and the module's top-level assignments, comments and spacing within lines aside. */
export function fingerprint(module: string, name: string): string | undefined {
  const def = definition(module, name);
  if (def === undefined) return undefined;
  const assignments = module.split('\n').filter((l) => /^[A-Za-z_]\w*\s*=/.test(l));
  // Each line as its indentation (Python's blocks) and its text without comments or spaces.
  const normal = [...assignments, ...def.split('\n')]
    .map((l) => l.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l) => `${/^\s*/.exec(l)![0].length}:${l.replace(/\s+/g, '')}`)
    .join('\n');
  return createHash('sha256').update(normal).digest('hex').slice(0, 8);
}

/** The implementation of `!function module.name` for a task file in `dir`, or why there is none. */
export function knownProcessDocs(ref: string, dir: string): { fn: ProcessDocs } | { error: string; hint?: string } {
  const m = /^([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)$/.exec(ref);
  if (!m) return { error: `!function ${ref}: expected <module>.<function>` };
  const [, moduleName, fnName] = m;
  const file = join(dir, `${moduleName!.replace(/\./g, '/')}.py`);
  if (!existsSync(file))
    return {
      error: `!function ${ref}: ${file} not found`,
      hint: 'keep the Python module beside the task file, as lm-eval needs it',
    };
  const bytes = readRegularFile(file, MAX_PROCESS_DOCS_MODULE_BYTES);
  if (!Buffer.isBuffer(bytes)) return { error: `!function ${ref}: ${file} ${bytes.refused}` };
  const module = bytes.toString('utf8');
  const source = definition(module, fnName!);
  if (source === undefined) return { error: `!function ${ref}: ${file} defines no ${fnName}` };
  const known = KNOWN[fingerprint(module, fnName!)!];
  if (!known)
    return {
      error: `!function ${ref}: Frontier does not know this function (fingerprint ${fingerprint(module, fnName!)})`,
      hint: `Frontier runs no Python; it knows: ${Object.values(KNOWN)
        .map((k) => k.description)
        .join('; ')}. Add an implementation to src/evals/process-docs.ts (docs/evals.md says how)`,
    };
  return { fn: { name: ref, source, apply: known.apply } };
}
