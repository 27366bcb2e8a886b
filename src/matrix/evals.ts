import { isAgenticRow, isMultiNodeRow } from './types.js';
import type { MatrixRow, MultiNodeAgenticRow, MultiNodeRow, SingleNodeRow } from './types.js';

/** Concurrencies below this are too small a batch for a meaningful eval. */
export const MIN_EVAL_CONC = 16;
const EVAL_ISL = 8192;
const EVAL_OSL = 1024;

export interface EvalOptions {
  noEvals?: boolean | undefined;
  evalsOnly?: boolean | undefined;
  allEvals?: boolean | undefined;
}

/**
 * Apply the eval policy to generated rows, as the reference generator does after expansion:
 * the default selection (unless --no-evals), widened by --all-evals; with --evals-only or
 * --all-evals only eval rows remain, each marked eval-only.
 */
export function applyEvalSelection(rows: MatrixRow[], options: EvalOptions): MatrixRow[] {
  let out = rows;
  if (!options.noEvals) {
    out = markEvalEntries(out, Boolean(options.evalsOnly || options.allEvals));
    if (options.allEvals) out = markAllEvalEntries(out);
  }
  if (options.evalsOnly || options.allEvals) {
    out = out.filter((row) => row['run-eval'] === true);
    for (const row of out) row['eval-only'] = true;
  }
  return out;
}

const isEvalSeqLen = (row: { isl?: number; osl?: number }): boolean => row.isl === EVAL_ISL && row.osl === EVAL_OSL;

function eligibleConcs(row: MatrixRow): number[] {
  const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
  return concs.filter((c) => c >= MIN_EVAL_CONC).sort((a, b) => a - b);
}

const PARALLELISM_IGNORED = new Set(['conc', 'run-eval', 'eval-only', 'eval-conc', 'eval-all-concs', 'exp-name']);

/**
 * Identity of a multinode topology regardless of concurrency and eval fields (exp-name of an
 * agentic row embeds its concurrency, so it is ignored too). Key order does not matter: the
 * row is written with its keys, nested ones included, in sorted order.
 */
function parallelismKey(row: MatrixRow): string {
  // JSON.stringify keeps the first of a repeated name in its property list.
  const keys: string[] = [];
  for (const k in row) {
    if (PARALLELISM_IGNORED.has(k)) continue;
    keys.push(k);
    const v = (row as unknown as Record<string, unknown>)[k];
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const nested in v) keys.push(nested);
  }
  return JSON.stringify(row, keys.sort());
}

/** Append to a group list, creating it: groups keep first-seen order. */
function push<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const list = groups.get(key);
  if (list) list.push(item);
  else groups.set(key, [item]);
}

/** The first item with the highest score (Python's max keeps the first). */
function best<T>(items: T[], score: (item: T) => number): T {
  let top = items[0] as T;
  for (const item of items) if (score(item) > score(top)) top = item;
  return top;
}

/**
 * Default eval selection:
 * - single-node 8k1k rows with conc >= 16, grouped by (model, runner, framework, precision,
 *   isl, osl, spec-decoding, dp-attn): every row at the group's highest and median conc;
 * - multinode 8k1k rows: per topology, the row with the highest eligible conc (eval-conc);
 * - agentic rows only when asked: single-node highest conc per (model, runner, framework,
 *   precision), multinode highest eligible conc per topology.
 */
