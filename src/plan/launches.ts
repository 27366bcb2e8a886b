import { asksForSyntheticAcceptance, syntheticAcceptanceOf } from '../specdec/synthetic.js';
import type { SyntheticAcceptance } from '../engines/index.js';
import type { GoldenFile } from '../specdec/golden.js';
import type { RepeatSettings } from '../clusters/index.js';
import { topologyLabel } from '../contract/index.js';
import type { RepeatScope } from '../contract/index.js';
import type { Deployment, Layout, WorkerShape } from '../engines/index.js';
import { isAgenticRow, isMultiNodeRow, rowTopology } from '../matrix/index.js';
import type { MatrixRow, MultiNodeAgenticRow, MultiNodeRow, RowWorker, SingleNodeRow } from '../matrix/index.js';
import { resultFilenameOf } from '../results/index.js';

/**
 * A run's launches: the matrix rows grouped into engine launches, each benched at one or
 * more concurrencies ("points"). Single-node rows that differ only in `conc` share one launch:
 * the engine starts once and is benched at each concurrency in turn. Rows whose `engine-tuning`
 * differs (tuning by conc) are different launches. A multinode row is one
 * launch with its `conc` list. Pure: no clusters, no processes.
 */

export interface PlannedPoint {
  conc: number;
  /** RESULT_FILENAME, as the reference workflow builds it. */
  resultFilename: string;
  /** The row this point comes from (for its identity in results). */
  row: MatrixRow;
  /** Multinode only: the raw result's name suffix `_conc<c>_gpus_<g>_ctx_<p>_gen_<d>` (or `…_gpus_<g>`). */
  multinodeSuffix?: string;
  /** Which measurement of a repeated point this is (`frontier run --repeats`); absent when the point is measured once. */
  repeat?: PointRepeat;
}

/** `index` of `of` (from 1); `launch`: each repeat is a launch of its own, `point`: the repeats share one launch. */
export interface PointRepeat {
  index: number;
  of: number;
  scope: RepeatScope;
}

export const ONCE: RepeatSettings = { count: 1, scope: 'launch' };

/**
 * What names one measurement of a point in the run directory and the manifest: its
 * RESULT_FILENAME, with `_r<k>` for the second and later repeats.
 */
export const sampleKey = (resultFilename: string, repeat?: number): string =>
  repeat !== undefined && repeat > 1 ? `${resultFilename}_r${repeat}` : resultFilename;

export const sampleKeyOf = (p: PlannedPoint): string => sampleKey(p.resultFilename, p.repeat?.index);

export interface PlannedLaunch {
  /** Stable and unique within the run: `g<index>`. */
  id: string;
  /** For people: model, precision, framework, topology, isl/osl. */
  label: string;
  rows: MatrixRow[];
  points: PlannedPoint[];
  /** The evals its rows ask for (`run-eval`), run against the same engine after the points. */
  evals: PlannedEval[];
}

/** The row's eval tasks at `concs` against the launch's engine, into `dir` (`eval_<exp>_<RF>`; multinode `eval_<RF>`). */
export interface PlannedEval {
  concs: number[];
  dir: string;
  row: SingleNodeRow | MultiNodeRow;
}

/** The RESULT_FILENAME a launch's server logs are named after: its first point's, else its first eval's. */
export const logsKeyOf = (g: PlannedLaunch, points: readonly PlannedPoint[] = g.points): string => {
  const first = points[0] ?? g.points[0];
  return first ? sampleKeyOf(first) : g.evals[0]!.dir.replace(/^eval_/, '');
};

/**
 * The context an agentic launch serves: the Weka corpora's 256k variant (requests of at most
 * 256,000 tokens in + out), which InferenceX replays against every model whose native context is
 * shorter than 1M. The replay skips longer requests (`--max-context-length`), as AIPerf does.
 */
export const AGENTIC_MAX_MODEL_LEN = 262_144;

/** A launch that runs evals serves at least this context: the 5-shot prompt and the reference's generation budget fit. */
export const EVAL_MIN_CONTEXT = 4096;

/**
 * A catalog worker as Frontier's shape. The catalog writes a data-parallel worker of N 1-GPU
 * ranks (vLLM's `--data-parallel-size N --tensor-parallel-size 1 --enable-expert-parallel`, as
 * the srt-slurm recipes run it) as tp 1, ep N, dp-attn: that is N GPUs, which Frontier's shape
 * spells tp N with dp-attn (one attention rank per GPU) and ep N, as for SGLang's DEP.
 */
const worker = (w: RowWorker): WorkerShape => ({
  tp: w['dp-attn'] && w.tp === 1 && w.ep > 1 ? w.ep : w.tp,
  pp: w.pp,
  ep: w.ep,
  dpAttn: w['dp-attn'],
  dcp: w['dcp-size'],
  pcp: w['pcp-size'],
});

