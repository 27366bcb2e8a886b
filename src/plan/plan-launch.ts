import { availableParallelism } from 'node:os';
import { JOB_SCRIPT_FRAMEWORKS, gpuFor, modelPath, routeRecipe, rowRouteRequest, runsJobScript } from '../clusters/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import { SyntheticAcceptanceError, adapterFor, launchSeed, sim } from '../engines/index.js';
import type { Deployment, RunVariation } from '../engines/index.js';
import { jobScriptProblems, planJobScript } from './inferencex/job-script-plan.js';
import { RECIPES_DIR, recipeGpus, syntheticKey, workerRoles } from './inferencex/recipe-plan.js';
import type { RecipeBook, RecipePlan } from './inferencex/recipe-plan.js';
import { planScript } from './inferencex/script-plan.js';
import { srtctlApply, srtctlRoot } from './inferencex/srtctl-command.js';
import type { InferencexTree } from './inferencex/tree.js';
import { runsOnSimulator } from '../contract/index.js';
import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import type { GoldenFile } from '../specdec/golden.js';
import { optsIntoSyntheticAcceptance } from '../specdec/synthetic.js';
import { deploymentOf, layoutGpus, recipeOf } from './launches.js';
import type { DeploymentSettings, PlannedLaunch } from './launches.js';
import type { AdapterPlan, CannotRun, LaunchPlan } from './launch-plan.js';
import { PlacementError, nodeName, nodesNeeded, placeWorkers } from './placement.js';

/**
 * `planLaunch`: the one place that decides how a launch runs (see launch-plan.ts). Rows of an
 * InferenceX checkout run its own material: a single-node row its script, a multi-node row its
 * recipe (or srtctl, where the cluster runs recipes with it) or its job script; any other row an
 * engine adapter. Pure but for reading the checkout.
 */

export interface PlanContext {
  cluster: ClusterProfile;
  /** How to run Frontier itself on the nodes (sim engines, stand-ins). */
  frontierCommand: string[];
  /** The eval tasks' answer keys, for simulated engines that serve evals. */
  evalAnswers?: string | undefined;
  tree?: InferencexTree | undefined;
  recipes?: RecipeBook | undefined;
  /** The golden AL curves, for rows that run with synthetic acceptance. */
  golden?: readonly GoldenFile[] | undefined;
  /** `--profile`: run each point under the engine's profiler, as InferenceX's profile.yml does. */
  profile?: boolean | undefined;
}

const cannotRun = (launch: PlannedLaunch, reasons: string[]): CannotRun => ({ kind: 'cannot-run', launch, reasons });

const repeatsWithin = (launch: PlannedLaunch): boolean => launch.points.some((p) => p.repeat?.scope === 'point');

export function planLaunch(launch: PlannedLaunch, ctx: PlanContext): LaunchPlan {
  try {
    const plan = routeOf(launch, ctx);
    if (plan.kind === 'cannot-run') return plan;
    if (ctx.profile && plan.kind !== 'script')
      return cannotRun(launch, [
        `--profile runs the engine's profiler through an InferenceX single-node script (PROFILE=1, as profile.yml does); this launch runs as ${plan.kind === 'adapter' ? "Frontier's engine adapter" : `a ${plan.kind}`}, which does not profile yet`,
      ]);
    return !repeatsWithin(launch) || (plan.kind === 'adapter' && !isMultiNodeRow(launch.rows[0]!))
      ? plan
      : cannotRun(launch, [
          `--repeat-scope point repeats a point within one launch, which only Frontier's own bench loop on a single-node launch does (this launch runs as ${plan.kind === 'adapter' ? 'a multi-node deployment' : `a ${plan.kind}`}): use --repeat-scope launch`,
        ]);
  } catch (e) {
    if (e instanceof SyntheticAcceptanceError) return cannotRun(launch, [e.message]);
    throw e;
  }
}