export function markEvalEntries(rows: MatrixRow[], includeAgentic: boolean): MatrixRow[] {
  const selected = new Set<number>();
  const evalConc = new Map<number, number>();

  const singleGroups = new Map<string, [number, SingleNodeRow][]>();
  const multiGroups = new Map<string, [number, number][]>();
  rows.forEach((row, i) => {
    if (!isEvalSeqLen(row as { isl?: number; osl?: number })) return;
    const eligible = eligibleConcs(row);
    if (eligible.length === 0) return;
    if ('tp' in row) {
      const r = row as SingleNodeRow;
      const key = JSON.stringify([r.model, r.runner, r.framework, r.precision, r.isl, r.osl, r['spec-decoding'], r['dp-attn']]);
      push(singleGroups, key, [i, r]);
    } else if (isMultiNodeRow(row)) {
      push(multiGroups, parallelismKey(row), [i, eligible[eligible.length - 1]!]);
    }
  });
  for (const group of singleGroups.values()) {
    const concs = [...new Set(group.map(([, r]) => r.conc))].sort((a, b) => a - b);
    const targets = new Set([concs[concs.length - 1], concs[Math.floor(concs.length / 2)]]);
    for (const [i, r] of group) if (targets.has(r.conc)) selected.add(i);
  }
  const pickHighest = (groups: Map<string, [number, number][]>): void => {
    for (const group of groups.values()) {
      const [i, conc] = best(group, ([, c]) => c);
      selected.add(i);
      evalConc.set(i, conc);
    }
  };
  pickHighest(multiGroups);

  if (includeAgentic) {
    const agenticSingle = new Map<string, [number, number][]>();
    const agenticMulti = new Map<string, [number, number][]>();
    rows.forEach((row, i) => {
      if (!isAgenticRow(row)) return;
      if (isMultiNodeRow(row)) {
        const eligible = eligibleConcs(row);
        if (eligible.length > 0) push(agenticMulti, parallelismKey(row), [i, eligible[eligible.length - 1]!]);
        return;
      }
      const key = JSON.stringify([row.model, row.runner, row.framework, row.precision]);
      push(agenticSingle, key, [i, row.conc]);
    });
    for (const group of agenticSingle.values()) selected.add(best(group, ([, c]) => c)[0]);
    pickHighest(agenticMulti);
  }

  rows.forEach((row, i) => {
    row['run-eval'] = selected.has(i);
    const conc = evalConc.get(i);
    if (conc !== undefined) (row as MultiNodeRow)['eval-conc'] = conc;
  });
  return rows;
}

/**
 * --all-evals: every 8k1k fixed-seq-len row becomes an eval row; multinode rows of one topology
 * merge into one row running all their concurrencies (eval-all-concs); multinode agentic rows of
 * one topology merge with eval-conc at their highest conc; single-node agentic rows are marked.
 */
export function markAllEvalEntries(rows: MatrixRow[]): MatrixRow[] {
  const out: MatrixRow[] = [];
  const multiIndex = new Map<string, number>();
  const agenticMultiIndex = new Map<string, number>();
  const union = (a: number[], b: number[]): number[] => [...new Set([...a, ...b])].sort((x, y) => x - y);

  for (const row of rows) {
    if (isAgenticRow(row)) {
      if (!isMultiNodeRow(row)) {
        row['run-eval'] = true;
        out.push(row);
        continue;
      }
      const key = parallelismKey(row);
      const at = agenticMultiIndex.get(key);
      if (at !== undefined) {
        const existing = out[at] as MultiNodeAgenticRow;
        existing.conc = union(existing.conc, row.conc);
        existing['eval-conc'] = Math.max(...existing.conc);
        continue;
      }
      agenticMultiIndex.set(key, out.length);
      out.push({ ...row, conc: union([], row.conc), 'run-eval': true, 'eval-conc': Math.max(...row.conc) });
      continue;
    }
    if (!isEvalSeqLen(row)) {
      out.push(row);
      continue;
    }
    if (isMultiNodeRow(row)) {
      const key = parallelismKey(row);
      const at = multiIndex.get(key);
      if (at !== undefined) {
        const existing = out[at] as MultiNodeRow;
        existing.conc = union(existing.conc, row.conc);
        continue;
      }
      const merged: MultiNodeRow = { ...row, conc: union([], row.conc), 'run-eval': true, 'eval-all-concs': true };
      delete merged['eval-conc'];
      multiIndex.set(key, out.length);
      out.push(merged);
      continue;
    }
    row['run-eval'] = true;
    out.push(row);
  }
  return out;
}