export function layoutOf(row: MatrixRow): Layout {
  if (!isMultiNodeRow(row)) {
    return {
      kind: 'aggregated',
      worker: { tp: row.tp, pp: row.pp, ep: row.ep, dpAttn: row['dp-attn'], dcp: row['dcp-size'], pcp: row['pcp-size'] },
    };
  }
  const r = row;
  if (!r.disagg) return { kind: 'aggregated', worker: worker(r.prefill) };
  return {
    kind: 'disaggregated',
    prefill: { ...worker(r.prefill), workers: r.prefill['num-worker'] },
    decode: { ...worker(r.decode), workers: r.decode['num-worker'] },
  };
}

export const layoutGpus = (l: Layout): number =>
  l.kind === 'aggregated'
    ? l.worker.tp * l.worker.pp * l.worker.pcp
    : l.prefill.workers * l.prefill.tp * l.prefill.pp * l.prefill.pcp +
      l.decode.workers * l.decode.tp * l.decode.pp * l.decode.pcp;

/** The recipe a multinode row runs (its `CONFIG_FILE=` setting), if any. */
export function recipeOf(row: MatrixRow): string | undefined {
  if (!isMultiNodeRow(row)) return undefined;
  const settings = [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])];
  const setting = settings.find((s) => s.startsWith('CONFIG_FILE='));
  return setting?.slice('CONFIG_FILE='.length);
}

function multinodeSuffix(row: MultiNodeRow | MultiNodeAgenticRow, conc: number): string {
  const gpus = (w: RowWorker): number => w['num-worker'] * w.tp * w.pp * w['pcp-size'];
  const recipe = recipeOf(row);
  const config = recipe
    ? `_${recipe
        .split('/')
        .pop()!
        .replace(/\.ya?ml$/, '')}`
    : '';
  const total = gpus(row.prefill) + (row.disagg ? gpus(row.decode) : 0);
  const split = row.disagg ? `_ctx_${gpus(row.prefill)}_gen_${gpus(row.decode)}` : '';
  return `${config}_conc${conc}_gpus_${total}${split}`;
}

/**
 * Group rows into launches; `runner` stands for the machine name in RESULT_FILENAME. With
 * `repeats`, each fixed-length point is measured `count` times: in `count` rounds of launches
 * (`launch` scope; the later rounds without evals), or `count` times in a row within its launch
 * (`point`). Agentic points are replayed once: a replay measures the cache it builds.
 */
export function planRun(rows: readonly MatrixRow[], runner: string, repeats: RepeatSettings = ONCE): PlannedLaunch[] {
  const launches = groupRows(rows, runner);
  return repeats.count === 1 ? launches : withRepeats(launches, repeats);
}

function withRepeats(launches: readonly PlannedLaunch[], { count, scope }: RepeatSettings): PlannedLaunch[] {
  const repeated = (g: PlannedLaunch): boolean => g.points.length > 0 && !isAgenticRow(g.rows[0]!);
  const tag = (p: PlannedPoint, index: number): PlannedPoint => ({ ...p, repeat: { index, of: count, scope } });
  const rounds = Array.from({ length: count }, (_, i) => i + 1);
  if (scope === 'point')
    return launches.map((g) => (repeated(g) ? { ...g, points: g.points.flatMap((p) => rounds.map((k) => tag(p, k))) } : g));
  return rounds.flatMap((k) =>
    launches
      .filter((g) => k === 1 || repeated(g))
      .map((g) =>
        !repeated(g)
          ? g
          : k === 1
            ? { ...g, points: g.points.map((p) => tag(p, 1)) }
            : {
                ...g,
                id: `${g.id}r${k}`,
                label: `${g.label} (repeat ${k}/${count})`,
                evals: [],
                points: g.points.map((p) => tag(p, k)),
              },
      ),
  );
}

