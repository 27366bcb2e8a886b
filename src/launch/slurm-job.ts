import { join } from 'node:path';
import type { Deployment, Launch } from '../engines/index.js';
import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { MultiNodeRow } from '../matrix/index.js';
import { logsKeyOf } from '../plan/launches.js';
import type { PlannedEval, PlannedPoint } from '../plan/launches.js';
import type { AdapterPlan, RecipeLaunchPlan } from '../plan/launch-plan.js';
import { onHosts } from '../plan/placement.js';
import type { ClusterProfile } from '../clusters/index.js';
import { agenticPointOf, replayArgsOf } from './agentic.js';
import type { AgenticSettings } from './agentic.js';
import { evalArgsOf, rowEvalTasks } from './evals.js';
import type { EvalSettings } from './evals.js';
import { recipeLaunch } from './inferencex/recipe-run.js';
import { benchArgsOf, specDecodeMetricsUrlsOf } from './point-bench.js';
import { monitorSettleMs, simulatedGpus, simulatedMonitorEnv } from './power.js';
import type { RunDir } from './run-dir.js';
import { renderJobScript } from './slurm-script.js';
import type { JobPower } from './slurm-script.js';

/**
 * The sbatch job of a launch whose processes Frontier starts (an adapter's, or a recipe's as
 * srtctl renders it): its processes placed on the allocation's nodes (`${NODES[i]}`), the
 * readiness barrier, a benchmark step per point, its evals and GPU monitor (slurm-script.ts).
 */

export interface SlurmJobOptions {
  /** How to run frontier on the nodes (a shared file system holds it and the run directory). */
  frontier: string[];
  /** First port of the job's processes (they are numbered up from it). */
  basePort?: number | undefined;
  evals?: { list: readonly PlannedEval[]; settings: EvalSettings } | undefined;
  agentic?: AgenticSettings | undefined;
  power?: { clockAnchorMs: number; intervalMs: number } | undefined;
}

export interface SlurmJob {
  launch: Launch;
  logDir: string;
  script: string;
  /** The stand-ins' folder of a recipe job, removed once the job has ended. */
  work?: string;
}

const nodeAddress = (node: number): string => `\${NODES[${node}]}`;

export function jobFor(
  plan: AdapterPlan | RecipeLaunchPlan,
  points: readonly PlannedPoint[],
  dir: RunDir,
  cluster: ClusterProfile,
  o: SlurmJobOptions,
): SlurmJob {
  return plan.kind === 'recipe' ? recipeJobFor(plan, points, dir, cluster, o) : adapterJobFor(plan, points, dir, cluster, o);
}

function adapterJobFor(
  plan: AdapterPlan,
  points: readonly PlannedPoint[],
  dir: RunDir,
  cluster: ClusterProfile,
  o: SlurmJobOptions,
): SlurmJob {
  const g = plan.launch;
  const d = plan.deployment;
  let port = o.basePort ?? 8000;
  const launch = plan.adapter.launch(d, onHosts(plan.placement, nodeAddress), { next: () => port++ });
  const logDir = dir.serverLogs(logsKeyOf(g, points));
  const row = g.rows[0]!;
  const baseUrl = `http://${launch.endpoint.host}:${launch.endpoint.port}`;
  const evals = o.evals;
  const script = renderJobScript(cluster, {
    jobName: `frontier-${g.id}`,
    title: g.label,
    nodes: plan.nodes,
    logDir,
    // Engines Frontier builds or runs on the host need no container.
    image: plan.adapter.frameworks.some((f) => f === 'sim' || f === 'llama.cpp') ? undefined : d.image,
    launch,
    points: points.map((p) => ({
      conc: p.conc,
      benchArgs: isAgenticRow(p.row)
        ? agenticArgs(p, o.agentic, launch, d, dir)
        : benchArgsOf(
            {
              baseUrl,
              model: d.servedModelName,
              isl: d.isl,
              osl: d.osl,
              conc: p.conc,
              client: launch.client,
              specDecodeMetricsUrls: specDecodeMetricsUrlsOf(launch),
            },
            dir.rawFile(p.resultFilename),
          ),
    })),
    evals: (evals?.list ?? []).map((e) => ({
      concs: e.concs,
      tasks: rowEvalTasks(e.row),
      args: evalArgsOf({
        baseUrl,
        model: d.servedModelName,
        maxModelLen: d.maxModelLen,
        concs: e.concs,
        folder: join(dir.root, e.dir),
        rowFile: join(dir.root, e.dir, 'row.json'),
        runner: e.row.runner,
        tasks: rowEvalTasks(e.row).map((n) => evals!.settings.tasks.get(n)!.spec.file),
        dataDir: evals!.settings.dataDir,
        limit: evals!.settings.limit,
      }),
    })),
    frontier: o.frontier,
    notes: plan.notes ?? [],
    power:
      o.power && !isMultiNodeRow(row) && plan.nodes === 1
        ? jobPower(
            o.power,
            launch,
            d,
            plan.simulated,
            logDir,
            isAgenticRow(row) ? dir.agenticDir(points[0]!.resultFilename) : undefined,
          )
        : undefined,
  });
  return { launch, logDir, script };
}