/** The strategy, chosen here only. */
function routeOf(launch: PlannedLaunch, ctx: PlanContext): LaunchPlan {
  const row = launch.rows[0]!;
  const { tree, recipes, cluster } = ctx;
  if (!tree) return planAdapter(launch, ctx);
  if (!isMultiNodeRow(row)) return planScriptLaunch(launch, tree, ctx);
  // A multi-node agentic row's recipe replays with its own benchmark stage, not yet run here.
  if (isAgenticRow(row)) return planAdapter(launch, ctx);
  // Frameworks InferenceX runs with a job script (whose CONFIG_FILE, if any, is the script's own).
  if (runsJobScript(row)) return planJobScriptLaunch(launch, tree, ctx);
  const config = recipeOf(row);
  if (!recipes || config === undefined) return planAdapter(launch, ctx);
  const recipe = recipes.get(config);
  if (cluster.scheduler === 'slurm' && cluster.srtctl && !cluster.simulate)
    return planSrtctl(launch, config, recipe && !('problem' in recipe) ? recipe : undefined, ctx);
  if (recipe) return planRecipe(launch, recipe, ctx);
  // Not in the checkout: the adapter renders the row, and says so if it cannot.
  const viaAdapter = planAdapter(launch, ctx);
  if (viaAdapter.kind !== 'cannot-run') return viaAdapter;
  const note = `(its recipe ${config} is not in the checkout's ${RECIPES_DIR}: InferenceX takes it from the srt-slurm checkout its launcher clones, which frontier run does not fetch)`;
  return cannotRun(
    launch,
    viaAdapter.reasons.map((p, i) => (i === 0 ? `${p} ${note}` : p)),
  );
}

/** The GPU a launch's engines run on: the one the simulated engine models (the row's runner's) on a simulating cluster, else the cluster's. */
const hardwareOf = (launch: PlannedLaunch, cluster: ClusterProfile): string => gpuFor(cluster, launch.rows[0]!.runner);

/**
 * A launch's deployment, built one way for every kind. Its GPU: the launch's hardware; a script's
 * is its launcher's. `simulated`: its engines are the sim (or stand-ins that run it), which then
 * carry the cluster's run-to-run variation.
 */
function deploymentFor(
  launch: PlannedLaunch,
  ctx: PlanContext,
  simulated: boolean,
  settings: Partial<Pick<DeploymentSettings, 'framework' | 'modelPath' | 'gpu' | 'options'>> = {},
): Deployment {
  const row = launch.rows[0]!;
  const deployment = deploymentOf(launch, {
    golden: ctx.golden,
    framework: settings.framework ?? row.framework,
    modelPath: settings.modelPath ?? row.model,
    gpu: settings.gpu ?? hardwareOf(launch, ctx.cluster),
    options: settings.options ?? {},
    frontierCommand: ctx.frontierCommand,
  });
  const variation = simulated ? runVariationOf(launch, ctx.cluster) : undefined;
  return variation ? { ...deployment, runVariation: variation } : deployment;
}

/**
 * The run-to-run variation a launch's simulated engines draw from (docs/simulator.md): the
 * cluster's CV (`sim: run-variation`) and the launch's seed, a stable hash of the cluster's seed
 * and the launch's id (so launches with distinct ids, repeats among them, draw apart, and a run
 * planned again draws the same). None when the cluster sets no variation.
 */
export function runVariationOf(launch: PlannedLaunch, cluster: ClusterProfile): RunVariation | undefined {
  const cv = cluster.sim.runVariation;
  if (!(cv > 0)) return undefined;
  return { cv, seed: launchSeed(cluster.sim.seed, launch.id) };
}

/** What a run records of its cluster (run.json, the dry-run report): its name, scheduler, and whether its engines are simulated. */
export const clusterSummary = (cluster: ClusterProfile): { name: string; scheduler: string; simulate: boolean } => ({
  name: cluster.name,
  scheduler: cluster.scheduler,
  simulate: cluster.simulate === true,
});

const simulatedNote = (cluster: ClusterProfile): string => (cluster.simulate ? ' (stand-ins: sim)' : '');

