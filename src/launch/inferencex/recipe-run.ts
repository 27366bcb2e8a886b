import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syntheticSpecOf } from '../../engines/index.js';
import type { ClientSettings, EngineProcess } from '../../engines/index.js';
import type { MultiNodeRow } from '../../matrix/index.js';
import { layoutOf, logsKeyOf } from '../../plan/launches.js';
import type { ClusterProfile } from '../../clusters/index.js';
import type { RunDir } from '../run-dir.js';
import type { LaunchContext } from '../run.js';
import { serveAndBench } from '../serve-and-bench.js';
import { RUN_NODE_ENV } from '../../sim/index.js';
import { simulationVariables } from './point.js';
import {
  PUBLIC_PORT,
  endpointOf,
  leaders,
  remapPorts,
  resolveRoles,
  roleNames,
  servedNameOf,
} from '../../plan/inferencex/recipe-plan.js';
import type { RecipeLaunchPlan } from '../../plan/launch-plan.js';
import type { RenderedRecipe } from '../../recipes/index.js';
import { registered } from './registry.js';
import { standinVariables } from './workspace.js';

/**
 * A recipe launch as processes: every role srtctl renders, placeholders filled in for where it
 * runs, and on a simulating cluster the stand-ins first on PATH with what they need to act the
 * roles out (cli/standin.ts): the row's model, GPU and each role's parallelism for the sim, the
 * registry folder workers write their URLs into, and the worker counts a frontend waits for.
 */

export interface RecipeLaunch {
  processes: EngineProcess[];
  endpoint: { host: string; port: number };
  /** What requests name as their model. */
  servedName: string;
  client: ClientSettings;
  logDir: string;
  /** The stand-ins and their registry (removed when the launch is over: the run directory keeps results and logs). */
  work: string;
  /** Where the stand-in workers register (a simulating cluster). */
  registry: string | undefined;
}

export interface RecipeLaunchOptions {
  /** Node N's address (`${NODES[N]}` in a job script, 127.0.0.1 locally). */
  host: (node: number) => string;
  /**
   * The port each of srtctl's ports becomes, or undefined to keep srtctl's. Its ports are per
   * node: where nodes share a host (a local cluster, a simulated Slurm one) they are moved.
   */
  nextPort?: () => number;
  frontier: string[];
}

export function recipeLaunch(
  launchPlan: RecipeLaunchPlan,
  points: LaunchContext['points'],
  dir: RunDir,
  cluster: ClusterProfile,
  o: RecipeLaunchOptions,
): RecipeLaunch {
  const plan = launchPlan.recipe;
  const row = launchPlan.launch.rows[0] as MultiNodeRow;
  const simulated = launchPlan.simulated;
  const logDir = dir.serverLogs(logsKeyOf(launchPlan.launch, points));
  const rendered = plan.rendered;
  const remapped = o.nextPort ? remapPorts(rendered.roles, o.nextPort) : undefined;
  const portOf = (node: number, port: number): number => (remapped ? remapped.port(node, port) : port);
  const roles = resolveRoles(remapped?.roles ?? rendered.roles, { host: o.host, logDir });
  const names = roleNames(rendered);
  const lead = leaders(rendered);
  const ep = endpointOf(rendered.roles);
  const endpoint = { host: o.host(ep.node), port: portOf(ep.node, ep.port) };
  const servedName = servedNameOf(rendered) ?? row.model;
  const speed = cluster.engines.sim?.speed === undefined ? 1 : Number(cluster.engines.sim.speed);
  const variation = launchPlan.deployment.runVariation?.cv ? launchPlan.deployment.runVariation : undefined;

  let shared: Record<string, string> = {};
  const work = join(dir.root, 'work', logsKeyOf(launchPlan.launch, points));
  let registry: string | undefined;
  if (simulated) {
    const standin = join(work, '.frontier');
    rmSync(standin, { recursive: true, force: true });
    registry = join(standin, 'registry');
    mkdirSync(registry, { recursive: true });
    const count = (role: string): number => rendered.roles.filter((x, i) => lead[i] && x.role === role).length;
    shared = {
      ...standinVariables({ bin: join(standin, 'bin'), dir: standin, mode: 'run', frontier: o.frontier }),
      ...simulationVariables(cluster, row, launchPlan.hardware, variation),
      FRONTIER_STANDIN_REGISTRY: registry,
      FRONTIER_RECIPE_EXPECT: ['prefill', 'decode', 'aggregated']
        .filter((r) => count(r) > 0)
        .map((r) => `${r}=${count(r)}`)
        .join(','),
      MODEL: row.model,
      PRECISION: row.precision,
      MAX_MODEL_LEN: String(row['max-model-len']),
    };
  }
  const layout = layoutOf(row);
  const shapeOf = (role: string): { tp: number; ep: number; pp: number; dpAttn: boolean } =>
    layout.kind === 'aggregated' ? layout.worker : role === 'decode' ? layout.decode : layout.prefill;

  const processes: EngineProcess[] = roles.map((x, i) => {
    const node = x.nodes[0]!;
    const worker = x.role === 'prefill' || x.role === 'decode' || x.role === 'aggregated';
    let own: Record<string, string> = {};
    if (simulated) {
      const shape = shapeOf(x.role);
      own = {
        FRONTIER_RECIPE_NAME: names[i]!,
        FRONTIER_RECIPE_ROLE: x.role,
        FRONTIER_RECIPE_LEADER: lead[i] ? '1' : '0',
        FRONTIER_RECIPE_HOST: o.host(node),
        // Its sim's run-variation seed is its node's (the hosts of a local run are all one address).
        ...(variation ? { [RUN_NODE_ENV]: `node${node}` } : {}),
        ...(x.role === 'nginx' ? { FRONTIER_RECIPE_PORT: String(portOf(node, PUBLIC_PORT)) } : {}),
        ...(worker
          ? { TP: String(shape.tp), EP_SIZE: String(shape.ep), PP_SIZE: String(shape.pp), DP_ATTENTION: String(shape.dpAttn) }
          : {}),
      };
    }
    return {
      name: names[i]!,
      role: x.role === 'aggregated' ? 'server' : x.role === 'nginx' ? 'router' : x.role,
      host: o.host(node),
      // The recipe's environment says which GPUs a process sees (srtctl sets CUDA_VISIBLE_DEVICES
      // only for a partial node): none added here.
      gpus: [],
      command: x.argv,
      env: { ...x.env, ...shared, ...own },
    };
  });

  mkdirSync(logDir, { recursive: true });
  writeFileSync(
    join(logDir, 'recipe.json'),
    `${JSON.stringify(
      {
        configFile: plan.configFile,
        path: plan.path,
        selector: plan.selector,
        name: rendered.name,
        nodes: rendered.nodes,
        endpoint,
        processes: roles.map((x, i) => ({
          name: names[i],
          role: x.role,
          nodes: x.nodes,
          gpus: x.gpus,
          argv: x.argv,
          env: x.env,
        })),
      },
      null,
      2,
    )}\n`,
  );
  return {
    processes,
    endpoint,
    servedName,
    logDir,
    work,
    registry,
    client: {
      backend: 'vllm',
      endpoint: '/v1/completions',
      tokenizer: 'gpt2',
      useChatTemplate: false,
      ...toldAcceptance(rendered),
      timeScale: speed,
    },
  };
}