/**
 * The job's GPU monitor (a single-node launch: its one node): `frontier telemetry sample` into the
 * launch's log folder, the simulated engine's GPU tools first on its PATH when the engine is the sim.
 */
function jobPower(
  power: { clockAnchorMs: number; intervalMs: number },
  launch: Launch,
  d: Deployment,
  simulated: boolean,
  logDir: string,
  /** An agentic point's folder: its telemetry goes there, where InferenceX's power adapter reads it. */
  agenticDir: string | undefined,
): JobPower {
  const clock = { scale: launch.client.timeScale, anchorMs: power.clockAnchorMs };
  const gpus = simulated ? simulatedGpus(launch, d.gpu) : undefined;
  const monitor = gpus ? simulatedMonitorEnv(logDir, gpus, clock.scale) : undefined;
  const samplerArgs = ['telemetry', 'sample', '--source', gpus ? `${gpus.vendor}-smi` : 'auto', '--out', agenticDir ?? logDir];
  samplerArgs.push('--interval-ms', String(power.intervalMs), '--time-scale', String(clock.scale));
  return {
    clockAnchorMs: power.clockAnchorMs,
    samplerArgs,
    env: monitor?.env ?? {},
    pathPrefix: monitor?.path,
    settleSeconds: Number((monitorSettleMs(clock, power.intervalMs) / 1000).toFixed(3)),
    offsetFile: agenticDir ? join(agenticDir, 'agentic_power_timezone_offset.txt') : undefined,
  };
}

/** An agentic point's step: `frontier bench --trace` into `agentic_<RF>/aiperf_artifacts` (the run directory is shared). */
function agenticArgs(
  p: PlannedPoint,
  agentic: AgenticSettings | undefined,
  launch: Launch,
  d: Deployment,
  dir: RunDir,
): string[] {
  if (!agentic) throw new Error('an agentic-coding point needs a trace corpus');
  const a = agenticPointOf(p, agentic, launch, {
    model: d.servedModelName,
    maxModelLen: d.maxModelLen,
    artifacts: dir.agenticArtifacts(p.resultFilename),
  });
  return replayArgsOf(a, agentic.tracesFile);
}

/**
 * A recipe launch's job: one srun step per process srtctl starts, on its node (a process spanning
 * nodes, TensorRT-LLM's MPI launch, is one step on its first node: the sim serves it from there),
 * then the readiness barrier on the recipe's public endpoint and a benchmark per point. The nodes of
 * a simulating cluster may share a host, so srtctl's per-node ports move to basePort and up.
 */
function recipeJobFor(
  plan: RecipeLaunchPlan,
  points: readonly PlannedPoint[],
  dir: RunDir,
  cluster: ClusterProfile,
  o: SlurmJobOptions,
): SlurmJob {
  const g = plan.launch;
  const recipe = plan.recipe;
  const row = g.rows[0] as MultiNodeRow;
  let port = o.basePort ?? 8000;
  const r = recipeLaunch(plan, [...points], dir, cluster, {
    host: nodeAddress,
    ...(plan.simulated ? { nextPort: () => port++ } : {}),
    frontier: o.frontier,
  });
  const launch: Launch = {
    processes: r.processes,
    endpoint: r.endpoint,
    ready: [{ path: '/health' }, { path: '/v1/models', contains: r.servedName }],
    metricsPath: '/metrics',
    client: r.client,
  };
  const baseUrl = `http://${r.endpoint.host}:${r.endpoint.port}`;
  const script = renderJobScript(cluster, {
    jobName: `frontier-${g.id}`,
    title: g.label,
    nodes: recipe.rendered.nodes,
    logDir: r.logDir,
    // Stand-ins on the host on a simulating cluster; the recipe's container otherwise.
    image: plan.simulated ? undefined : row.image,
    launch,
    points: points.map((p) => ({
      conc: p.conc,
      benchArgs: benchArgsOf(
        { baseUrl, model: r.servedName, isl: row.isl, osl: row.osl, conc: p.conc, client: r.client },
        dir.rawFile(p.resultFilename),
      ),
    })),
    evals: [],
    frontier: o.frontier,
    notes: [
      `recipe ${recipe.path}${recipe.selector ? `:${recipe.selector}` : ''} (${recipe.rendered.name}), as srtctl renders it`,
    ],
  });
  return { launch, logDir: r.logDir, script, work: r.work };
}