/** A single-node row of an InferenceX checkout: the benchmark script its launcher runs. */
function planScriptLaunch(launch: PlannedLaunch, tree: InferencexTree, ctx: PlanContext): LaunchPlan {
  const { cluster } = ctx;
  const row = launch.rows[0] as SingleNodeRow;
  const script = planScript(tree, row, cluster);
  if ('problem' in script) return cannotRun(launch, [script.problem]);
  if (!script.simulated && script.client === 'frontier' && cluster.container.runtime !== 'none')
    return cannotRun(launch, [
      `cluster ${cluster.name}: inferencex-client frontier swaps the client on the host's PATH, which a ${cluster.container.runtime} container does not see; use container runtime none, or inferencex-client inferencex`,
    ]);
  // The script's GPU is its launcher's; no synthetic acceptance: the script injects its own.
  const deployment = deploymentFor(launch, { ...ctx, golden: undefined }, cluster.simulate === true, { gpu: script.rule.gpu });
  const gpus = layoutGpus(deployment.layout);
  if (gpus > cluster.gpusPerNode)
    return cannotRun(launch, [`needs ${gpus} GPUs on one node; cluster ${cluster.name} has ${cluster.gpusPerNode} per node`]);
  // On a simulating cluster the script's engine becomes the sim, which must know the model and GPU.
  if (cluster.simulate) {
    const problems = sim.check({ ...deployment, gpu: script.hardware, options: cluster.engines.sim ?? {} });
    if (problems.length > 0) return cannotRun(launch, problems);
  }
  const engine = `${script.script}${simulatedNote(cluster)}`;
  return {
    kind: 'script',
    launch,
    deployment,
    hardware: script.hardware,
    gpus,
    nodes: 1,
    simulated: cluster.simulate === true,
    engine,
    script: ctx.profile ? { ...script, profile: true } : script,
  };
}

/** A multi-node row whose framework InferenceX runs with a job script: the checkout's script, on a Slurm cluster. */
function planJobScriptLaunch(launch: PlannedLaunch, tree: InferencexTree, ctx: PlanContext): LaunchPlan {
  const { cluster } = ctx;
  const row = launch.rows[0] as MultiNodeRow;
  const jobScript = planJobScript(tree, row, cluster);
  if ('problem' in jobScript) return cannotRun(launch, [jobScript.problem]);
  const deployment = deploymentFor(launch, ctx, cluster.simulate === true);
  const problems = [...jobScriptProblems(jobScript, row, cluster), ...simProblems(deployment, cluster)];
  if (problems.length > 0) return cannotRun(launch, problems);
  return {
    kind: 'job-script',
    launch,
    deployment,
    hardware: jobScript.hardware,
    gpus: layoutGpus(deployment.layout),
    nodes: jobScript.nodes,
    simulated: cluster.simulate === true,
    engine: `${jobScript.script} (submits its own Slurm job)${simulatedNote(cluster)}`,
    jobScript,
  };
}

/** A recipe row on a cluster that runs recipes with srtctl: submitted by srtctl, whether or not the checkout has the recipe. */
function planSrtctl(launch: PlannedLaunch, configFile: string, recipe: RecipePlan | undefined, ctx: PlanContext): LaunchPlan {
  const { cluster } = ctx;
  const srtctl = cluster.srtctl!;
  const row = launch.rows[0] as MultiNodeRow;
  let root: string;
  try {
    root = srtctlRoot(srtctl, cluster, row, configFile);
  } catch (e) {
    return cannotRun(launch, [(e as Error).message]);
  }
  const deployment = deploymentFor(launch, ctx, false, { gpu: cluster.gpu });
  return {
    kind: 'srtctl',
    launch,
    deployment,
    hardware: hardwareOf(launch, cluster),
    gpus: recipe ? recipeGpus(recipe.rendered) : layoutGpus(deployment.layout),
    nodes: recipe ? recipe.rendered.nodes : nodesNeeded(deployment.layout, cluster.gpusPerNode),
    simulated: false,
    engine: `srtctl apply -f ${configFile}`,
    configFile,
    recipe,
    root,
    submit: srtctlApply(configFile, row, srtctl),
  };
}

