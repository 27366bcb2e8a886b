import { join } from 'node:path';
import { flagValue } from '../../util/argv.js';
import { UserError } from '../../util/user-error.js';
import { RUN_NODE_ENV, RUN_SEED_ENV, RUN_VARIATION_ENV, nodeSeed } from '../../sim/index.js';
import type { SimRole } from '../../sim/index.js';
import { syntheticSpecFlags, syntheticSpecOf } from '../synthetic-knobs.js';
import { freePort } from './ports.js';

/**
 * What an engine entry point becomes under the stand-ins (src/launch/inferencex/standins.ts):
 * `frontier sim serve` for the row the script was given (its environment contract names model,
 * GPUs and parallelism), on the port and under the name the script asked for, with the synthetic
 * acceptance the engine was told (engines/synthetic-knobs.ts).
 *
 * Under an srt-slurm recipe ($FRONTIER_STANDIN_REGISTRY set), a Dynamo worker (`python3 -m
 * dynamo.sglang|vllm|trtllm`, or a plain `sglang.launch_server`/`vllm serve`) serves in its role
 * (from its `--disaggregation-mode`/`--is-prefill-worker`, else $FRONTIER_RECIPE_ROLE) and is
 * registered, since real workers are found through etcd/NATS rather than named on the frontend's
 * command line; a process that joins another's endpoint (a multi-node worker's other ranks,
 * $FRONTIER_RECIPE_LEADER=0) idles.
 *
 * vLLM's data parallelism is the sim's D×T GPUs with data-parallel attention (vllmDataParallel);
 * of a data-parallel server spanning nodes with hybrid load balancing (llm-d's), the first node
 * serves it whole and another node's API server is a proxy to it; a `--headless` node idles.
 */

type Env = NodeJS.ProcessEnv;
export type WorkerRole = SimRole;

export type EngineStandIn =
  | { kind: 'idle'; why: string }
  /** A server that fronts another's ranks: a proxy on its port to the one that serves them. */
  | { kind: 'proxy'; host: string; port: string; to: string; why: string }
  | {
      kind: 'serve';
      role: WorkerRole;
      host: string;
      port: string;
      /** The model the command line names (the served name when it gives none). */
      model?: string;
      /** TileRT's decode server: a control port to accept connections on as well. */
      controlPort?: number;
      /** The registry file to write once serving (a recipe worker). */
      registerAs?: string;
      /** vLLM's data parallelism, as the sim's shape (vllmDataParallel). */
      dataParallel?: SimShape;
    };

/** A server's shape as `frontier sim serve` takes it. */
export interface SimShape {
  tp: string;
  ep: string;
  dpAttn: boolean;
}

const DEFAULT_PORTS: Record<string, number> = { vllm: 8000, 'trtllm-serve': 8000, sglang: 30000 };

export function need(env: Env, name: string): string {
  const v = env[name];
  if (v === undefined || v === '') throw new UserError(`stand-in: ${name} is not set (the InferenceX workflow sets it)`);
  return v;
}

