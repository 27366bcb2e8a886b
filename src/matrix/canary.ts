/**
 * The canary: the one row a pull-request sweep runs before the rest, as InferenceX's
 * `canary-select` job picks it. Candidates are the single-node fixed-sequence rows of the
 * named shapes (the 1k1k rows, then the 8k1k rows) that do not run an eval (a canary is a
 * benchmark smoke test); the canary is the lowest concurrency among them, the first one on a
 * tie. Multi-node and agentic rows are never the canary: a sweep without a candidate runs
 * without one.
 */
import { SEQ_LEN_NAMES, seqLenName } from './conc.js';
import { isAgenticRow, isMultiNodeRow } from './types.js';
import type { MatrixRow, SingleNodeRow } from './types.js';

/** Whether `row` may be the canary. */
export function isCanaryCandidate(row: MatrixRow): row is SingleNodeRow {
  return (
    !isMultiNodeRow(row) &&
    !isAgenticRow(row) &&
    row['run-eval'] !== true &&
    (SEQ_LEN_NAMES as readonly string[]).includes(seqLenName(row.isl, row.osl))
  );
}

/** The canary of `rows` (in sweep order), or undefined when no row qualifies. */
export function canaryRow(rows: readonly MatrixRow[]): SingleNodeRow | undefined {
  const candidates = rows.filter(isCanaryCandidate);
  let best: SingleNodeRow | undefined;
  for (const name of SEQ_LEN_NAMES)
    for (const row of candidates)
      if (seqLenName(row.isl, row.osl) === name && (best === undefined || row.conc < best.conc)) best = row;
  return best;
}
