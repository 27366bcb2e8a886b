import type { MasterConfigEntry, WorkerConfig } from '../catalog/index.js';
import { engineFlags, engineParallelism } from './engine.js';
import type { EngineRole } from './engine.js';
import { resourceMath } from './topology.js';
import type { Resources } from './topology.js';

/**
 * Does a master-config search-space entry describe the recipe its CONFIG_FILE names? Both must
 * agree on what is run (concurrencies, workers, TP/EP/dp-attn per role, image, ISL/OSL,
 * precision, Dynamo version); the matrix row and the job would otherwise disagree silently.
 */

export interface Mismatch {
  rule: string;
  /** Field path in the master-config entry (relative to the search-space entry unless absolute). */
  configPath: (string | number)[];
  /** Field path in the recipe. */
  recipePath: string;
  message: string;
  hint: string;
}

export interface EntryView {
  config: MasterConfigEntry;
  /** The search-space entry (multinode shape: prefill/decode workers). */
  entry: { prefill?: WorkerConfig; decode?: WorkerConfig; 'conc-list'?: number[]; 'conc-start'?: number; 'conc-end'?: number };
  /** ISL/OSL of a fixed-seq-len scenario; absent for agentic ones. */
  seq?: { isl: number; osl: number } | undefined;
  /** Path of the search-space entry inside the config key. */
  path: (string | number)[];
  /** What the config states about the entry outside its schema (in InferenceX, in a comment). */
  intent?: {
    /** conc-list deliberately holds only the largest of the recipe's concurrencies. */
    tracksMaxConcurrency?: boolean;
  };
}

type Obj = Record<string, unknown>;

/** `benchmark.concurrencies` as srtctl reads it: a list, or an "AxBxC" string. */
export function recipeConcurrencies(benchmark: Obj | undefined): number[] | undefined {
  const value = benchmark?.concurrencies;
  if (Array.isArray(value)) return value.filter((v): v is number => typeof v === 'number');
  if (typeof value === 'string') return value.split('x').map((v) => Number(v.trim()));
  if (typeof value === 'number') return [value];
  return undefined;
}

function entryConcurrencies(entry: EntryView['entry']): number[] {
  if (entry['conc-list']) return entry['conc-list'];
  const out: number[] = [];
  for (
    let c = entry['conc-start']!;
    c <= entry['conc-end']!;
    c = c === entry['conc-end'] ? Infinity : Math.min(c * 2, entry['conc-end']!)
  )
    out.push(c);
  return out;
}

