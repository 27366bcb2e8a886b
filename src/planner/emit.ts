import { stringify } from 'yaml';
import type { MasterConfigEntry } from '../catalog/index.js';
import type { TopologyRole } from '../contract/index.js';
import { findHardware, findModel } from '../sim/index.js';
import type { Plan, PlannedDeployment } from './plan.js';
import { plannedRecipe } from './recipe.js';
import type { PlannedRecipe } from './recipe.js';

/**
 * The plan as InferenceX master-config entries whose search space sweeps the predicted frontier's
 * neighbourhood: one search-space row per frontier deployment, with its frontier concurrencies and
 * one rung of the ladder below and above them. Aggregated deployments go into a single-node entry
 * (framework = the engine), disaggregated ones into a multinode Dynamo entry.
 *
 * The image, Hugging Face name, model prefix and runner come from a catalog entry of the same
 * model, GPU, precision and framework when one is given; otherwise the image is a placeholder
 * that validates but names what to set (a warning says so).
 *
 * Each disaggregated row names the srt-slurm recipe that runs it, as InferenceX's multinode entries
 * do (`additional-settings: ["CONFIG_FILE=recipes/…yaml"]` in its prefill block); the recipes are
 * returned with the YAML, their paths relative to the tree's srt-slurm recipes folder (recipe.ts).
 */

export interface EmitResult {
  /** The master-config YAML. */
  yaml: string;
  /** What the reader must still do (placeholders). */
  warnings: string[];
  /** The srt-slurm recipes the disaggregated rows name, one per row. */
  recipes: PlannedRecipe[];
}

/** The framework InferenceX names a disaggregated deployment of `engine` by. */
export function disaggregatedFramework(engine: string): string {
  return /^dynamo-|-disagg$|^mori-/.test(engine) ? engine : `dynamo-${engine}`;
}

/** The frontier concurrencies of `deployment`, widened by one ladder rung each way. */
export function sweepConcurrencies(deployment: string, plan: Plan, ladder: readonly number[]): number[] {
  const on = plan.frontier.filter((p) => p.deployment === deployment).map((p) => p.conc);
  const sorted = [...ladder].sort((a, b) => a - b);
  const lo = sorted.indexOf(Math.min(...on));
  const hi = sorted.indexOf(Math.max(...on));
  const around = [sorted[lo - 1], sorted[hi + 1]].filter((c): c is number => c !== undefined);
  return [...new Set([...on, ...around])].sort((a, b) => a - b);
}

interface Identity {
  image: string;
  model: string;
  'model-prefix': string;
  runner: string;
}

/** The catalog entry that runs this model on this GPU in this precision with this framework, if any. */
function catalogIdentity(
  catalog: ReadonlyMap<string, MasterConfigEntry>,
  plan: Plan,
  framework: string,
  multinode: boolean,
): Identity | undefined {
  const same = (read: () => string, id: string): boolean => {
    try {
      return read() === id;
    } catch {
      return false;
    }
  };
  for (const entry of catalog.values()) {
    if (entry.framework !== framework || entry.precision !== plan.workload.precision || entry.multinode !== multinode) continue;
    if (!same(() => findModel(entry.model).id, plan.workload.model)) continue;
    if (!same(() => findHardware(entry.runner).id, plan.workload.hardware)) continue;
    return { image: entry.image, model: entry.model, 'model-prefix': entry['model-prefix'], runner: entry.runner };
  }
  return undefined;
}

function identity(
  catalog: ReadonlyMap<string, MasterConfigEntry>,
  plan: Plan,
  framework: string,
  multinode: boolean,
  warnings: string[],
): Identity {
  const found = catalogIdentity(catalog, plan, framework, multinode);
  if (found) return found;
  const model = findModel(plan.workload.model);
  warnings.push(
    `no catalog entry runs ${model.id} ${plan.workload.precision} on ${plan.workload.hardware} with ${framework}: its image is a placeholder; set it before running (or pass --catalog with such an entry)`,
  );
  return {
    image: `set-the-${framework}-image`,
    model: model.hfRepo,
    'model-prefix': model.id.replace(/[^A-Za-z0-9._-]/g, '-'),
    runner: plan.workload.hardware,
  };
}

const worker = (count: number, r: TopologyRole): Record<string, unknown> => ({
  'num-worker': count,
  tp: r.tp,
  ep: r.ep,
  'dp-attn': r.dpAttn,
});

function searchRow(d: PlannedDeployment, concs: number[], recipe?: PlannedRecipe): Record<string, unknown> {
  const shape = d.candidate.shape;
  if (shape.kind === 'aggregated') {
    const r = shape.role;
    return { tp: r.tp, ...(r.ep > 1 ? { ep: r.ep } : {}), ...(r.dpAttn ? { 'dp-attn': true } : {}), 'conc-list': concs };
  }
  const settings = recipe ? { 'additional-settings': [`CONFIG_FILE=recipes/${recipe.path}`] } : {};
  return {
    'conc-list': concs,
    prefill: { ...worker(shape.prefillWorkers, shape.prefill), ...settings },
    decode: worker(shape.decodeWorkers, shape.decode),
  };
}

export function emitMasterConfig(
  plan: Plan,
  ladder: readonly number[],
  catalog: ReadonlyMap<string, MasterConfigEntry> = new Map(),
): EmitResult {
  const warnings: string[] = [];
  const { workload } = plan;
  const engine = workload.engine ?? 'vllm';
  const scenario = (rows: Record<string, unknown>[]) => ({
    'fixed-seq-len': [{ isl: workload.isl, osl: workload.osl, 'search-space': rows }],
  });
  const ofKind = (kind: PlannedDeployment['kind']) => plan.deployments.filter((d) => d.kind === kind);
  const concs = (d: PlannedDeployment) => sweepConcurrencies(d.label, plan, ladder);
  const doc: Record<string, unknown> = {};
  const recipes: PlannedRecipe[] = [];
  const aggregated = ofKind('aggregated').map((d) => searchRow(d, concs(d)));
  if (aggregated.length > 0) {
    const id = identity(catalog, plan, engine, false, warnings);
    doc[`${id['model-prefix']}-${workload.precision}-${workload.hardware}-${engine}-planned`] = {
      ...id,
      precision: workload.precision,
      framework: engine,
      multinode: false,
      scenarios: scenario(aggregated),
    };
  }
  const disaggregatedDeployments = ofKind('disaggregated');
  if (disaggregatedDeployments.length > 0) {
    const framework = disaggregatedFramework(engine);
    const id = identity(catalog, plan, framework, true, warnings);
    const disaggregated = disaggregatedDeployments.map((d) => {
      const recipe = plannedRecipe(plan, d, concs(d), framework, id);
      recipes.push(recipe);
      return searchRow(d, concs(d), recipe);
    });
    doc[`${id['model-prefix']}-${workload.precision}-${workload.hardware}-${framework}-planned`] = {
      ...id,
      precision: workload.precision,
      framework,
      'kv-p2p-transfer': 'nixl',
      multinode: true,
      disagg: true,
      scenarios: scenario(disaggregated),
    };
  }
  const header = [
    `# Planned by \`frontier plan\`: the predicted frontier of ${workload.model} ${workload.precision} on ${workload.hardware}, ISL ${workload.isl} / OSL ${workload.osl}.`,
    '# Each search-space row is a frontier deployment with its frontier concurrencies and one rung either side.',
    ...warnings.map((w) => `# TODO: ${w}`),
  ];
  return { yaml: `${header.join('\n')}\n${stringify(doc)}`, warnings, recipes };
}
