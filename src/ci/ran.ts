/**
 * What a sweep ran, one row per hardware and config (model, precision, framework, topology,
 * sequence lengths) with its concurrencies: from a Frontier run manifest (with each point's
 * outcome) or from the sweep matrix JSON (what was asked).
 */
import { topologyLabel } from '../contract/index.js';
import { isAgenticRow, rowTopology } from '../matrix/index.js';
import type { MatrixRow, MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import { isPlainMapping } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';

export interface RanRow {
  hardware: string;
  /** `<model-prefix> <precision> <framework> <topology> <isl>/<osl>`, as `frontier run` labels a launch. */
  config: string;
  concs: number[];
  /** Whether its rows ask for an eval. */
  eval: boolean;
  /** From a run directory: its points that finished ok, of all of them, and the launch's status. */
  ok?: number;
  points?: number;
  status?: string;
}

/** The parts of a run manifest (src/launch/run-dir.ts) this reads. */
export interface ManifestForRan {
  launches: readonly { id: string; label: string; status: string }[];
  points: readonly { launch: string; conc: number; runner: string; status: string }[];
  evals?: readonly { launch: string }[];
}

const sortedUnique = (xs: Iterable<number>): number[] => [...new Set(xs)].sort((a, b) => a - b);

export function ranFromManifest(m: ManifestForRan): RanRow[] {
  const withEval = new Set((m.evals ?? []).map((e) => e.launch));
  return m.launches.map((g) => {
    const points = m.points.filter((p) => p.launch === g.id);
    return {
      hardware: [...new Set(points.map((p) => p.runner))].join(', '),
      config: g.label,
      concs: sortedUnique(points.map((p) => p.conc)),
      eval: withEval.has(g.id),
      ok: points.filter((p) => p.status === 'ok').length,
      points: points.length,
      status: g.status,
    };
  });
}

function configOf(row: MatrixRow): string {
  if (isAgenticRow(row)) return `${row['model-prefix']} ${row.precision} ${row.framework} agentic-coding`;
  const r = row as SingleNodeRow | MultiNodeRow;
  return `${r['model-prefix']} ${r.precision} ${r.framework} ${topologyLabel(rowTopology(r))} ${r.isl}/${r.osl}`;
}

export function ranFromMatrix(rows: readonly MatrixRow[]): RanRow[] {
  const byKey = new Map<string, RanRow>();
  for (const row of rows) {
    const config = configOf(row);
    const key = `${row.runner}\0${config}`;
    const ran = byKey.get(key) ?? { hardware: row.runner, config, concs: [], eval: false };
    ran.concs = sortedUnique([...ran.concs, ...(Array.isArray(row.conc) ? row.conc : [row.conc])]);
    ran.eval ||= row['run-eval'] === true || row['eval-only'] === true;
    byKey.set(key, ran);
  }
  return [...byKey.values()];
}

/**
 * The rows of a sweep matrix JSON: a list of rows (`frontier matrix`, generate_sweep_configs.py),
 * or the processed changelog (`{single_node: {"1k1k": […]}, multi_node: {…}, evals: […], …}`).
 */
export function matrixRowsOf(doc: unknown, source = 'the matrix file'): MatrixRow[] {
  let rows: unknown[];
  if (Array.isArray(doc)) rows = doc;
  else if (isPlainMapping(doc) && ('single_node' in doc || 'multi_node' in doc)) {
    const lists = (v: unknown): unknown[] =>
      isPlainMapping(v) ? Object.values(v).flatMap((l) => (Array.isArray(l) ? l : [])) : [];
    const evals = ['evals', 'agentic_evals', 'multinode_evals', 'multinode_agentic_evals'].flatMap((k) =>
      Array.isArray(doc[k]) ? (doc[k] as unknown[]) : [],
    );
    rows = [...lists(doc.single_node), ...lists(doc.multi_node), ...evals];
  } else {
    throw new UserError(`${source}: expected a list of matrix rows or a processed changelog ({"single_node": …})`, {
      hint: 'give the JSON `frontier matrix` or `frontier changelog process` printed',
    });
  }
  rows.forEach((r, i) => {
    const ok =
      isPlainMapping(r) &&
      typeof r['model-prefix'] === 'string' &&
      typeof r.runner === 'string' &&
      (typeof r.conc === 'number' || Array.isArray(r.conc));
    if (!ok) throw new UserError(`${source}: row ${i} is not a matrix row (needs model-prefix, runner and conc)`);
  });
  return rows as MatrixRow[];
}
