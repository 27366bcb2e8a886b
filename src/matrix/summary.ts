import { textTable } from '../util/text-table.js';
import { isAgenticRow, isMultiNodeRow } from './types.js';
import type { MatrixRow, RowWorker } from './types.js';

export interface MatrixGroup {
  modelPrefix: string;
  precision: string;
  framework: string;
  runner: string;
  scenario: string;
  topologies: string[];
  rows: number;
  /** Benchmark points: one per concurrency (multinode rows carry several). */
  points: number;
  minConc: number;
  maxConc: number;
  evalRows: number;
}

export interface MatrixSummary {
  rows: number;
  points: number;
  evalRows: number;
  byKind: Record<'single-node fixed-seq-len' | 'multi-node fixed-seq-len' | 'single-node agentic' | 'multi-node agentic', number>;
  groups: MatrixGroup[];
}

/** Parallelism of one role the way people write it: TP4, TEP8 (expert parallel), DEP8 (dp-attention). */
function roleLabel(tp: number, ep: number, dpAttn: boolean): string {
  if (dpAttn) return `DEP${tp}`;
  return ep > 1 ? `TEP${tp}` : `TP${tp}`;
}

/** "TP8", or for prefill/decode pools "1P2D TP4/DEP8" (aggregated multinode: "2×TP16"). */
export function topologyLabel(row: MatrixRow): string {
  if (isMultiNodeRow(row)) {
    const p: RowWorker = row.prefill;
    const d: RowWorker = row.decode;
    if (d['num-worker'] === 0) return `${p['num-worker']}×${roleLabel(p.tp, p.ep, p['dp-attn'])}`;
    return `${p['num-worker']}P${d['num-worker']}D ${roleLabel(p.tp, p.ep, p['dp-attn'])}/${roleLabel(d.tp, d.ep, d['dp-attn'])}`;
  }
  return roleLabel(row.tp, row.ep, row['dp-attn']);
}

export function summarizeMatrix(rows: readonly MatrixRow[]): MatrixSummary {
  const summary: MatrixSummary = {
    rows: rows.length,
    points: 0,
    evalRows: 0,
    byKind: { 'single-node fixed-seq-len': 0, 'multi-node fixed-seq-len': 0, 'single-node agentic': 0, 'multi-node agentic': 0 },
    groups: [],
  };
  const groups = new Map<string, MatrixGroup>();
  for (const row of rows) {
    const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
    const agentic = isAgenticRow(row);
    const kind =
      `${isMultiNodeRow(row) ? 'multi-node' : 'single-node'} ${agentic ? 'agentic' : 'fixed-seq-len'}` as keyof MatrixSummary['byKind'];
    summary.byKind[kind]++;
    summary.points += concs.length;
    const isEval = row['run-eval'] === true;
    if (isEval) summary.evalRows++;
    const scenario = agentic ? 'agentic' : `${(row as { isl: number }).isl}/${(row as { osl: number }).osl}`;
    const id = [row['model-prefix'], row.precision, row.framework, row.runner, scenario].join('\u0000');
    let group = groups.get(id);
    if (!group) {
      group = {
        modelPrefix: row['model-prefix'],
        precision: row.precision,
        framework: row.framework,
        runner: row.runner,
        scenario,
        topologies: [],
        rows: 0,
        points: 0,
        minConc: Infinity,
        maxConc: -Infinity,
        evalRows: 0,
      };
      groups.set(id, group);
    }
    const topology = topologyLabel(row);
    if (!group.topologies.includes(topology)) group.topologies.push(topology);
    group.rows++;
    group.points += concs.length;
    group.minConc = Math.min(group.minConc, ...concs);
    group.maxConc = Math.max(group.maxConc, ...concs);
    if (isEval) group.evalRows++;
  }
  summary.groups = [...groups.values()];
  return summary;
}

/** A plain-text table for terminals. */
export function formatSummary(summary: MatrixSummary): string {
  const lines: string[] = [];
  lines.push(`${summary.rows} rows, ${summary.points} benchmark points, ${summary.evalRows} eval rows`);
  for (const [kind, n] of Object.entries(summary.byKind)) if (n > 0) lines.push(`  ${kind.padEnd(26)} ${n} rows`);
  if (summary.groups.length === 0) return lines.join('\n');
  const header = ['model', 'precision', 'framework', 'runner', 'scenario', 'rows', 'points', 'conc', 'evals', 'topologies'];
  const table = summary.groups.map((g) => [
    g.modelPrefix,
    g.precision,
    g.framework,
    g.runner,
    g.scenario,
    String(g.rows),
    String(g.points),
    g.minConc === g.maxConc ? String(g.minConc) : `${g.minConc}–${g.maxConc}`,
    String(g.evalRows),
    g.topologies.join(', '),
  ]);
  lines.push('', ...textTable([header, ...table]));
  return lines.join('\n');
}