/** What the engine command `tool args…` stands in as. */
export async function engineStandIn(tool: string, args: readonly string[], env: Env): Promise<EngineStandIn> {
  const what = `${tool} ${args.slice(0, 2).join(' ')}`;
  const registry = env.FRONTIER_STANDIN_REGISTRY;
  if (registry && env.FRONTIER_RECIPE_LEADER === '0')
    return { kind: 'idle', why: `${what} joins its endpoint's first process, which serves it` };
  if (registry) {
    // A recipe worker: the sim in its role, on its port (a free one when it names none), registered.
    const host = env.FRONTIER_RECIPE_HOST || '127.0.0.1';
    const role = recipeRole(args, env);
    const port = flagValue(args, '--port') ?? String(await freePort(host));
    const registerAs = join(registry, `${env.FRONTIER_RECIPE_NAME ?? role}-${process.pid}.json`);
    return { kind: 'serve', role, host, port, registerAs };
  }
  // A rank of a server spanning nodes other than its first joins the first, which serves.
  const rank = flagValue(args, '--node-rank');
  if (rank !== undefined && rank !== '0')
    return { kind: 'idle', why: `${what} is rank ${rank} of a server whose rank 0 serves it` };
  // vLLM's other nodes of a server spanning nodes run --headless: no API server, the first serves.
  if (args.includes('--headless'))
    return { kind: 'idle', why: `${what} is a headless node of a server whose first node serves it` };
  // Nodes sharing this host each have a loopback address of their own (frontier-node-addr).
  const host = env.FRONTIER_NODE_ADDR || '127.0.0.1';
  const port = flagValue(args, '--port', '--server-port', '--http-port') ?? String(defaultPort(tool, args));
  const dataParallel = isVllm(tool, args) ? vllmDataParallel(args) : undefined;
  // vLLM's hybrid load balancing (--data-parallel-hybrid-lb): every node of a data-parallel server
  // runs an API server for its own ranks. The sim serves the whole server on its first node (its
  // ranks are one engine: their MoE layers and steps are shared); another node's API server is a
  // proxy to it, on that node's port, so whatever is sent to either reaches the same engine.
  const start = flagValue(args, '--data-parallel-start-rank');
  if (dataParallel && args.includes('--data-parallel-hybrid-lb') && start !== undefined && start !== '0') {
    const leader = flagValue(args, '--data-parallel-address');
    if (!leader)
      throw new UserError(
        `stand-in: ${what} runs ranks from ${start} of a data-parallel server but names no --data-parallel-address`,
      );
    return {
      kind: 'proxy',
      host,
      port,
      to: `http://${leader}:${port}`,
      why: `${what} serves ranks from ${start} of the data-parallel server whose first node (${leader}) the sim serves`,
    };
  }
  const ctrl = flagValue(args, '--ctrl-port');
  return {
    kind: 'serve',
    role: recipeRole(args, env),
    host,
    port,
    model: modelArg(tool, args) ?? need(env, 'MODEL'),
    ...(ctrl ? { controlPort: Number(ctrl) } : {}),
    ...(dataParallel ? { dataParallel } : {}),
  };
}

/** `vllm serve` or vLLM's API server module. */
const isVllm = (tool: string, args: readonly string[]): boolean =>
  (tool === 'vllm' && args[0] === 'serve') ||
  ((tool === 'python3' || tool === 'python') && args[1] === 'vllm.entrypoints.openai.api_server');

/**
 * vLLM's data parallelism as the sim's shape: `--data-parallel-size D` ranks of
 * `--tensor-parallel-size T` are D×T GPUs with data-parallel attention, the MoE layers over all of
 * them with --enable-expert-parallel (vLLM's expert-parallel size is always D×T). Undefined without
 * data parallelism.
 */
export function vllmDataParallel(args: readonly string[]): SimShape | undefined {
  const dp = Number(flagValue(args, '--data-parallel-size', '--data_parallel_size', '-dp') ?? 1);
  if (!(dp > 1)) return undefined;
  const tp = Number(flagValue(args, '--tensor-parallel-size', '--tensor_parallel_size', '-tp') ?? 1);
  const gpus = String(dp * tp);
  return { tp: gpus, ep: args.includes('--enable-expert-parallel') ? gpus : '1', dpAttn: true };
}

function defaultPort(tool: string, args: readonly string[]): number {
  if (tool === 'python3' || tool === 'python') return args[1]?.startsWith('sglang') ? 30000 : 8000;
  return DEFAULT_PORTS[tool] ?? 8000;
}

/** The model argument of an engine command line: a flag, else the first positional argument. */
function modelArg(tool: string, args: readonly string[]): string | undefined {
  const flagged = flagValue(args, '--model-path', '--model', '--model_path');
  if (flagged) return flagged;
  const rest = tool === 'python3' || tool === 'python' ? args.slice(2) : args[0] === 'serve' ? args.slice(1) : args;
  return rest[0] !== undefined && !rest[0].startsWith('-') ? rest[0] : undefined;
}

/** A worker's role: its disaggregation flags or KV-transfer role, else what the executor says. */
export function recipeRole(args: readonly string[], env: Env): WorkerRole {
  const mode = flagValue(args, '--disaggregation-mode');
  if (mode === 'prefill' || mode === 'decode') return mode;
  if (args.includes('--is-prefill-worker')) return 'prefill';
  if (args.includes('--is-decode-worker')) return 'decode';
  const kv = /"kv_role"\s*:\s*"kv_(producer|consumer)"/.exec(
    flagValue(args, '--kv-transfer-config', '--kv_transfer_config') ?? '',
  );
  if (kv) return kv[1] === 'producer' ? 'prefill' : 'decode';
  if (args[1] === 'tilert.pd_vllm.decode_server') return 'decode';
  const role = env.FRONTIER_RECIPE_ROLE;
  return role === 'prefill' || role === 'decode' ? role : 'both';
}