/** A multi-node row that runs its srt-slurm recipe (srtctl's rendering, started by Frontier): what it needs of the cluster. */
function planRecipe(launch: PlannedLaunch, book: RecipePlan | { problem: string }, ctx: PlanContext): LaunchPlan {
  const { cluster } = ctx;
  const row = launch.rows[0]!;
  if ('problem' in book) return cannotRun(launch, [`${row.framework}: ${book.problem}`]);
  const deployment = deploymentFor(launch, ctx, cluster.simulate === true);
  // Its throughput launch runs the recipe with synthetic acceptance injected, as InferenceX's launcher does.
  const s = optsIntoSyntheticAcceptance(row) ? deployment.syntheticAcceptance : undefined;
  const recipe = s ? book.synthetic?.get(syntheticKey(s)) : book;
  if (!recipe)
    throw new Error(
      `recipe ${book.path}: no injected variant for ${row['exp-name']} (the recipe book was loaded without the golden AL curves)`,
    );
  if ('problem' in recipe) return cannotRun(launch, [`${row.framework}: ${recipe.problem}`]);
  const problems = [...simProblems(deployment, cluster), ...recipeProblems(recipe, row.framework, cluster)];
  if (problems.length > 0) return cannotRun(launch, problems);
  return {
    kind: 'recipe',
    launch,
    deployment,
    hardware: hardwareOf(launch, cluster),
    gpus: recipeGpus(recipe.rendered),
    nodes: recipe.rendered.nodes,
    simulated: cluster.simulate === true,
    engine: `${recipe.configFile}${simulatedNote(cluster)}`,
    recipe,
    // Frontier starts srtctl's infrastructure (etcd, NATS, nginx…) only as stand-ins of the simulated engine.
    ...(cluster.simulate
      ? {}
      : {
          unstartable: `recipe ${recipe.path} runs only on a simulating cluster for now: for real, its processes need what srtctl starts around them (etcd and NATS on the infra node, nginx.conf, TensorRT-LLM's trtllm_config_*.yaml, the model mounted on /model in the recipe's container), which frontier run does not start; give the cluster profile srtctl: { root: <srt-slurm checkout> } to run recipes with srtctl (cluster ${cluster.name} does not simulate)`,
        }),
  };
}

/** What a recipe needs of the cluster: srtctl's allocation of nodes, and (a real cluster) the GPUs per node its roles use. */
function recipeProblems(recipe: RecipePlan, framework: string, cluster: ClusterProfile): string[] {
  const r = recipe.rendered;
  const problems: string[] = [];
  if (r.nodes > cluster.nodes)
    problems.push(
      `${framework}: recipe ${recipe.path} needs ${r.nodes} nodes (srtctl's allocation for its workers and frontends); cluster ${cluster.name} has ${cluster.nodes}`,
    );
  const perNode = Math.max(0, ...workerRoles(r).flatMap((x) => x.gpus.map((gpu) => gpu + 1)));
  // A simulating cluster models the row's own GPU (its runner label), whatever its profile says.
  if (!cluster.simulate && perNode > cluster.gpusPerNode)
    problems.push(
      `${framework}: recipe ${recipe.path} uses ${perNode} GPUs per node; cluster ${cluster.name} has ${cluster.gpusPerNode}`,
    );
  return problems;
}

/** On a simulating cluster, what keeps the sim from standing in for a multi-node row's engines. */
const simProblems = (deployment: Deployment, cluster: ClusterProfile): string[] =>
  cluster.simulate ? sim.check({ ...deployment, options: cluster.engines.sim ?? {} }) : [];

