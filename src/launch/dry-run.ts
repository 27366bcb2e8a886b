import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterProfile } from '../clusters/index.js';
import { renderLaunchScript } from '../engines/index.js';
import type { Deployment, Launch, Placement } from '../engines/index.js';
import { isAgenticRow } from '../matrix/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../matrix/index.js';
import { logsKeyOf } from '../plan/launches.js';
import type { PlannedLaunch, PlannedPoint } from '../plan/launches.js';
import { unhandledKind } from '../plan/launch-plan.js';
import type {
  AdapterPlan,
  JobScriptLaunchPlan,
  LaunchPlan,
  RecipeLaunchPlan,
  ScriptLaunchPlan,
  SrtctlLaunchPlan,
} from '../plan/launch-plan.js';
import { onHosts } from '../plan/placement.js';
import { clusterSummary } from '../plan/plan-launch.js';
import { limiter } from '../util/limiter.js';
import { agenticPointOf, replayArgsOf } from './agentic.js';
import type { AgenticSettings } from './agentic.js';
import { recordJobScript } from './inferencex/job-script.js';
import type { RecordedJobScript } from './inferencex/job-script.js';
import { leaders, resolveRoles, roleNames } from '../plan/inferencex/recipe-plan.js';
import type { RecipePlan } from '../plan/inferencex/recipe-plan.js';
import { recordPoint } from './inferencex/script-record.js';
import type { RecordedScript } from './inferencex/script-record.js';
import { RunDir } from './run-dir.js';
import { jobFor } from './slurm-job.js';

/**
 * `frontier run --dry-run`: each launch's plan (plan/launch-plan.ts) and what it would start,
 * nothing started. Scripts of an InferenceX checkout are run against recording stand-ins to show
 * the processes they start; adapters' and recipes' processes are rendered as a run renders them.
 * The JSON form is this report (schema in docs/running.md); the text form renders the same objects.
 */

/** Bumped when a field changes meaning or goes away; new fields do not bump it. */
export const DRY_RUN_VERSION = 1;

export interface DryRunReport {
  version: typeof DRY_RUN_VERSION;
  cluster: string;
  scheduler: string;
  simulate: boolean;
  launches: DryRunLaunch[];
}

export interface DryRunProcess {
  name?: string;
  role?: string;
  host?: string;
  gpus?: number[];
  argv: string[];
  env: Record<string, string>;
}

export interface DryRunRecipeProcess extends DryRunProcess {
  name: string;
  role: string;
  index: number;
  /** Allocation nodes the process spans (its srun), and its GPUs on each. */
  nodes: number[];
  host: string;
  gpus: number[];
  /** The first process of its endpoint (the others join it). */
  leader: boolean;
}

export interface DryRunLaunch {
  id: string;
  /** The launch's id under its former name (kept for readers of version 1). */
  group: string;
  kind: LaunchPlan['kind'];
  label: string;
  /** The runner label of its rows. */
  runner: string;
  concs: number[];
  status: 'ready' | 'cannot run';
  reasons?: string[];
  gpus?: number;
  nodes?: number;
  engine?: string;
  simulated?: boolean;
  /** The GPU its engines run on (the simulated one on a simulating cluster). */
  hardware?: string;
  deployment?: Deployment;
  /** An adapter's launch: its workers on the plan's nodes (`node0`…). */
  placement?: Placement;
  notes?: string[];
  /** An InferenceX row: the script, the runner it stands on, and per point what the script starts. */
  script?: {
    path: string;
    runner: string;
    launcher: string;
    points: { conc: number; resultFilename: string; env: Record<string, string>; processes: DryRunProcess[]; problem?: string }[];
  };
  /** An adapter's launch: its processes as they start, and the script (local) or sbatch job (Slurm) that starts them. */
  processes?: DryRunProcess[];
  launchScript?: string;
  /** A local agentic launch: the replay of each point (frontier's arguments). */
  replays?: { conc: number; argv: string[] }[];
  /** A multi-node row of an InferenceX checkout run by its job script: the job it submits (sbatch's argv and environment). */
  jobScript?: {
    path: string;
    runner: string;
    launcher: string;
    /** `printed`: it submits a job and prints its id; otherwise it allocates its nodes and runs its steps itself. */
    job: string;
    env: Record<string, string>;
    jobs: { argv: string[]; env: Record<string, string> }[];
    problem?: string;
  };
  /** A multi-node row of an InferenceX checkout: its srt-slurm recipe, every process as srtctl starts it. */
  recipe?: {
    configFile: string;
    /** The recipe in the checkout (absent: srtctl's checkout has it). */
    path?: string;
    selector?: string;
    name?: string;
    nodes?: number;
    processes: DryRunRecipeProcess[];
    /** On a cluster that runs recipes with srtctl: the command that submits it, and the checkout it runs in (as the profile names it). */
    submit?: string[];
    submitIn?: string;
  };
}

