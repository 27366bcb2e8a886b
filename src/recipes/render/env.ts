import type { WorkerMode } from '../topology.js';
import { PORTS, host, ip } from './processes.js';
import type { Nodes, Process } from './processes.js';
import { RenderError, formatMap } from './python.js';
import { ROLE_KEY } from './workers.js';
import type { Job } from './workers.js';

/** Worker and frontend environments (cli/mixins/worker_stage.py, frontends/dynamo.py). */

type Obj = Record<string, unknown>;
type Env = Record<string, string>;

const DEFAULT_DYN_LOG = 'info,dynamo_runtime::pipeline::network::ingress::push_handler=warn';

/** A recipe environment map: srtctl's schema takes strings only. */
export function envMap(value: unknown, where: string): Env {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new RenderError(`${where}: must be a mapping`);
  const out: Env = {};
  for (const [k, v] of Object.entries(value as Obj)) {
    if (typeof v !== 'string') throw new RenderError(`${where}.${k}: Not a valid string.`);
    out[k] = v;
  }
  return out;
}

export interface EnvContext {
  recipe: Obj;
  job: Job;
  nodes: Nodes;
  gpusPerNode: number;
}

/** `dynamo.wheel` staging variables, then the recipe's top-level `environment`. */
export function runtimeEnvironment(recipe: Obj): Env {
  const dynamo = (recipe.dynamo ?? {}) as Obj;
  const env: Env = {};
  const wheel = dynamo.wheel;
  if (typeof wheel === 'string' && wheel !== '') {
    env.DYNAMO_WHEEL_NAME = `ai_dynamo-${wheel}-py3-none-any.whl`;
    env.DYNAMO_VERSION = wheel;
  }
  return { ...env, ...envMap(recipe.environment, 'environment') };
}

function common(ctx: EnvContext, process: Process, requestPlane: boolean): Env {
  const dynamo = (ctx.recipe.dynamo ?? {}) as Obj;
  const env: Env = {
    HEAD_NODE_IP: ip(ctx.nodes.head),
    ETCD_ENDPOINTS: `http://${host(ctx.nodes.infra)}:${PORTS.etcd}`,
    NATS_SERVER: `nats://${host(ctx.nodes.infra)}:${PORTS.nats}`,
    DYN_SYSTEM_PORT: String(process.sysPort),
  };
  if (requestPlane) env.DYN_REQUEST_PLANE = ctx.job.requestPlane;
  env.DYN_SKIP_SGLANG_LOG_FORMATTING = '1';
  if (typeof dynamo.event_plane === 'string' && dynamo.event_plane) env.DYN_EVENT_PLANE = dynamo.event_plane;
  env.DYN_LOG = DEFAULT_DYN_LOG;
  return env;
}

function modeEnv(job: Job, mode: WorkerMode): Env {
  const key = `${ROLE_KEY[mode]}_environment`;
  return envMap(job.backend[key], `backend.${key}`);
}

function mooncake(ctx: EnvContext, node: number): Env {
  const store = ctx.job.backend.mooncake_kv_store;
  if (store === undefined || store === null || ctx.job.backendType === 'trtllm') return {};
  const infra = ip(ctx.nodes.infra);
  const env: Env = {
    MOONCAKE_LOCAL_HOSTNAME: ip(node),
    ...envMap((store as Obj).env, 'backend.mooncake_kv_store.env'),
    MOONCAKE_MASTER: `${infra}:${PORTS.mooncakeMaster}`,
    MOONCAKE_TE_META_DATA_SERVER: `http://${infra}:${PORTS.mooncakeMetadata}/metadata`,
  };
  if (ctx.job.backendType === 'vllm') env.MOONCAKE_CONFIG_PATH = '/logs/mooncake_store_config.json';
  return env;
}

/** KVBM leader sockets: the leader's address on multi-node endpoints, per-endpoint ports. */
function kvbm(env: Env, endpoint: Process[]): void {
  if ((env.DYN_CONNECTOR ?? '').toLowerCase() !== 'kvbm' || endpoint.length === 0) return;
  const leader = endpoint[0]!;
  if (new Set(endpoint.map((p) => p.node)).size > 1) env.DYN_KVBM_LEADER_ZMQ_HOST ??= ip(leader.node);
  if (leader.kvEventsPort === null) return;
  const pub = PORTS.kvbmZmq + Math.max(0, leader.kvEventsPort - PORTS.kvEvents) * 2;
  if (pub + 1 <= 65535) {
    env.DYN_KVBM_LEADER_ZMQ_PUB_PORT ??= String(pub);
    env.DYN_KVBM_LEADER_ZMQ_ACK_PORT ??= String(pub + 1);
  }
}

function vllmProcessEnv(process: Process): Env {
  const env: Env = {};
  if (process.kvEventsPort !== null) env.DYN_VLLM_KV_EVENT_PORT = String(process.kvEventsPort);
  if (process.nixlPort !== null) {
    env.VLLM_NIXL_SIDE_CHANNEL_PORT = String(process.nixlPort);
    env.VLLM_NIXL_SIDE_CHANNEL_HOST = ip(process.node);
  }
  env.VLLM_PORT = String(PORTS.vllmPortBase + Math.max(process.sysPort - PORTS.dynSystem, 0) * PORTS.vllmPortStride);
  return env;
}

/** One srun per process (SGLang, vLLM): `{node}`/`{node_id}` templates are filled in. */
export function processEnv(ctx: EnvContext, process: Process, endpoint: Process[]): Env {
  const env = common(ctx, process, true);
  const vars = { node: host(process.node), node_id: String(ctx.nodes.worker.indexOf(process.node)) };
  const mode = ROLE_KEY[process.mode];
  for (const [k, v] of Object.entries(modeEnv(ctx.job, process.mode)))
    env[k] = formatMap(v, vars, `backend.${mode}_environment.${k}`);
  for (const [k, v] of Object.entries(runtimeEnvironment(ctx.recipe))) env[k] = formatMap(v, vars, `environment.${k}`);
  const setCvd = ctx.job.backendType !== 'vllm' || ctx.job.backend.set_cuda_visible_devices === true;
  if (setCvd && process.gpus.length < ctx.gpusPerNode) env.CUDA_VISIBLE_DEVICES = process.gpus.join(',');
  if (ctx.job.backendType === 'vllm') Object.assign(env, vllmProcessEnv(process));
  Object.assign(env, mooncake(ctx, process.node));
  kvbm(env, endpoint);
  return env;
}

/** One srun per endpoint (TRT-LLM's MPI launch): no templating, no request-plane variable. */
export function endpointEnv(ctx: EnvContext, endpoint: Process[]): Env {
  const leader = endpoint[0]!;
  const env = common(ctx, leader, false);
  Object.assign(env, modeEnv(ctx.job, leader.mode), { TRTLLM_EPLB_SHM_NAME: 'moe_shared_{uuid}' });
  Object.assign(env, runtimeEnvironment(ctx.recipe));
  if (leader.gpus.length < ctx.gpusPerNode) env.CUDA_VISIBLE_DEVICES = leader.gpus.join(',');
  kvbm(env, endpoint);
  return env;
}