/** Images compare equal across the enroot spelling (`nvcr.io#org/img`) and the docker one. */
export const normaliseImage = (image: string): string =>
  image
    .trim()
    .replace('#', '/')
    .replace(/^docker\.io\//, '');

const sameSet = (a: number[], b: number[]): boolean => {
  const x = [...new Set(a)].sort((p, q) => p - q);
  const y = [...new Set(b)].sort((p, q) => p - q);
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

export function compareEntryWithRecipe(view: EntryView, recipe: Obj): Mismatch[] {
  const out: Mismatch[] = [];
  const { config, entry, seq } = view;
  const resources = (recipe.resources ?? {}) as Resources;
  const backend = (recipe.backend ?? {}) as Obj;
  const backendType = String(backend.type ?? 'sglang');
  const benchmark = recipe.benchmark as Obj | undefined;
  const model = (recipe.model ?? {}) as Obj;

  const concs = recipeConcurrencies(benchmark);
  if (concs && (entry['conc-list'] || entry['conc-start'] !== undefined)) {
    const mine = entryConcurrencies(entry);
    const tracksMax = view.intent?.tracksMaxConcurrency === true;
    const max = Math.max(...concs);
    if (!sameSet(mine, tracksMax ? [max] : concs)) {
      out.push({
        rule: 'recipe/concurrency-mismatch',
        configPath: [...view.path, entry['conc-list'] ? 'conc-list' : 'conc-start'],
        recipePath: 'benchmark.concurrencies',
        message: tracksMax
          ? `the entry's comment says it tracks the recipe's maximum concurrency (${max}) but it sweeps [${mine.join(', ')}]`
          : `the entry sweeps concurrencies [${mine.join(', ')}] but the recipe runs [${concs.join(', ')}]`,
        hint: tracksMax
          ? `set conc-list to [${max}], or drop the comment and list every concurrency the recipe runs`
          : 'the recipe runs its own list: make conc-list and benchmark.concurrencies the same',
      });
    }
  }

  const math = resourceMath(resources);
  const aggregated = !math.disaggregated;
  const sides: ['prefill' | 'decode', WorkerConfig | undefined, number, EngineRole][] = aggregated
    ? [
        ['prefill', entry.prefill, math.agg.workers, 'aggregated'],
        ['decode', entry.decode, 0, 'aggregated'],
      ]
    : [
        ['prefill', entry.prefill, math.prefill.workers, 'prefill'],
        ['decode', entry.decode, math.decode.workers, 'decode'],
      ];
  for (const [side, worker, recipeWorkers, role] of sides) {
    if (!worker) continue;
    const flags = aggregated && side === 'decode' ? undefined : engineFlags(backend, role);
    const engine = flags ? engineParallelism(backendType, flags) : undefined;
    // Conventions differ across configs for data parallelism: DP replicas may be counted as
    // workers (num-worker = workers × dp, tp per replica), and a DEP worker's tp may be its
    // attention TP or all its GPUs. Either spelling of the same topology is accepted.
    const dpReplicas =
      engine !== undefined && engine.dp > 1 && worker['num-worker'] === recipeWorkers * engine.dp && worker.tp === engine.tp;
    if (worker['num-worker'] !== recipeWorkers && !dpReplicas) {
      out.push({
        rule: 'recipe/worker-count-mismatch',
        configPath: [...view.path, side, 'num-worker'],
        recipePath: aggregated ? 'resources.agg_workers' : `resources.${side}_workers`,
        message: `${side} num-worker is ${worker['num-worker']} but the recipe runs ${recipeWorkers} ${aggregated ? (side === 'prefill' ? 'aggregated' : 'separate decode') : side} worker(s)`,
        hint: aggregated
          ? 'an aggregated recipe is num-worker: <agg_workers> for prefill and 0 for decode'
          : `set num-worker to resources.${side}_workers`,
      });
    }
    if (!engine) continue;
    const differences: string[] = [];
    if (!engine.masterTp.includes(worker.tp)) differences.push(`tp ${worker.tp} vs ${engine.masterTp.join(' or ')}`);
    if (worker.ep !== engine.ep) differences.push(`ep ${worker.ep} vs ${engine.ep}`);
    if (worker['dp-attn'] !== engine.dpAttn) differences.push(`dp-attn ${worker['dp-attn']} vs ${engine.dpAttn}`);
    if (differences.length > 0) {
      out.push({
        rule: 'recipe/parallelism-mismatch',
        configPath: [...view.path, side],
        recipePath: `backend.${backendType}_config.${role}`,
        message: `${side} parallelism differs from the recipe's ${role} engine flags: ${differences.join(', ')} (entry vs recipe)`,
        hint: 'the matrix labels the point with the entry; the job runs the recipe: make them describe the same topology',
      });
    }
  }

  if (
    typeof model.container === 'string' &&
    !CONTAINER_ALIASES.has(model.container) &&
    normaliseImage(model.container) !== normaliseImage(config.image)
  ) {
    out.push({
      rule: 'recipe/image-mismatch',
      configPath: ['image'],
      recipePath: 'model.container',
      message: `the config's image is ${config.image} but the recipe runs ${model.container}`,
      hint: 'results are published under the config image: use the same image in both',
    });
  }
  if (seq && benchmark) {
    for (const field of ['isl', 'osl'] as const) {
      const value = benchmark[field];
      if (typeof value === 'number' && value !== seq[field]) {
        out.push({
          rule: 'recipe/seq-len-mismatch',
          configPath: [...view.path.slice(0, -2), field],
          recipePath: `benchmark.${field}`,
          message: `the scenario's ${field} is ${seq[field]} but the recipe benchmarks ${field} ${value}`,
          hint: `put the recipe under the scenario it runs, or set benchmark.${field} to ${seq[field]}`,
        });
      }
    }
  }
  if (typeof model.precision === 'string' && precisionFamily(model.precision) !== precisionFamily(config.precision)) {
    out.push({
      rule: 'recipe/precision-mismatch',
      configPath: ['precision'],
      recipePath: 'model.precision',
      message: `the config's precision is ${config.precision} but the recipe's model is ${model.precision}`,
      hint: 'point the entry at the recipe for its precision',
    });
  }
  const router = (entry as { router?: { name: string; version: string } }).router ?? config.router;
  const dynamo = recipe.dynamo as Obj | undefined;
  if (router && /dynamo/i.test(router.name) && dynamo) {
    // Compare like with like: a release with a release, a commit with a commit.
    const pinIsCommit = SHA.test(router.version);
    const pinned = (pinIsCommit ? [dynamo.hash] : [dynamo.version, dynamo.wheel]).find((v) => typeof v === 'string') as
      string | undefined;
    if (pinned && !sameVersion(pinned, router.version)) {
      out.push({
        rule: 'recipe/dynamo-version-mismatch',
        configPath: (entry as { router?: unknown }).router ? [...view.path, 'router', 'version'] : ['router', 'version'],
        recipePath: dynamo.version !== undefined ? 'dynamo.version' : dynamo.wheel !== undefined ? 'dynamo.wheel' : 'dynamo.hash',
        message: `the config pins ${router.name} ${router.version} but the recipe installs Dynamo ${pinned}`,
        hint: 'the router pin is what results are published with: make it the Dynamo the recipe installs',
      });
    }
  }
  return out;
}

const SHA = /^[0-9a-f]{7,40}$/i;

/** Versions compare exactly; commit hashes by prefix (a short SHA matches its full form). */
function sameVersion(a: string, b: string): boolean {
  const x = a.trim().replace(/^v/, '');
  const y = b.trim().replace(/^v/, '');
  return x === y || (SHA.test(x) && SHA.test(y) && (x.startsWith(y) || y.startsWith(x)));
}

/** srtslurm.yaml container aliases the launchers map to the config's own image. */
const CONTAINER_ALIASES = new Set(['dynamo-trtllm', 'dynamo-sglang', 'dynamo-vllm']);

/** fp4, mxfp4 and nvfp4 are one precision family (the master config names the family). */
const precisionFamily = (p: string): string =>
  p
    .trim()
    .toLowerCase()
    .replace(/^(mx|nv)/, '');