/** Any other row: the engine adapter of its framework (the sim's on a simulating cluster). */
function planAdapter(launch: PlannedLaunch, ctx: PlanContext): AdapterPlan | CannotRun {
  const { cluster } = ctx;
  const row = launch.rows[0]!;
  const simulated = runsOnSimulator(row.framework, cluster.simulate === true);
  const framework = simulated ? 'sim' : row.framework;
  const adapter = framework === 'sim' ? sim : adapterFor(framework);
  if (!adapter) return cannotRun(launch, [noAdapter(row.framework)]);
  const deployment = deploymentFor(launch, ctx, simulated, {
    framework,
    modelPath: modelPath(cluster, row['model-prefix'], row.precision) ?? row.model,
    options: cluster.engines[framework] ?? {},
  });
  // The simulated engine answers evals from the tasks' answer keys (run() writes them when a plan needs them).
  if (framework === 'sim' && launch.evals.length > 0 && ctx.evalAnswers) deployment.evalAnswers = ctx.evalAnswers;
  // A local cluster's nodes are all this machine, where the load generator runs too.
  if (cluster.scheduler === 'local') deployment.hostCores = availableParallelism();
  const problems = adapterProblems(adapter, deployment, framework);
  const nodes = nodesFor(deployment, cluster, problems);
  if (problems.length > 0) return cannotRun(launch, problems);
  const placement = placeWorkers(
    deployment.layout,
    cluster.gpusPerNode,
    Array.from({ length: nodes }, (_, i) => nodeName(i)),
  );
  // What the adapter cannot render (a TensorRT-LLM worker across nodes…) it throws: render it once here.
  try {
    let port = 8000;
    adapter.launch(deployment, placement, { next: () => port++ });
  } catch (e) {
    return cannotRun(launch, [(e as Error).message]);
  }
  const toolchain = cluster.scheduler === 'slurm' ? toolchainOf(launch, cluster) : undefined;
  if (toolchain && 'problem' in toolchain) return cannotRun(launch, [toolchain.problem]);
  return {
    kind: 'adapter',
    launch,
    deployment,
    hardware: hardwareOf(launch, cluster),
    gpus: layoutGpus(deployment.layout),
    nodes,
    simulated,
    engine: framework === 'sim' && row.framework !== 'sim' ? `sim (for ${row.framework})` : framework,
    adapter,
    placement,
    ...(toolchain ? { notes: toolchain.notes } : {}),
  };
}

function adapterProblems(adapter: { check(d: Deployment): string[] }, deployment: Deployment, framework: string): string[] {
  try {
    return adapter.check(deployment);
  } catch (e) {
    return [`${framework}: ${(e as Error).message}`];
  }
}

/** The nodes a deployment needs; what keeps it off the cluster goes into `problems`. */
function nodesFor(deployment: Deployment, cluster: ClusterProfile, problems: string[]): number {
  try {
    const nodes = nodesNeeded(deployment.layout, cluster.gpusPerNode);
    if (nodes > cluster.nodes)
      problems.push(
        `needs ${nodes} nodes of ${cluster.gpusPerNode} GPUs (${layoutGpus(deployment.layout)} GPUs); cluster ${cluster.name} has ${cluster.nodes}`,
      );
    return nodes;
  } catch (e) {
    if (!(e instanceof PlacementError)) throw e;
    problems.push(e.message);
    return 0;
  }
}

/** A recipe row an adapter renders in a Slurm job: the srt-slurm toolchain the cluster routes it to, for the job's notes. */
function toolchainOf(launch: PlannedLaunch, cluster: ClusterProfile): { notes: string[] } | { problem: string } | undefined {
  const row = launch.rows[0]!;
  const recipe = recipeOf(row);
  if (!recipe || !isMultiNodeRow(row)) return undefined;
  const route = routeRecipe(cluster, rowRouteRequest(row, recipe));
  if (!route) return { problem: `cluster ${cluster.name} has no routing rule for recipe ${recipe}: add one to its routing:` };
  return {
    notes: [
      `recipe ${recipe}: toolchain ${route.rule.toolchain.repo} @ ${route.rule.toolchain.commit} (routing rule ${route.index + 1})`,
      ...route.rule.flags.map((f) => `flag ${f.flag}: ${f.reason}`),
    ],
  };
}

function noAdapter(framework: string): string {
  return JOB_SCRIPT_FRAMEWORKS.has(framework)
    ? `no engine adapter for framework "${framework}": InferenceX runs it with a job script of its checkout (benchmarks/multi_node/<model>_<precision>_<gpu>_${framework}*.sh, which submits its own Slurm job); frontier run does the same for the rows of an InferenceX checkout (--inferencex DIR) on a Slurm cluster`
    : `no engine adapter for framework "${framework}"`;
}
