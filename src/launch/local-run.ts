import { availableParallelism } from 'node:os';
import { freePort } from './free-port.js';
import type { SharedCores } from '../bench/saturation.js';
import { renderLaunchScript } from '../engines/index.js';
import type { Launch, Ports } from '../engines/index.js';
import { runScriptPoints } from './inferencex/run-local.js';
import { runRecipeLocally } from './inferencex/recipe-run.js';
import { placeWorkers } from '../plan/placement.js';
import type { GroupExecutor } from './run.js';
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

export const runGroupLocally: GroupExecutor = async (ctx) => {
  const { group, points, dir, cluster } = ctx;
  if (group.script) return runScriptPoints(ctx, group.script, group.deployment.frontierCommand ?? ['frontier'], freePort);
  if (group.recipe) return runRecipeLocally(ctx, group.recipe, group.deployment.frontierCommand ?? ['frontier'], freePort);
  if (group.srtctl) throw new Error('srtctl runs recipes on a Slurm cluster only');
  if (group.jobScript) throw new Error(`${group.jobScript.script} submits its own Slurm job: it runs on a Slurm cluster only`);
  const d = group.deployment;
  const placement = placeWorkers(d.layout, cluster.gpusPerNode, Array<string>(cluster.nodes).fill('127.0.0.1'));
  const launch = group.adapter.launch(d, placement, await freePorts(64));
  const logDir = dir.serverLogs(points[0]!.resultFilename);
  await serveAndBench(ctx, launch, logDir, {
    model: d.servedModelName,
    isl: d.isl,
    osl: d.osl,
    what: 'engine',
    sharedCores: sharedCoresOf(launch, d.framework),
    written: { 'launch.sh': renderLaunchScript(launch, group.planned.label) },
    frontierCommand: group.deployment.frontierCommand,
  });
};