/**
 * The acceptance length the recipe's decoding workers are told (synthetic acceptance the launcher
 * injected, or the recipe pins), when they agree on one: the bench checks the measured one against it.
 */
function toldAcceptance(r: RenderedRecipe): { expectedAcceptanceLength?: number } {
  const lead = leaders(r);
  const decoders = r.roles.filter((x, i) => lead[i] && (x.role === 'decode' || x.role === 'aggregated'));
  const told = new Set(decoders.map((x) => syntheticSpecOf(x.argv, x.env)?.acceptanceLength));
  const [al] = told;
  return told.size === 1 && al !== undefined ? { expectedAcceptanceLength: al } : {};
}

/**
 * The local executor for a recipe: every process on this host (each node of the allocation is
 * 127.0.0.1, so srtctl's per-node ports are moved to free ones, consistently), the readiness
 * barrier on the public endpoint, then `frontier bench` in this process at each concurrency, as
 * for an adapter's launch.
 */
export async function runRecipeLocally(
  ctx: LaunchContext,
  launchPlan: RecipeLaunchPlan,
  frontier: string[],
  freePort: () => Promise<number>,
): Promise<void> {
  const { points, dir, cluster } = ctx;
  const plan = launchPlan.recipe;
  const row = launchPlan.launch.rows[0] as MultiNodeRow;
  // As many free ports as the recipe names (node, port) pairs: counted by a first pass.
  let needed = 0;
  remapPorts(plan.rendered.roles, () => ++needed).port(endpointOf(plan.rendered.roles).node, PUBLIC_PORT);
  const ports = await Promise.all(Array.from({ length: needed + 1 }, freePort));
  const launch = recipeLaunch(launchPlan, points, dir, cluster, {
    host: () => '127.0.0.1',
    nextPort: () => ports.shift() ?? 0,
    frontier,
  });
  const ready = [{ path: '/health' }, { path: '/v1/models', contains: launch.servedName }];
  try {
    const registry = launch.registry;
    await serveAndBench(
      ctx,
      { processes: launch.processes, endpoint: launch.endpoint, ready, metricsPath: '/metrics', client: launch.client },
      launch.logDir,
      {
        model: launch.servedName,
        isl: row.isl,
        osl: row.osl,
        what: 'recipe',
        // The workers registered themselves on ports of their own choosing: the decoders' /metrics from there.
        ...(registry && launch.client.expectedAcceptanceLength !== undefined
          ? { specDecodeMetricsUrls: () => decoderMetrics(registry) }
          : {}),
      },
    );
  } finally {
    rmSync(launch.work, { recursive: true, force: true });
  }
}

/** The /metrics of the registered workers that decode. */
function decoderMetrics(registry: string): string[] | undefined {
  const workers = registered(registry);
  const decoders = workers.some((w) => w.role === 'decode') ? workers.filter((w) => w.role === 'decode') : workers;
  return decoders.length > 0 ? decoders.map((w) => `${w.url}/metrics`) : undefined;
}
