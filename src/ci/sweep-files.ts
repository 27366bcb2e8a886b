import { join } from 'node:path';
import { changelogMatrixJson, changelogRows } from '../changelog/index.js';
import type { ChangelogMatrix } from '../changelog/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { dumpsPlain } from '../pycompat/json.js';
import type { CanarySplit } from './plan.js';

/** A sweep's rows: the changelog's sweep for a pull request or push, `frontier matrix` for a dispatch. */
export type Sweep = { kind: 'changelog'; matrix: ChangelogMatrix } | { kind: 'rows'; rows: MatrixRow[] };

export const rowsOf = (sweep: Sweep): MatrixRow[] => (sweep.kind === 'changelog' ? changelogRows(sweep.matrix) : sweep.rows);

/** The sweep as JSON (as the reference's jobs read it), its canary, and the rows after the canary. */
export interface SweepJson {
  sweep: string;
  canary: string;
  rest: string;
}

export function sweepJson(sweep: Sweep | undefined, split: CanarySplit | undefined): SweepJson {
  const all = sweep ? (sweep.kind === 'changelog' ? changelogMatrixJson(sweep.matrix) : dumpsPlain(sweep.rows)) : '';
  return {
    sweep: all,
    canary: JSON.stringify(split?.canary ? [split.canary] : []),
    rest: split ? changelogMatrixJson(split.remaining) : all,
  };
}

/** The files `ci plan --out DIR` writes: sweep.json, canary.json and rest.json (inputs of frontier run --matrix), and the changelog's metadata. */
export function sweepFiles(dir: string, sweep: Sweep, json: SweepJson): [string, string][] {
  return [
    [join(dir, 'sweep.json'), `${json.sweep}\n`],
    [join(dir, 'canary.json'), `${json.canary}\n`],
    [join(dir, 'rest.json'), `${json.rest}\n`],
    ...(sweep.kind === 'changelog'
      ? [[join(dir, 'changelog_metadata.json'), `${JSON.stringify(sweep.matrix.changelog_metadata)}\n`] as [string, string]]
      : []),
  ];
}