function groupRows(rows: readonly MatrixRow[], runner: string): PlannedLaunch[] {
  const groups: PlannedLaunch[] = [];
  const single = new Map<string, PlannedLaunch>();
  for (const row of rows) {
    if (isAgenticRow(row)) {
      // Each agentic point gets an engine of its own, as each is its own InferenceX job: a replay
      // measures the prefix cache it builds, and the previous point's cache would flatter it.
      const concs = typeof row.conc === 'number' ? [row.conc] : row.conc;
      const base = resultFilenameOf(row, runner);
      for (const conc of concs)
        groups.push({
          id: `g${groups.length}`,
          label: `${row['model-prefix']} ${row.precision} ${row.framework} ${topologyLabel(rowTopology(row))} agentic-coding kv ${row['kv-offloading']}`,
          rows: [row],
          points: row['eval-only']
            ? []
            : [
                isMultiNodeRow(row)
                  ? { conc, resultFilename: base + multinodeSuffix(row, conc), row, multinodeSuffix: multinodeSuffix(row, conc) }
                  : { conc, resultFilename: base, row },
              ],
          evals: [],
        });
      continue;
    }
    if (isMultiNodeRow(row)) {
      const r = row as MultiNodeRow;
      const base = resultFilenameOf(r, runner);
      groups.push({
        id: `g${groups.length}`,
        label: `${r['model-prefix']} ${r.precision} ${r.framework} ${topologyLabel(rowTopology(r))} ${r.isl}/${r.osl}`,
        rows: [r],
        points: r.conc.map((conc) => {
          const suffix = multinodeSuffix(r, conc);
          return { conc, resultFilename: base + suffix, row: r, multinodeSuffix: suffix };
        }),
        evals: r['run-eval'] ? [{ concs: [r['eval-conc'] ?? Math.max(...r.conc)], dir: `eval_${base}`, row: r }] : [],
      });
      continue;
    }
    const r = row as SingleNodeRow;
    const { conc: _conc, 'run-eval': _eval, 'eval-only': _evalOnly, ...shape } = r;
    const key = JSON.stringify(shape);
    let group = single.get(key);
    if (!group) {
      group = {
        id: `g${groups.length}`,
        label: `${r['model-prefix']} ${r.precision} ${r.framework} ${topologyLabel(rowTopology(r))} ${r.isl}/${r.osl}`,
        rows: [],
        points: [],
        evals: [],
      };
      single.set(key, group);
      groups.push(group);
    }
    group.rows.push(r);
    if (r['run-eval']) group.evals.push({ concs: [r.conc], dir: `eval_${r['exp-name']}_${resultFilenameOf(r, runner)}`, row: r });
    if (!r['eval-only']) group.points.push({ conc: r.conc, resultFilename: resultFilenameOf(r, runner), row: r });
  }
  for (const g of groups) g.points.sort((a, b) => a.conc - b.conc);
  return separateSyntheticEvals(groups);
}

/**
 * Evals never run with synthetic acceptance, which accepts drafts the target never verified: a
 * launch that injects it runs its evals on a launch of their own with real acceptance, as
 * InferenceX's EVAL_ONLY jobs do (deploymentOf injects nothing into a launch without points).
 */
function separateSyntheticEvals(groups: PlannedLaunch[]): PlannedLaunch[] {
  const out = groups.flatMap((g) =>
    g.evals.length > 0 && g.points.length > 0 && g.rows.some(asksForSyntheticAcceptance)
      ? [
          { ...g, evals: [] },
          { ...g, label: `${g.label} evals`, points: [], evals: g.evals },
        ]
      : [g],
  );
  return out.map((g, i) => ({ ...g, id: `g${i}` }));
}

export interface DeploymentSettings {
  framework: string;
  /** The golden AL curves, for rows that run with synthetic acceptance. */
  golden?: readonly GoldenFile[];
  modelPath: string;
  gpu: string;
  options: Deployment['options'];
  frontierCommand?: string[];
}

const synthetic = (s: SyntheticAcceptance | undefined): { syntheticAcceptance?: SyntheticAcceptance } =>
  s ? { syntheticAcceptance: s } : {};

/** A group's deployment: its first row's model and shape, sized for its highest concurrency. */
export function deploymentOf(group: PlannedLaunch, s: DeploymentSettings): Deployment {
  const row = group.points[0]?.row ?? group.rows[0]!;
  const sequence = isAgenticRow(row)
    ? { isl: 0, osl: 0, maxModelLen: AGENTIC_MAX_MODEL_LEN }
    : {
        isl: row.isl,
        osl: row.osl,
        maxModelLen: group.evals.length > 0 ? Math.max(row['max-model-len'], EVAL_MIN_CONTEXT) : row['max-model-len'],
      };
  return {
    framework: s.framework,
    model: row.model,
    modelPath: s.modelPath,
    servedModelName: row.model,
    precision: row.precision,
    image: row.image,
    gpu: s.gpu,
    ...sequence,
    specDecoding: row['spec-decoding'],
    ...(group.points.length > 0 && s.golden ? synthetic(syntheticAcceptanceOf(row, s.golden)) : {}),
    maxConcurrency: Math.max(1, ...group.points.map((p) => p.conc)),
    layout: layoutOf(row),
    ...(row['kv-p2p-transfer'] ? { kvTransfer: row['kv-p2p-transfer'] } : {}),
    options: s.options,
    // Rows of a group share their tuning: it is part of what groups them.
    ...(!isAgenticRow(row) && row['engine-tuning'] ? { tuning: row['engine-tuning'] } : {}),
    ...(isAgenticRow(row) ? { scenario: 'agentic-coding' as const } : {}),
    ...(isAgenticRow(row) && row['kv-offloading'] === 'dram' ? { cpuOffloadGb: row['total-cpu-dram-gb'] } : {}),
    ...(s.frontierCommand ? { frontierCommand: s.frontierCommand } : {}),
  };
}
