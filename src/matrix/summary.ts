import { textTable } from '../util/text-table.js';
import { topologyLabel } from '../contract/index.js';
import type { TopologyRole, TopologyShape } from '../contract/index.js';
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

/** A matrix row's topology (aggregated multinode rows, decode num-worker 0, count their prefill workers). */
export function rowTopology(row: MatrixRow): TopologyShape {
  if (isMultiNodeRow(row)) {
    const role = (w: RowWorker): TopologyRole => ({ tp: w.tp, ep: w.ep, dpAttn: w['dp-attn'], pp: w.pp });
    const p: RowWorker = row.prefill;
    const d: RowWorker = row.decode;
    if (d['num-worker'] === 0) return { kind: 'aggregated', workers: p['num-worker'], role: role(p) };
    return {
      kind: 'disaggregated',
      prefillWorkers: p['num-worker'],
      decodeWorkers: d['num-worker'],
      prefill: role(p),
      decode: role(d),
    };
  }
  return { kind: 'aggregated', workers: 1, role: { tp: row.tp, ep: row.ep, dpAttn: row['dp-attn'], pp: row.pp } };
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
    const topology = topologyLabel(rowTopology(row));
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