export interface DryRunOptions {
  cluster: ClusterProfile;
  out: string;
  basePort: number;
  frontierCommand: string[];
  agentic?: AgenticSettings | undefined;
}

/** What each planned launch would start. */
export async function dryRun(plans: readonly LaunchPlan[], o: DryRunOptions): Promise<DryRunReport> {
  const work = mkdtempSync(join(tmpdir(), 'frontier-dry-run-'));
  const recordings = new Recordings(work, o);
  for (const plan of plans) recordings.start(plan);
  try {
    const launches: DryRunLaunch[] = [];
    for (const plan of plans) launches.push(await launchOf(plan, o, recordings));
    const { name, scheduler, simulate } = clusterSummary(o.cluster);
    return { version: DRY_RUN_VERSION, cluster: name, scheduler, simulate, launches };
  } finally {
    await recordings.settled();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Scripts recorded a few at a time, ahead of the report that waits for each in order. */
class Recordings {
  private readonly points = new Map<string, Promise<RecordedScript>>();
  private readonly jobs = new Map<string, Promise<RecordedJobScript>>();
  private readonly pool = limiter(Math.max(2, availableParallelism()));

  constructor(
    private readonly work: string,
    private readonly o: DryRunOptions,
  ) {}

  /** Start recording what the plan's scripts would start: each point's script, or the launch's job script. */
  start(plan: LaunchPlan): void {
    const { cluster, frontierCommand } = this.o;
    const id = plan.launch.id;
    switch (plan.kind) {
      case 'script':
        for (const p of plan.launch.points) {
          const work = join(this.work, id, p.resultFilename);
          const row = p.row as SingleNodeRow;
          this.points.set(
            `${id} ${p.resultFilename}`,
            this.pool(() => recordPoint(plan.script, row, p.resultFilename, cluster, work, frontierCommand)),
          );
        }
        return;
      case 'job-script': {
        const row = plan.launch.rows[0] as MultiNodeRow;
        this.jobs.set(
          id,
          this.pool(() =>
            recordJobScript(plan.jobScript, row, cluster, join(this.work, id), frontierCommand, plan.deployment.runVariation),
          ),
        );
        return;
      }
      default:
        // The other kinds' processes are rendered, not recorded.
        return;
    }
  }

  point = (launch: PlannedLaunch, p: PlannedPoint): Promise<RecordedScript> =>
    this.points.get(`${launch.id} ${p.resultFilename}`)!;
  job = (launch: PlannedLaunch): Promise<RecordedJobScript> => this.jobs.get(launch.id)!;

  async settled(): Promise<void> {
    await Promise.allSettled([...this.points.values(), ...this.jobs.values()]);
  }
}

async function launchOf(plan: LaunchPlan, o: DryRunOptions, recordings: Recordings): Promise<DryRunLaunch> {
  const launch = plan.launch;
  const head = {
    id: launch.id,
    group: launch.id,
    kind: plan.kind,
    label: launch.label,
    runner: launch.rows[0]!.runner,
    concs: launch.points.map((p) => p.conc),
  };
  if (plan.kind === 'cannot-run') return { ...head, status: 'cannot run', reasons: plan.reasons };
  const ready = {
    ...head,
    status: 'ready' as const,
    gpus: plan.gpus,
    nodes: plan.nodes,
    engine: plan.engine,
    simulated: plan.simulated,
    hardware: plan.hardware,
    deployment: plan.deployment,
  };
  switch (plan.kind) {
    case 'adapter':
      return { ...ready, ...adapterDetails(plan, o) };
    case 'script':
      return { ...ready, script: await scriptDetails(plan, recordings) };
    case 'job-script':
      return { ...ready, jobScript: await jobScriptDetails(plan, recordings) };
    case 'recipe':
    case 'srtctl':
      return { ...ready, recipe: recipeDetails(plan, o) };
    default:
      return unhandledKind(plan);
  }
}

async function scriptDetails(plan: ScriptLaunchPlan, recordings: Recordings): Promise<NonNullable<DryRunLaunch['script']>> {
  const points = [];
  for (const p of plan.launch.points) {
    const recorded = await recordings.point(plan.launch, p);
    points.push({
      conc: p.conc,
      resultFilename: p.resultFilename,
      env: recorded.contract,
      processes: recorded.processes.map((x) => ({ argv: x.argv, env: x.env })),
      ...(recorded.problem ? { problem: recorded.problem } : {}),
    });
  }
  return { path: plan.script.script, runner: plan.script.runnerName, launcher: plan.script.launcher, points };
}

async function jobScriptDetails(
  plan: JobScriptLaunchPlan,
  recordings: Recordings,
): Promise<NonNullable<DryRunLaunch['jobScript']>> {
  const recorded = await recordings.job(plan.launch);
  const { jobScript } = plan;
  return {
    path: jobScript.script,
    runner: jobScript.runnerName,
    launcher: jobScript.launcher,
    job: jobScript.rule.job,
    env: recorded.contract,
    jobs: recorded.jobs,
    ...(recorded.problem ? { problem: recorded.problem } : {}),
  };
}

function recipeDetails(plan: RecipeLaunchPlan | SrtctlLaunchPlan, o: DryRunOptions): NonNullable<DryRunLaunch['recipe']> {
  const recipe = plan.recipe;
  const configFile = plan.kind === 'srtctl' ? plan.configFile : plan.recipe.configFile;
  return {
    configFile,
    ...(recipe
      ? {
          path: recipe.path,
          ...(recipe.selector !== undefined ? { selector: recipe.selector } : {}),
          name: recipe.rendered.name,
          nodes: recipe.rendered.nodes,
        }
      : {}),
    processes: recipe ? recipeProcesses(recipe, o.cluster, new RunDir(o.out).serverLogs(logsKeyOf(plan.launch))) : [],
    ...(plan.kind === 'srtctl' ? { submit: plan.submit, submitIn: o.cluster.srtctl!.root } : {}),
  };
}

/** A recipe launch's processes, placeholders filled in: node N is `${NODES[N]}` in a Slurm job, 127.0.0.1 locally. */
function recipeProcesses(plan: RecipePlan, cluster: ClusterProfile, logDir: string): DryRunRecipeProcess[] {
  const host = (n: number): string => (cluster.scheduler === 'slurm' ? `\${NODES[${n}]}` : '127.0.0.1');
  const names = roleNames(plan.rendered);
  const lead = leaders(plan.rendered);
  return resolveRoles(plan.rendered.roles, { host, logDir, uuid: '{uuid}' }).map((x, i) => ({
    name: names[i]!,
    role: x.role,
    index: x.index,
    nodes: x.nodes,
    host: host(x.nodes[0]!),
    gpus: x.gpus,
    leader: lead[i] === true,
    argv: x.argv,
    env: x.env,
  }));
}

/** An adapter's launch as a run starts it: locally on 127.0.0.1 from the base port, or its Slurm job. */
function adapterDetails(plan: AdapterPlan, o: DryRunOptions): Partial<DryRunLaunch> {
  const slurm = o.cluster.scheduler === 'slurm';
  const points = plan.launch.points;
  const { launch, launchScript } = slurm ? slurmJob(plan, o) : localLaunch(plan, o.basePort);
  const agentic = o.agentic;
  return {
    placement: plan.placement,
    ...(plan.notes ? { notes: plan.notes } : {}),
    processes: launch.processes.map((p) => ({
      name: p.name,
      role: p.role,
      host: p.host,
      gpus: p.gpus,
      argv: p.command,
      env: { ...(p.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: p.gpus.join(',') } : {}), ...p.env },
    })),
    launchScript,
    ...(!slurm && agentic
      ? {
          replays: points
            .filter((p) => isAgenticRow(p.row))
            .map((p) => ({ conc: p.conc, argv: replayArgs(plan, p, agentic, o.out, launch) })),
        }
      : {}),
  };
}

/** The launch on this machine, every node 127.0.0.1, its ports from the base port, and the script that starts it. */
function localLaunch(plan: AdapterPlan, basePort: number): { launch: Launch; launchScript: string } {
  let port = basePort;
  const launch = plan.adapter.launch(
    plan.deployment,
    onHosts(plan.placement, () => '127.0.0.1'),
    { next: () => port++ },
  );
  return { launch, launchScript: renderLaunchScript(launch, plan.launch.label) };
}

/** The launch as its Slurm job places it (node N is `${NODES[N]}`), and the job's script. */
function slurmJob(plan: AdapterPlan, o: DryRunOptions): { launch: Launch; launchScript: string } {
  const job = jobFor(plan, plan.launch.points, new RunDir(o.out), o.cluster, {
    frontier: o.frontierCommand,
    basePort: o.basePort,
    agentic: o.agentic,
  });
  return { launch: job.launch, launchScript: job.script };
}

/** An agentic point's replay, as a local run starts it (in process). */
function replayArgs(plan: AdapterPlan, p: PlannedPoint, agentic: AgenticSettings, out: string, launch: Launch): string[] {
  const d = plan.deployment;
  const a = agenticPointOf(p, agentic, launch, {
    model: d.servedModelName,
    maxModelLen: d.maxModelLen,
    artifacts: new RunDir(out).agenticArtifacts(p.resultFilename),
  });
  return replayArgsOf(a, agentic.tracesFile);
}
