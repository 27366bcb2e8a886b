import { asksForSyntheticAcceptance, optsIntoSyntheticAcceptance } from '../specdec/synthetic.js';
import { SyntheticAcceptanceError } from '../engines/index.js';
import { GOLDEN_DIR, GoldenError, loadGolden } from '../specdec/golden.js';
import type { GoldenFile } from '../specdec/golden.js';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { adapterFor, sim } from '../engines/index.js';
import { collectEvalResults, evalInDir, formatAggJson, maxTokensFor, metaEnvOf } from '../evals/index.js';
import type { Deployment, EngineAdapter } from '../engines/index.js';
import { canaryRow, isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { MatrixRow, MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import { clientOf } from './inferencex/point.js';
import { planScript } from './inferencex/script-plan.js';
import { jobScriptProblems, planJobScript } from './inferencex/job-script.js';
import type { JobScriptPlan } from './inferencex/job-script.js';
import { RECIPES_DIR, recipeGpus, syntheticKey, workerRoles } from './inferencex/recipe-plan.js';
import type { RecipeBook, RecipePlan } from './inferencex/recipe-plan.js';
import type { ScriptPlan } from './inferencex/script-plan.js';
import type { InferencexTree } from './inferencex/tree.js';
import { loads } from '../pycompat/index.js';
import { fsTelemetry, identityFromRow, processResult } from '../results/index.js';
import { POWER_INTERVAL_MS, agenticPower, pointNode, powerSettingsOf, settlePower } from './power.js';
import { JOB_SCRIPT_FRAMEWORKS, gpuFor, modelPath, runsJobScript } from '../clusters/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import { deploymentOf, layoutGpus, logsKeyOf, planRun, recipeOf } from '../plan/launches.js';
import type { PlannedEval, PlannedGroup, PlannedPoint } from '../plan/launches.js';
import { evalOutcome, rowEvalTasks, scoresLine } from './evals.js';
import type { EvalSettings } from './evals.js';
import type { PointOutcome } from './point-outcome.js';
import { stopLeftovers } from './leftovers.js';
import { PlacementError, nodesNeeded, placeWorkers } from '../plan/placement.js';
import { RunDir, RunError, sha256 } from './run-dir.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { finishAgenticPoint } from './agentic.js';
import type { AgenticSettings } from './agentic.js';
import type { EvalRecord, GroupRecord, PointRecord, RunManifest } from './run-dir.js';

/**
 * `frontier run`: execute a matrix on a cluster. Plans the launches, checks each against its
 * engine and the cluster, runs them through the cluster's executor (local processes or Slurm
 * jobs), turns every raw result into its aggregate and keeps the manifest current after every
 * point, so an interrupted run says where it stopped and `resume` picks up from there.
 */

/** Frameworks that run for real even on a simulating cluster (they need no GPU). */
const RUNS_ANYWHERE = new Set(['llama.cpp', 'sim']);

interface PreparedBase {
  planned: PlannedGroup;
  deployment: Deployment;
  gpus: number;
  nodes: number;
}

/**
 * A launch ready to run: rendered by an engine adapter, or (a single-node row of an InferenceX
 * checkout) by the checkout's own benchmark script, or (a multi-node row of one) by the
 * srt-slurm recipe its CONFIG_FILE names, as srtctl renders it, or by the checkout's job script
 * that submits its own Slurm job (frameworks without recipes).
 */
export type PreparedGroup = PreparedBase &
  (
    | { adapter: EngineAdapter; script?: undefined; recipe?: undefined; srtctl?: undefined; jobScript?: undefined }
    | { script: ScriptPlan; adapter?: undefined; recipe?: undefined; srtctl?: undefined; jobScript?: undefined }
    | { recipe: RecipePlan; adapter?: undefined; script?: undefined; srtctl?: undefined; jobScript?: undefined }
    | { srtctl: SrtctlPlan; adapter?: undefined; script?: undefined; recipe?: undefined; jobScript?: undefined }
    | { jobScript: JobScriptPlan; adapter?: undefined; script?: undefined; recipe?: undefined; srtctl?: undefined }
  );

/**
 * A recipe row on a cluster that runs recipes with srtctl: its CONFIG_FILE, and the recipe when
 * the checkout has it (put into srtctl's checkout, its processes shown by a dry run); otherwise
 * the routed srt-slurm checkout has it, as InferenceX's launchers expect.
 */
export interface SrtctlPlan {
  configFile: string;
  recipe: RecipePlan | undefined;
}

export interface Reporter {
  groupStart?(g: PlannedGroup, index: number, total: number): void;
  waiting?(g: PlannedGroup, attempt: number, pending: string[]): void;
  pointStart?(g: PlannedGroup, p: PlannedPoint): void;
  pointProgress?(g: PlannedGroup, p: PlannedPoint, done: number, total: number, tokens: number, elapsedMs: number): void;
  pointDone?(g: PlannedGroup, p: PlannedPoint, record: PointRecord): void;
  groupDone?(g: PlannedGroup, record: GroupRecord): void;
  note?(message: string): void;
}

export interface GroupContext {
  group: PreparedGroup;
  /** The points to run (all of the group's, less those a resumed run already has). */
  points: PlannedPoint[];
  dir: RunDir;
  cluster: ClusterProfile;
  reporter: Reporter;
  signal: AbortSignal;
  record: GroupRecord;
  finishPoint(p: PlannedPoint, outcome: PointOutcome): void;
  /** The corpus and replay settings of agentic-coding points. */
  agentic?: AgenticSettings | undefined;
  /** Persist the manifest (after the group record changed). */
  save(): void;
  /** The launch's pending evals (none without a dataset), run after its points. */
  evals: PlannedEval[];
  evalSettings?: EvalSettings;
  /** Local executors: run the pending evals against the endpoint, writing their folders. */
  evaluate?: (baseUrl: string) => Promise<void>;
  /** Where the run's clock meets the wall clock (epoch ms): a simulated run's times are on it (src/util/virtual-clock.ts). */
  clockAnchorMs: number;
  /** How often the GPU monitor samples power (ms on the run's clock). */
  powerIntervalMs: number;
}

/**
 * Runs one launch: starts the engine, waits until it is ready, benches each point, stops it.
 * `stopLeftovers`, for `--resume`: stop what a killed run's launches left running elsewhere (a
 * scheduler's jobs) and name each; local engines are found from the run directory (leftovers.ts).
 */
export type GroupExecutor = ((ctx: GroupContext) => Promise<void>) & {
  stopLeftovers?: (previous: RunManifest) => Promise<string[]>;
};

export interface RunOptions {
  rows: readonly MatrixRow[];
  matrix: { file: string; text: string };
  cluster: ClusterProfile;
  out: string;
  executor: GroupExecutor;
  frontierVersion: string;
  /** How to run Frontier itself on the nodes (sim engines, job scripts). */
  frontierCommand: string[];
  commit: string | null;
  failFast?: boolean;
  canary?: boolean;
  resume?: boolean;
  reporter?: Reporter;
  signal?: AbortSignal;
  /** The eval tasks of the rows with `run-eval`; without them their evals are not run (and say so). */
  evals?: EvalSettings;
  /** An InferenceX checkout: its single-node rows run through its benchmark scripts. */
  inferencex?: InferencexTree;
  /** Its recipes the multi-node rows name (`loadRecipeBook`): those rows run them. */
  recipes?: RecipeBook;
  /** The trace corpus agentic-coding rows replay; without it they fail and say so. */
  agentic?: AgenticSettings;
  /** InferenceX's REQUIRE_POWER=1: a point whose power is not valid is invalid (its results still written). */
  requirePower?: boolean;
  /** The GPU monitor's sampling interval, ms (default POWER_INTERVAL_MS, once a second as InferenceX's). */
  powerIntervalMs?: number;
  /** Rows not to run this time, and why (`--defer`): their points are recorded as deferred, and `resume` runs them. */
  defer?: { rows: ReadonlySet<MatrixRow>; reason: string };
}

export { RunError };

type Prepared = { prepared?: PreparedGroup; problems: string[] };

/**
 * Resolve a group's engine and deployment; the problems that keep it from running, if any. Rows of
 * an InferenceX checkout run its own material: a single-node row its script, a multi-node row its
 * recipe (or srtctl, where the cluster runs recipes with it); any other row an engine adapter.
 */
export function prepareGroup(
  g: PlannedGroup,
  cluster: ClusterProfile,
  frontierCommand: string[],
  evalAnswers?: string,
  tree?: InferencexTree,
  recipes?: RecipeBook,
  golden?: readonly GoldenFile[],
): Prepared {
  try {
    return prepareFor(g, cluster, frontierCommand, evalAnswers, tree, recipes, golden);
  } catch (e) {
    if (e instanceof SyntheticAcceptanceError) return { problems: [e.message] };
    throw e;
  }
}

function prepareFor(
  g: PlannedGroup,
  cluster: ClusterProfile,
  frontierCommand: string[],
  evalAnswers: string | undefined,
  tree: InferencexTree | undefined,
  recipes: RecipeBook | undefined,
  golden: readonly GoldenFile[] | undefined,
): Prepared {
  const row = g.rows[0]!;
  // Frameworks InferenceX runs with a job script (whose CONFIG_FILE, if any, is the script's own).
  if (tree && isMultiNodeRow(row) && !isAgenticRow(row) && runsJobScript(row))
    return prepareJobScript(g, tree, cluster, frontierCommand, golden);
  if (tree && recipes && isMultiNodeRow(row) && !isAgenticRow(row)) {
    const config = recipeOf(row);
    const plan = config === undefined ? undefined : recipes.get(config);
    if (config !== undefined && cluster.scheduler === 'slurm' && cluster.srtctl && !cluster.simulate)
      return prepareSrtctl(g, config, plan, cluster, frontierCommand, golden);
    if (plan) return prepareRecipe(g, plan, cluster, frontierCommand, golden);
    if (config !== undefined) {
      // Not in the checkout: the adapter renders the row, and says so if it cannot.
      const viaAdapter = prepareAdapter(g, cluster, frontierCommand, evalAnswers, golden);
      if (viaAdapter.prepared) return viaAdapter;
      const note = `(its recipe ${config} is not in the checkout's ${RECIPES_DIR}: InferenceX takes it from the srt-slurm checkout its launcher clones, which frontier run does not fetch)`;
      return { problems: viaAdapter.problems.map((p, i) => (i === 0 ? `${p} ${note}` : p)) };
    }
  }
  if (tree && !isMultiNodeRow(row) && !isAgenticRow(row)) return prepareScript(g, tree, cluster, frontierCommand);
  return prepareAdapter(g, cluster, frontierCommand, evalAnswers, golden);
}

/** A single-node row of an InferenceX checkout: the benchmark script its launcher runs. */
function prepareScript(g: PlannedGroup, tree: InferencexTree, cluster: ClusterProfile, frontierCommand: string[]): Prepared {
  const row = g.rows[0] as SingleNodeRow;
  const plan = planScript(tree, row, cluster);
  if ('problem' in plan) return { problems: [plan.problem] };
  if (!cluster.simulate && clientOf(cluster) === 'frontier' && cluster.container.runtime !== 'none')
    return {
      problems: [
        `cluster ${cluster.name}: inferencex-client frontier swaps the client on the host's PATH, which a ${cluster.container.runtime} container does not see; use container runtime none, or inferencex-client inferencex`,
      ],
    };
  const deployment = deploymentOf(g, {
    framework: row.framework,
    modelPath: row.model,
    gpu: plan.rule.gpu,
    options: {},
    frontierCommand,
  });
  const gpus = layoutGpus(deployment.layout);
  if (gpus > cluster.gpusPerNode)
    return { problems: [`needs ${gpus} GPUs on one node; cluster ${cluster.name} has ${cluster.gpusPerNode} per node`] };
  // On a simulating cluster the script's engine becomes the sim, which must know the model and GPU.
  if (cluster.simulate) {
    const problems = sim.check({ ...deployment, gpu: gpuFor(cluster, row.runner), options: cluster.engines.sim ?? {} });
    if (problems.length > 0) return { problems };
  }
  return { prepared: { planned: g, deployment, gpus, nodes: 1, script: plan }, problems: [] };
}

/** A multi-node row whose framework InferenceX runs with a job script: the checkout's script, on a Slurm cluster. */
function prepareJobScript(
  g: PlannedGroup,
  tree: InferencexTree,
  cluster: ClusterProfile,
  frontierCommand: string[],
  golden: readonly GoldenFile[] | undefined,
): Prepared {
  const row = g.rows[0] as MultiNodeRow;
  const plan = planJobScript(tree, row, cluster);
  if ('problem' in plan) return { problems: [plan.problem] };
  const { deployment, problems } = multiNodeDeployment(g, cluster, frontierCommand, golden);
  problems.unshift(...jobScriptProblems(plan, row, cluster));
  if (problems.length > 0) return { problems };
  return {
    prepared: { planned: g, deployment, gpus: layoutGpus(deployment.layout), nodes: plan.nodes, jobScript: plan },
    problems,
  };
}

/** A recipe row on a cluster that runs recipes with srtctl: submitted by srtctl, whether or not the checkout has the recipe. */
function prepareSrtctl(
  g: PlannedGroup,
  configFile: string,
  plan: RecipePlan | { problem: string } | undefined,
  cluster: ClusterProfile,
  frontierCommand: string[],
  golden: readonly GoldenFile[] | undefined,
): Prepared {
  const row = g.rows[0]!;
  const deployment = deploymentOf(g, {
    golden,
    framework: row.framework,
    modelPath: row.model,
    gpu: cluster.gpu,
    options: {},
    frontierCommand,
  });
  const recipe = plan && !('problem' in plan) ? plan : undefined;
  return {
    prepared: {
      planned: g,
      deployment,
      gpus: recipe ? recipeGpus(recipe.rendered) : layoutGpus(deployment.layout),
      nodes: recipe ? recipe.rendered.nodes : nodesNeeded(deployment.layout, cluster.gpusPerNode),
      srtctl: { configFile, recipe },
    },
    problems: [],
  };
}

/** Any other row: the engine adapter of its framework (the sim's on a simulating cluster). */
function prepareAdapter(
  g: PlannedGroup,
  cluster: ClusterProfile,
  frontierCommand: string[],
  evalAnswers: string | undefined,
  golden: readonly GoldenFile[] | undefined,
): Prepared {
  const row = g.rows[0]!;
  const framework = cluster.simulate && !RUNS_ANYWHERE.has(row.framework) ? 'sim' : row.framework;
  const adapter = framework === 'sim' ? sim : adapterFor(framework);
  if (!adapter) return { problems: [noAdapter(row.framework)] };
  const deployment = deploymentOf(g, {
    golden,
    framework,
    modelPath: modelPath(cluster, row['model-prefix'], row.precision) ?? row.model,
    gpu: gpuFor(cluster, row.runner),
    options: cluster.engines[framework] ?? {},
    frontierCommand,
  });
  if (g.evals.length > 0 && evalAnswers) deployment.evalAnswers = evalAnswers;
  // A local cluster's nodes are all this machine, where the load generator runs too.
  if (cluster.scheduler === 'local') deployment.hostCores = availableParallelism();
  let problems: string[];
  try {
    problems = adapter.check(deployment);
  } catch (e) {
    problems = [`${framework}: ${(e as Error).message}`];
  }
  let nodes = 0;
  try {
    nodes = nodesNeeded(deployment.layout, cluster.gpusPerNode);
    if (nodes > cluster.nodes)
      problems.push(
        `needs ${nodes} nodes of ${cluster.gpusPerNode} GPUs (${layoutGpus(deployment.layout)} GPUs); cluster ${cluster.name} has ${cluster.nodes}`,
      );
  } catch (e) {
    if (!(e instanceof PlacementError)) throw e;
    problems.push(e.message);
  }
  if (problems.length > 0) return { problems };
  // What the adapter cannot render (a TensorRT-LLM worker across nodes…) it throws at launch: render it once here.
  try {
    const hosts = Array.from({ length: nodes }, (_, i) => `node${i}`);
    let port = 8000;
    adapter.launch(deployment, placeWorkers(deployment.layout, cluster.gpusPerNode, hosts), { next: () => port++ });
  } catch (e) {
    return { problems: [(e as Error).message] };
  }
  return { prepared: { planned: g, adapter, deployment, gpus: layoutGpus(deployment.layout), nodes }, problems };
}

function noAdapter(framework: string): string {
  return JOB_SCRIPT_FRAMEWORKS.has(framework)
    ? `no engine adapter for framework "${framework}": InferenceX runs it with a job script of its checkout (benchmarks/multi_node/<model>_<precision>_<gpu>_${framework}*.sh, which submits its own Slurm job); frontier run does the same for the rows of an InferenceX checkout (--inferencex DIR) on a Slurm cluster`
    : `no engine adapter for framework "${framework}"`;
}

/** A multi-node row that runs its srt-slurm recipe: what it needs of the cluster. */
function prepareRecipe(
  g: PlannedGroup,
  plan: RecipePlan | { problem: string },
  cluster: ClusterProfile,
  frontierCommand: string[],
  golden: readonly GoldenFile[] | undefined,
): Prepared {
  const row = g.rows[0]!;
  if ('problem' in plan) return { problems: [`${row.framework}: ${plan.problem}`] };
  const { deployment, problems } = multiNodeDeployment(g, cluster, frontierCommand, golden);
  // Its throughput launch runs the recipe with synthetic acceptance injected, as InferenceX's launcher does.
  const s = optsIntoSyntheticAcceptance(row) ? deployment.syntheticAcceptance : undefined;
  const injected = s ? plan.synthetic?.get(syntheticKey(s)) : plan;
  if (!injected)
    throw new Error(
      `recipe ${plan.path}: no injected variant for ${row['exp-name']} (the recipe book was loaded without the golden AL curves)`,
    );
  if ('problem' in injected) return { problems: [`${row.framework}: ${injected.problem}`] };
  const recipe = injected;
  const r = recipe.rendered;
  if (r.nodes > cluster.nodes)
    problems.push(
      `${row.framework}: recipe ${plan.path} needs ${r.nodes} nodes (srtctl's allocation for its workers and frontends); cluster ${cluster.name} has ${cluster.nodes}`,
    );
  const perNode = Math.max(0, ...workerRoles(r).flatMap((x) => x.gpus.map((gpu) => gpu + 1)));
  // A simulating cluster models the row's own GPU (its runner label), whatever its profile says.
  if (!cluster.simulate && perNode > cluster.gpusPerNode)
    problems.push(
      `${row.framework}: recipe ${plan.path} uses ${perNode} GPUs per node; cluster ${cluster.name} has ${cluster.gpusPerNode}`,
    );
  if (problems.length > 0) return { problems };
  return { prepared: { planned: g, deployment, gpus: recipeGpus(r), nodes: r.nodes, recipe }, problems };
}

/**
 * The deployment of a multi-node row that InferenceX's own material runs (a recipe, a job script),
 * and, on a simulating cluster, what keeps the sim from standing in for its engines.
 */
function multiNodeDeployment(
  g: PlannedGroup,
  cluster: ClusterProfile,
  frontierCommand: string[],
  golden: readonly GoldenFile[] | undefined,
): { deployment: Deployment; problems: string[] } {
  const row = g.rows[0]!;
  const deployment = deploymentOf(g, {
    golden,
    framework: row.framework,
    modelPath: row.model,
    gpu: gpuFor(cluster, row.runner),
    options: {},
    frontierCommand,
  });
  const problems = cluster.simulate ? sim.check({ ...deployment, options: cluster.engines.sim ?? {} }) : [];
  return { deployment, problems };
}

/** What runs a launch, for people: the script, the recipe, srtctl, or the engine. */
export function engineLabel(ready: PreparedGroup, cluster: ClusterProfile): string {
  const simulated = cluster.simulate ? ' (stand-ins: sim)' : '';
  if (ready.script) return `${ready.script.script}${simulated}`;
  if (ready.recipe) return `${ready.recipe.configFile}${simulated}`;
  if (ready.srtctl) return `srtctl apply -f ${ready.srtctl.configFile}`;
  if (ready.jobScript) return `${ready.jobScript.script} (submits its own Slurm job)${simulated}`;
  const framework = ready.planned.rows[0]!.framework;
  return ready.adapter === sim && framework !== 'sim' ? `sim (for ${framework})` : ready.deployment.framework;
}

const now = (): string => new Date().toISOString();

/** The golden AL curves a run injects: the InferenceX checkout's, else the working directory's or the built-in copy. */
export async function goldenFor(tree: InferencexTree | undefined): Promise<GoldenFile[]> {
  const own = tree && join(tree.root, GOLDEN_DIR);
  try {
    return (await loadGolden(own && existsSync(own) ? own : undefined)).files;
  } catch (e) {
    if (e instanceof GoldenError) throw new RunError(e.message);
    throw e;
  }
}

export async function run(o: RunOptions): Promise<{ manifest: RunManifest; dir: RunDir }> {
  const reporter = o.reporter ?? {};
  const signal = o.signal ?? new AbortController().signal;
  const dir = new RunDir(o.out);
  if (!o.resume && existsSync(dir.manifestFile))
    throw new RunError(`${dir.manifestFile} exists: pass --resume to continue that run, or choose another --out`);
  const previous = o.resume ? dir.readManifest() : undefined;
  if (previous && previous.matrix.sha256 !== sha256(o.matrix.text))
    throw new RunError(`--resume: ${dir.manifestFile} is a run of another matrix (its sha256 differs); use a new --out`);
  if (previous) {
    const left = [...(await stopLeftovers(dir.enginesFile)), ...((await o.executor.stopLeftovers?.(previous)) ?? [])];
    for (const what of left) reporter.note?.(`--resume: stopped ${what}, left running by the previous run`);
  }

  const groups = planRun(o.rows, o.cluster.name);
  const golden = o.rows.some(asksForSyntheticAcceptance) ? await goldenFor(o.inferencex) : undefined;
  const clockAnchorMs = Date.now();
  const manifest: RunManifest = {
    version: 1,
    frontier: o.frontierVersion,
    matrix: { file: o.matrix.file, sha256: sha256(o.matrix.text), rows: o.rows.length },
    cluster: { name: o.cluster.name, scheduler: o.cluster.scheduler, simulate: o.cluster.simulate },
    commit: o.commit,
    started: previous?.started ?? now(),
    ended: null,
    status: 'running',
    groups: [],
    points: [],
    evals: [],
  };
  const oldPoints = new Map(previous?.points.map((p) => [p.resultFilename, p]));
  const rowIndex = new Map(o.rows.map((r, i) => [r, i]));
  const pointRecords = new Map<string, PointRecord>();
  const duplicates = new Set<string>();
  for (const g of groups) {
    for (const p of g.points) {
      if (pointRecords.has(p.resultFilename)) duplicates.add(p.resultFilename);
      const deferred = o.defer?.rows.has(p.row) === true;
      const record: PointRecord =
        oldPoints.get(p.resultFilename)?.status === 'ok'
          ? oldPoints.get(p.resultFilename)!
          : {
              resultFilename: p.resultFilename,
              group: g.id,
              conc: p.conc,
              runner: p.row.runner,
              row: rowIndex.get(p.row)!,
              status: deferred ? 'deferred' : 'pending',
              ...(deferred ? { reason: o.defer!.reason } : {}),
              ...(isAgenticRow(p.row) ? { agentic: true as const } : {}),
            };
      record.group = g.id;
      pointRecords.set(p.resultFilename, record);
      manifest.points.push(record);
    }
  }
  const save = (): void => dir.writeManifest(manifest);
  const evalRecords = new Map<string, EvalRecord>();
  if (duplicates.size > 0)
    throw new RunError(
      `rows that differ only in what RESULT_FILENAME leaves out (model, image…) would overwrite each other's results: ${[...duplicates].join(', ')}; give them distinct exp-names, or run them separately`,
    );

  const prepared: { g: PlannedGroup; record: GroupRecord; ready?: PreparedGroup }[] = groups.map((g) => {
    const record: GroupRecord = { id: g.id, label: g.label, engine: g.rows[0]!.framework, status: 'pending' };
    manifest.groups.push(record);
    if (g.points.every((p) => pointRecords.get(p.resultFilename)!.status === 'deferred')) {
      Object.assign(record, { status: 'deferred', reason: o.defer!.reason });
      return { g, record };
    }
    if (isAgenticRow(g.rows[0]!) && !o.agentic) {
      record.status = 'failed';
      record.error = 'an agentic-coding row replays a trace corpus: pass --traces FILE (frontier traces synth makes one)';
      for (const p of g.points) Object.assign(pointRecords.get(p.resultFilename)!, { status: 'failed', error: record.error });
      return { g, record };
    }
    for (const e of g.evals) {
      const old = previous?.evals?.find((x) => x.dir === e.dir);
      const record: EvalRecord =
        old && (old.status === 'passed' || old.status === 'failed')
          ? old
          : { group: g.id, dir: e.dir, concs: e.concs, tasks: rowEvalTasks(e.row), status: 'pending' };
      record.group = g.id;
      manifest.evals.push(record);
      evalRecords.set(e.dir, record);
    }
    const { prepared: ready, problems } = prepareGroup(
      g,
      o.cluster,
      o.frontierCommand,
      o.evals?.answersFile,
      o.inferencex,
      o.recipes,
      golden,
    );
    if (!ready) {
      record.status = 'failed';
      record.error = problems.join('; ');
      for (const p of g.points) Object.assign(pointRecords.get(p.resultFilename)!, { status: 'failed', error: record.error });
      return { g, record };
    }
    record.engine = engineLabel(ready, o.cluster);
    return { g, record, ready };
  });
  save();

  const requirePower = o.requirePower ?? false;

  const finishPoint = (p: PlannedPoint, outcome: PointOutcome): void => {
    const record = pointRecords.get(p.resultFilename)!;
    record.ended = now();
    if (outcome.status === 'failed') {
      record.status = 'failed';
      record.error = outcome.error;
    } else if ('agentic' in outcome) {
      const { problems, summary } = finishAgenticPoint(dir, p, outcome.logDir, outcome.problems);
      Object.assign(record, summary);
      if (problems.length === 0) {
        const verdict = agenticPower(dir, p, requirePower, pointNode(o.cluster, p));
        settlePower(record, verdict, requirePower);
      } else {
        record.status = 'invalid';
        record.error = problems.join('; ');
      }
    } else if (isAgenticRow(p.row)) {
      record.status = 'failed';
      record.error = 'the executor measured an agentic-coding point as a fixed-length one';
    } else {
      dir.writeRaw(p.resultFilename, outcome.raw);
      if (outcome.status === 'ok') {
        // The power step reads the telemetry from the run directory, as process_result.py from its workspace.
        const processed = processResult(
          loads(outcome.raw),
          identityFromRow(p.row, { runner: p.row.runner, resultFilename: p.resultFilename }),
          { settings: powerSettingsOf(outcome.telemetry, requirePower, pointNode(o.cluster, p)), files: fsTelemetry(dir.root) },
        );
        dir.writeAggWithPower(p.resultFilename, processed.aggJson, processed.powerValidationFile, processed.powerValidationJson);
        record.outputTputPerGpu = Number(processed.agg.output_tput_per_gpu);
        record.interactivity = Number(processed.agg.median_intvty);
        record.medianTtftMs = Number(processed.agg.median_ttft) * 1000;
        settlePower(record, processed.powerValidation, requirePower);
      } else {
        record.status = 'invalid';
        record.error = outcome.problems.join('; ');
      }
    }
    save();
  };

  /** The row's tasks at each eval's concurrencies against the launch's endpoint (local runs; a job script runs it itself). */
  const evaluate = async (ready: PreparedGroup, evals: PlannedEval[], settings: EvalSettings, baseUrl: string): Promise<void> => {
    const d = ready.deployment;
    for (const e of evals) {
      if (signal.aborted) return;
      const names = rowEvalTasks(e.row);
      reporter.note?.(`  eval ${names.join(', ')} at conc ${e.concs.join(', ')}`);
      await evalInDir({
        dir: join(dir.root, e.dir),
        baseUrl,
        model: d.servedModelName,
        endpoint: 'chat',
        tasks: names.map((n) => settings.tasks.get(n)!),
        limit: settings.limit,
        concurrencies: e.concs,
        maxTokens: maxTokensFor(d.maxModelLen),
        maxLength: d.maxModelLen,
        timeoutMs: settings.timeoutMs ?? 1_800_000,
        maxRetries: settings.maxRetries ?? 5,
        backoffMs: settings.backoffMs ?? 1000,
        resume: true,
        frontierVersion: o.frontierVersion,
        meta: (m) => metaEnvOf(e.row, { hw: e.row.runner, ...m }),
        signal,
      });
    }
  };

  /** An eval's record from its folder, once the executor is done with the launch. */
  const recordEval = (e: PlannedEval, launchError: string | undefined): void => {
    const record = evalRecords.get(e.dir)!;
    if (!o.evals)
      Object.assign(record, { status: 'error', error: 'no eval data: pass --eval-data DIR (GSM8K: or set FRONTIER_GSM8K)' });
    else {
      const outcome = evalOutcome(join(dir.root, e.dir), e.concs, o.evals.thresholdsFile);
      Object.assign(record, outcome.status === 'error' && launchError ? { ...outcome, error: launchError } : outcome);
    }
    const scores = scoresLine(record.scores ?? []);
    reporter.note?.(`  eval ${record.status}${scores ? `: ${scores}` : ''}`);
  };

  let stopReason: 'failed' | 'interrupted' | undefined;
  const runGroup = async (item: (typeof prepared)[number], only?: PlannedPoint[]): Promise<boolean> => {
    const { g, record, ready } = item;
    if (!ready) return false;
    const points = (only ?? g.points).filter((p) => !['ok', 'deferred'].includes(pointRecords.get(p.resultFilename)!.status));
    const evals = only
      ? []
      : g.evals.filter((e) => evalRecords.get(e.dir)!.status !== 'passed' && evalRecords.get(e.dir)!.status !== 'failed');
    if (points.length === 0 && evals.length === 0) {
      record.status = 'done';
      return true;
    }
    record.status = 'running';
    record.logs = `server_logs_${logsKeyOf(g, points)}`;
    save();
    try {
      await o.executor({
        group: ready,
        points,
        dir,
        cluster: o.cluster,
        reporter,
        signal,
        record,
        finishPoint: (p, outcome) => {
          finishPoint(p, outcome);
          reporter.pointDone?.(g, p, pointRecords.get(p.resultFilename)!);
        },
        save,
        agentic: o.agentic,
        clockAnchorMs,
        powerIntervalMs: o.powerIntervalMs ?? POWER_INTERVAL_MS,
        evals: o.evals ? evals : [],
        ...(o.evals && evals.length > 0
          ? { evalSettings: o.evals, evaluate: (baseUrl: string) => evaluate(ready, evals, o.evals!, baseUrl) }
          : {}),
      });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      record.error = error;
      for (const p of points) {
        const r = pointRecords.get(p.resultFilename)!;
        if (r.status === 'pending') Object.assign(r, { status: 'failed', error });
      }
    }
    if (!signal.aborted) for (const e of evals) recordEval(e, record.error);
    const ok =
      points.every((p) => pointRecords.get(p.resultFilename)!.status === 'ok') &&
      evals.every((e) => evalRecords.get(e.dir)!.status === 'passed');
    if (record.status === 'running') record.status = ok ? 'done' : 'failed';
    save();
    reporter.groupDone?.(g, record);
    return ok;
  };

  const order = [...prepared];
  if (o.canary) {
    // InferenceX's canary first (the lowest-concurrency single-node throughput row): a cheap check that the setup works.
    const points = order.filter((x) => x.ready).flatMap((x) => x.g.points.map((p) => ({ x, p })));
    const canary = canaryRow(points.map(({ p }) => p.row));
    const first = points.find(({ p }) => p.row === canary);
    if (!first) reporter.note?.('canary: none (no single-node throughput row): the run starts at once');
    if (first) {
      reporter.note?.(`canary: ${first.x.g.label} at conc ${first.p.conc}`);
      const ok = await runGroup(first.x, [first.p]);
      if (signal.aborted) stopReason = 'interrupted';
      else if (!ok) {
        stopReason = 'failed';
        reporter.note?.('canary failed: stopping the run');
      }
    }
  }
  let index = 0;
  for (const item of order) {
    index++;
    if (stopReason) break;
    if (!item.ready) {
      reporter.groupStart?.(item.g, index, order.length);
      reporter.groupDone?.(item.g, item.record);
      if (o.failFast && item.record.status === 'failed') stopReason = 'failed';
      continue;
    }
    reporter.groupStart?.(item.g, index, order.length);
    const ok = await runGroup(item);
    if (signal.aborted) stopReason = 'interrupted';
    else if (!ok && o.failFast) stopReason = 'failed';
  }

  manifest.ended = now();
  const ran = manifest.points.filter((p) => p.status !== 'deferred');
  const incomplete =
    ran.some((p) => p.status !== 'ok') ||
    manifest.groups.some((g) => g.status === 'failed') ||
    manifest.evals.some((e) => e.status !== 'passed');
  manifest.status =
    stopReason === 'interrupted'
      ? 'interrupted'
      : incomplete
        ? 'failed'
        : ran.length < manifest.points.length
          ? 'partial'
          : 'completed';
  save();
  dir.writeRunResults(manifest);
  if (manifest.evals.some((e) => e.scores))
    writeFileAtomic(join(dir.root, 'agg_eval_all.json'), formatAggJson(collectEvalResults(dir.root)), { mkdir: true });
  return { manifest, dir };
}
