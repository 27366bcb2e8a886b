import { readFileSync } from 'node:fs';
import { SAFE_NAME } from '../catalog/index.js';
import { changelogRows } from '../changelog/index.js';
import type { ChangelogMatrix } from '../changelog/index.js';
import { fnmatchRegExp } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { UserError } from '../util/user-error.js';

/** A changelog sweep (`changelog matrix`, `ci plan`'s sweep files): its job lists by kind and shape. */
function isChangelogSweep(v: unknown): v is ChangelogMatrix {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'single_node' in v && 'multi_node' in v;
}

/** The rows a run runs (`--matrix`, `-`: stdin): the JSON array `frontier matrix` prints, or a changelog sweep. */
export function readMatrix(file: string): { rows: MatrixRow[]; text: string } {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new UserError(`--matrix ${file}: ${(e as Error).message}`);
  }
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (e) {
    throw new UserError(`--matrix ${file}: not JSON (${(e as Error).message}); pass what \`frontier matrix\` prints`);
  }
  if (isChangelogSweep(rows)) rows = changelogRows(rows);
  if (!Array.isArray(rows))
    throw new UserError(
      `--matrix ${file}: expected a JSON array of matrix rows (frontier matrix) or a sweep (frontier changelog matrix, ci plan)`,
    );
  rows.forEach((row, i) => checkRow(file, row, i));
  return { rows: rows as MatrixRow[], text };
}

function checkRow(file: string, row: unknown, i: number): void {
  const r = row as Record<string, unknown>;
  const missing = ['image', 'model', 'model-prefix', 'precision', 'framework', 'runner', 'conc'].filter(
    (k) => r?.[k] === undefined,
  );
  if (typeof row !== 'object' || row === null || missing.length > 0)
    throw new UserError(`--matrix ${file}: row ${i} is not a matrix row (missing ${missing.join(', ') || 'everything'})`);
  // These name the row's files in the run directory (RESULT_FILENAME): a '/' or '..' would write outside it.
  for (const key of ['model-prefix', 'precision', 'framework'])
    if (typeof r[key] !== 'string' || !SAFE_NAME.test(r[key]))
      throw new UserError(
        `--matrix ${file}: row ${i}: ${key} ${JSON.stringify(r[key])} cannot be part of a file name: use letters, digits, '.', '_' and '-', starting with a letter or digit`,
      );
}

/** `--filter field=glob`: rows whose field matches (every filter must). */
export function filterRows(rows: readonly MatrixRow[], filters: readonly string[]): MatrixRow[] {
  const tests = filters.map((f) => {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UserError(`--filter ${f}: expected FIELD=GLOB, e.g. framework=sim or conc=4`);
    const field = f.slice(0, eq);
    const re = fnmatchRegExp(f.slice(eq + 1));
    return (row: MatrixRow): boolean => {
      const v = (row as unknown as Record<string, unknown>)[field];
      const values = Array.isArray(v) ? v : [v];
      return values.some((x) => x !== undefined && re.test(String(x)));
    };
  });
  return rows.filter((r) => tests.every((t) => t(r)));
}
