import { availableParallelism, hostname } from 'node:os';
import { freePort } from './free-port.js';
import type { SharedCores } from '../bench/saturation.js';
import { renderLaunchScript } from '../engines/index.js';
import type { Launch, Ports } from '../engines/index.js';
import { runScriptPoints } from './inferencex/run-local.js';
import { runRecipeLocally } from './inferencex/recipe-run.js';
import { onHosts } from '../plan/placement.js';
import { unhandledKind } from '../plan/launch-plan.js';
import type { AdapterPlan } from '../plan/launch-plan.js';
import type { LaunchContext, LaunchExecutor } from './run.js';
import { serveAndBench } from './serve-and-bench.js';

/**
 * The local executor: a launch's processes on this machine (every node of the cluster profile
 * stands for this host), the readiness barrier, then the load generator in this process at each
 * concurrency. An engine that dies fails the points it could not serve, with its log's tail.
 */

/** Ports the OS says are free now (taken in order; a launch needs a handful). */
async function freePorts(n: number): Promise<Ports> {
  const ports = await Promise.all(Array.from({ length: n }, freePort));
  return {
    next: () => {
      const port = ports.shift();
      if (port === undefined) throw new Error(`a launch needs more than ${n} ports`);
      return port;
    },
  };
}

/** The engine's processes run on the load generator's cores: the validity gate names them. */
function sharedCoresOf(launch: Launch, framework: string): SharedCores {
  const threads = launch.processes.reduce((n, p) => n + (Number.isFinite(p.threads) ? p.threads! : 0), 0);
  const engine = threads > 0 ? `${framework}, ${threads} thread${threads === 1 ? '' : 's'}` : framework;
  return { cores: availableParallelism(), engine };
}

export const localExecutor: LaunchExecutor = async (ctx) => {
  const { plan } = ctx;
  // Every node of the profile is this host (an exclusion means nothing here).
  ctx.attempt.nodes = [hostname()];
  const frontier = plan.deployment.frontierCommand ?? ['frontier'];
  switch (plan.kind) {
    case 'adapter':
      return runAdapterLocally(ctx, plan);
    case 'script':
      return runScriptPoints(ctx, plan.script, frontier, freePort);
    case 'recipe':
      if (plan.unstartable) throw new Error(plan.unstartable);
      return runRecipeLocally(ctx, plan, frontier, freePort);
    case 'srtctl':
      throw new Error('srtctl runs recipes on a Slurm cluster only');
    case 'job-script':
      throw new Error(`${plan.jobScript.script} submits its own Slurm job: it runs on a Slurm cluster only`);
    default:
      return unhandledKind(plan);
  }
};

/** An adapter's launch: its processes on this machine, every node of the plan 127.0.0.1. */
async function runAdapterLocally(ctx: LaunchContext, plan: AdapterPlan): Promise<void> {
  const d = plan.deployment;
  const launch = plan.adapter.launch(
    d,
    onHosts(plan.placement, () => '127.0.0.1'),
    await freePorts(64),
  );
  const logDir = ctx.dir.serverLogs(ctx.points[0]!.resultFilename);
  await serveAndBench(ctx, launch, logDir, {
    model: d.servedModelName,
    isl: d.isl,
    osl: d.osl,
    what: 'engine',
    sharedCores: sharedCoresOf(launch, d.framework),
    written: { 'launch.sh': renderLaunchScript(launch, plan.launch.label) },
    frontierCommand: d.frontierCommand,
  });
}
