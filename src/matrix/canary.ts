/**
 * The canary: the one row a pull-request sweep runs before the rest, as InferenceX's
 * `canary-select` job picks it. Candidates are the single-node fixed-sequence rows that do not
 * run an eval (a canary is a benchmark smoke test), the 1k1k rows first, then the 8k1k rows;
 * the canary is the lowest concurrency among them, the first one on a tie. Multi-node and
 * agentic rows are never the canary: a sweep without a candidate runs without one.
 *
 * InferenceX's sweep has only 1k1k and 8k1k single-node jobs; rows of other shapes (which a
 * Frontier catalog may have, and which InferenceX's workflow would not run) are candidates
 * only when the sweep has no 1k1k or 8k1k candidate.
 */
import { SEQ_LEN_NAMES, seqLenName } from './conc.js';
import { isAgenticRow, isMultiNodeRow } from './types.js';
import type { MatrixRow, SingleNodeRow } from './types.js';

/** Whether `row` may be the canary. */
export function isCanaryCandidate(row: MatrixRow): row is SingleNodeRow {
  return !isMultiNodeRow(row) && !isAgenticRow(row) && row['run-eval'] !== true;
}

/** The canary of `rows` (in sweep order), or undefined when no row qualifies. */
export function canaryRow(rows: readonly MatrixRow[]): SingleNodeRow | undefined {
  const candidates = rows.filter(isCanaryCandidate);
  const named = SEQ_LEN_NAMES.flatMap((name) => candidates.filter((r) => seqLenName(r.isl, r.osl) === name));
  let best: SingleNodeRow | undefined;
  for (const row of named.length > 0 ? named : candidates) if (best === undefined || row.conc < best.conc) best = row;
  return best;
}