/**
 * `frontier sim serve`'s arguments for an engine command line: the row's model and shape (the
 * workflow's variables), in `role`. `note` hears of the synthetic acceptance it was told.
 */
export function simServeArgs(
  args: readonly string[],
  serve: { role: WorkerRole; host: string; port: string; model?: string; dataParallel?: SimShape },
  env: Env,
  note: (line: string) => void,
): string[] {
  const { role, dataParallel: dp } = serve;
  const served = flagValue(args, '--served-model-name', '--served_model_name') ?? serve.model ?? need(env, 'MODEL');
  // The shape: the workflow's variables, else (a multi-node script's server) the engine's own
  // flags (vLLM's data parallelism among them), else its role's.
  const roleTp = role === 'prefill' ? env.PREFILL_TP : role === 'decode' ? env.DECODE_TP : undefined;
  const tp =
    env.TP || dp?.tp || flagValue(args, '--tp-size', '--tp', '-tp', '--tensor-parallel-size') || roleTp || need(env, 'TP');
  const ep = env.EP_SIZE || dp?.ep || flagValue(args, '--ep-size', '--ep', '--expert-parallel-size') || '1';
  const dpAttn = env.DP_ATTENTION ? env.DP_ATTENTION === 'true' : dp ? dp.dpAttn : args.includes('--enable-dp-attention');
  const spec = syntheticSpecOf(args, env);
  if (spec)
    note(
      `stand-in: speculative decoding, ${spec.draftTokens} draft tokens, acceptance length ${spec.acceptanceLength} (${spec.source})`,
    );
  return [
    'serve',
    ...['--model', env.FRONTIER_SIM_MODEL || need(env, 'MODEL')],
    ...['--hardware', need(env, 'FRONTIER_SIM_GPU'), '--precision', need(env, 'PRECISION')],
    ...['--tp', tp, '--ep', ep, '--pp', env.PP_SIZE || '1'],
    ...(dpAttn ? ['--dp-attn'] : []),
    ...['--served-model-name', served],
    ...(role === 'both' ? [] : ['--role', role]),
    ...(env.MAX_MODEL_LEN ? ['--max-model-len', env.MAX_MODEL_LEN] : []),
    ...syntheticSpecFlags(spec),
    ...runVariationFlags(env),
    ...(env.FRONTIER_SIM_ARGS ?? '').split(/\s+/).filter(Boolean),
    // Tests and local runs listen on loopback only; `http://0.0.0.0:PORT` reaches it.
    ...['--host', serve.host, '--port', serve.port],
  ];
}

/**
 * The node a stand-in's sim counts as, for its run-variation seed: the one its executor names
 * ($FRONTIER_SIM_RUN_NODE: a recipe's process, a single-node script), else the node's own address
 * on a simulating cluster ($FRONTIER_NODE_ADDR, one per node of the job), else its name
 * ($FRONTIER_NODE_NAME, Slurm's), else `node0`.
 */
export const standInNode = (env: Env): string =>
  env[RUN_NODE_ENV] || env.FRONTIER_NODE_ADDR || env.FRONTIER_NODE_NAME || env.SLURMD_NODENAME || 'node0';

/**
 * `--run-variation CV --run-seed S` when the executor asks for run-to-run variation
 * ($FRONTIER_SIM_RUN_VARIATION, $FRONTIER_SIM_RUN_SEED: the launch's seed): S mixes the launch's
 * seed with this node's name, so the sims of different nodes draw different factors.
 */
export function runVariationFlags(env: Env): string[] {
  const cv = env[RUN_VARIATION_ENV];
  if (cv === undefined || cv === '' || Number(cv) === 0) return [];
  const seed = env[RUN_SEED_ENV] ?? '';
  if (!/^-?\d+$/.test(seed))
    throw new UserError(
      `stand-in: ${RUN_SEED_ENV} ${seed || '(unset)'}: expected an integer (the launch's seed, set by frontier run with ${RUN_VARIATION_ENV})`,
    );
  return ['--run-variation', cv, '--run-seed', String(nodeSeed(Number(seed), standInNode(env)))];
}
