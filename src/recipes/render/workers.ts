import type { WorkerMode } from '../topology.js';
import { PORTS, ip } from './processes.js';
import type { Process } from './processes.js';
import { byCodePoint, dumps } from '../../pycompat/index.js';
import type { FloatTest } from '../../pycompat/index.js';
import { RenderError, flagStr } from './python.js';

/** Worker command lines as srtctl's backends build them (backends/sglang.py, trtllm.py, vllm.py). */

type Obj = Record<string, unknown>;

export interface Job {
  backendType: 'sglang' | 'vllm' | 'trtllm';
  backend: Obj;
  frontendType: string;
  /** `/model`, the staged path, or the HF id. */
  modelArg: string;
  /** `Path(model.path).name`: the default served model name. */
  modelName: string;
  requestPlane: string;
  gpuType: string;
  isFloat: FloatTest;
}

export const ROLE_KEY: Record<WorkerMode, 'prefill' | 'decode' | 'aggregated'> = {
  prefill: 'prefill',
  decode: 'decode',
  agg: 'aggregated',
};

/** A copy of the mode's engine flags (`<type>_config.<role>`), in the recipe's order. */
export function modeConfig(job: Job, mode: WorkerMode): Obj {
  const section = job.backend[`${job.backendType}_config`];
  const flags = section && typeof section === 'object' ? (section as Obj)[ROLE_KEY[mode]] : undefined;
  return flags && typeof flags === 'object' ? { ...(flags as Obj) } : {};
}

function pop(config: Obj, key: string): unknown {
  const v = config[key];
  delete config[key];
  return v;
}

/** `_config_to_cli_args`: sorted keys, `_` → `-`, true → bare flag, lists spread, None/false dropped. */
export function configArgs(job: Job, mode: WorkerMode, config: Obj): string[] {
  const base = ['backend', `${job.backendType}_config`, ROLE_KEY[mode]];
  const args: string[] = [];
  for (const key of Object.keys(config).sort(byCodePoint)) {
    const value = config[key];
    const flag = `--${key.replace(/_/g, '-')}`;
    if (typeof value === 'boolean') {
      if (value) args.push(flag);
    } else if (Array.isArray(value)) {
      args.push(flag, ...value.map((v, i) => flagStr(v, job.isFloat, [...base, key, String(i)])));
    } else if (value !== null && value !== undefined) {
      args.push(flag, flagStr(value, job.isFloat, [...base, key]));
    }
  }
  return args;
}

/** `get_served_model_name`: the first served-model-name of prefill, aggregated, decode. */
export function servedModelName(job: Job): string {
  for (const mode of ['prefill', 'agg', 'decode'] as const) {
    const c = modeConfig(job, mode);
    const name = c['served-model-name'] || c.served_model_name;
    if (name) return flagStr(name);
  }
  return job.modelName;
}

type KvEvents = Record<string, unknown>;

function kvEventsConfig(job: Job, mode: WorkerMode, defaults: KvEvents): KvEvents | undefined {
  const cfg = job.backend.kv_events_config;
  if (!cfg) return undefined;
  if (cfg === true) return mode === 'prefill' || mode === 'decode' ? { ...defaults } : undefined;
  if (typeof cfg !== 'object') return undefined;
  const own = (cfg as Obj)[ROLE_KEY[mode]];
  if (own === undefined || own === null) return undefined;
  if (own === true) return { ...defaults };
  if (typeof own === 'object' && !Array.isArray(own)) return { ...defaults, ...(own as Obj) };
  return undefined;
}

export interface WorkerContext {
  process: Process;
  /** The endpoint's processes, leader first. */
  endpoint: Process[];
  /** `{log_dir}/<node>_config.json`. */
  dumpConfig: string;
}

function endpointNodes(endpoint: Process[]): number[] {
  return [...new Set(endpoint.map((p) => p.node))];
}

export function sglangArgv(job: Job, { process, endpoint, dumpConfig }: WorkerContext): string[] {
  const mode = process.mode;
  const config = modeConfig(job, mode);
  for (const k of ['model-path', 'model_path', 'served-model-name', 'served_model_name', 'nccl-port', 'nccl_port'])
    delete config[k];
  const nodes = endpointNodes(endpoint);
  const useSglang = job.frontendType === 'sglang';
  const cmd = ['python3', '-m', useSglang ? 'sglang.launch_server' : 'dynamo.sglang'];
  cmd.push('--model-path', job.modelArg, '--served-model-name', servedModelName(job), '--host', '0.0.0.0');
  cmd.push('--port', String(process.httpPort), '--nccl-port', String(PORTS.sglangNccl + process.sysPort - PORTS.dynSystem));
  if (mode !== 'agg') {
    cmd.push('--disaggregation-mode', mode);
    if (mode === 'prefill' && process.bootstrapPort !== null)
      cmd.push('--disaggregation-bootstrap-port', String(process.bootstrapPort));
  }
  if (nodes.length > 1) {
    cmd.push('--dist-init-addr', `${ip(nodes[0]!)}:${PORTS.sglangDistInit}`);
    cmd.push('--nnodes', String(nodes.length), '--node-rank', String(nodes.indexOf(process.node)));
  }
  if (!useSglang) cmd.push('--dump-config-to', dumpConfig);
  const kv = kvEventsConfig(job, mode, { publisher: 'zmq', topic: 'kv-events' });
  if (kv && process.kvEventsPort !== null)
    cmd.push('--kv-events-config', dumps({ ...kv, endpoint: `tcp://*:${process.kvEventsPort}` }));
  if (!useSglang) cmd.push('--request-plane', job.requestPlane);
  return [...cmd, ...configArgs(job, mode, config)];
}

export function trtllmArgv(job: Job, { process }: WorkerContext): string[] {
  const mode = process.mode;
  if (job.frontendType === 'trtllm_serve') throw new RenderError('frontend.type: trtllm_serve is not rendered by Frontier yet');
  const bind = job.backend.numa_memory_bind;
  const numa =
    bind === undefined || bind === null
      ? (job.gpuType === 'gb200' || job.gpuType === 'gb300') && mode !== 'agg'
      : Boolean(bind) && mode !== 'agg';
  const cmd = [...(numa ? ['numactl', '-m', '0,1'] : []), 'trtllm-llmapi-launch'];
  cmd.push('python3', '-m', 'dynamo.trtllm', '--model-path', job.modelArg, '--served-model-name', job.modelName);
  if (mode !== 'agg') cmd.push('--disaggregation-mode', mode);
  cmd.push('--extra-engine-args', `/logs/trtllm_config_${mode}.yaml`, '--request-plane', job.requestPlane);
  if (job.backend.publish_events_and_metrics === true) cmd.push('--publish-events-and-metrics');
  return cmd;
}

const CONNECTORS: Record<string, Obj> = {
  nixl: { kv_connector: 'NixlConnector', kv_role: 'kv_both' },
  lmcache: { kv_connector: 'LMCacheConnectorV1', kv_role: 'kv_both' },
  kvbm: { kv_connector: 'DynamoConnector', kv_connector_module_path: 'kvbm.vllm_integration.connector', kv_role: 'kv_both' },
};

const has = (c: Obj, k: string): boolean => c[k] !== undefined && c[k] !== null;
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function vllmDpSize(job: Job, mode: WorkerMode): number | undefined {
  const c = modeConfig(job, mode);
  if (!has(c, 'data-parallel-size') && !has(c, 'data_parallel_size')) return undefined;
  return num(c['data-parallel-size']) || num(c.data_parallel_size);
}

export function vllmReplica(job: Job, mode: WorkerMode): number {
  const c = modeConfig(job, mode);
  const tp = num(c['tensor-parallel-size']) || num(c.tensor_parallel_size) || 1;
  const pp = num(c['pipeline-parallel-size']) || num(c.pipeline_parallel_size) || 1;
  return tp * pp;
}

const ORCHESTRATION = new Set(['headless', 'host', 'port', 'master-addr', 'nnodes', 'node-rank']);

function popNormalized(config: Obj, flags: Set<string>): void {
  for (const key of Object.keys(config)) if (flags.has(key.replace(/_/g, '-'))) delete config[key];
}

export function vllmArgv(job: Job, { process, endpoint, dumpConfig }: WorkerContext): string[] {
  const mode = process.mode;
  const config = modeConfig(job, mode);
  const nodes = endpointNodes(endpoint);
  const multi = nodes.length > 1;
  const leader = ip(nodes[0]!);
  const rank = nodes.indexOf(process.node);
  const setCvd = job.backend.set_cuda_visible_devices === true;
  const deviceIds = setCvd || process.gpus.length === 0 ? [] : ['--device-ids', process.gpus.join(',')];
  const cmd: string[] = [];
  if (job.frontendType === 'vllm') {
    if (mode !== 'agg') throw new RenderError('frontend.type: vllm supports aggregate vLLM jobs only');
    popNormalized(config, ORCHESTRATION);
    delete config.connector;
    if (!('served-model-name' in config)) config['served-model-name'] = servedModelName(job);
    cmd.push('vllm', 'serve', job.modelArg);
    if (rank === 0) cmd.push('--host', '0.0.0.0', '--port', String(PORTS.frontendPublic));
    if (multi) {
      cmd.push('--master-addr', leader, '--nnodes', String(nodes.length), '--node-rank', String(rank));
      if (rank > 0) {
        cmd.push('--headless');
        popNormalized(config, new Set(['api-server-count']));
      }
    }
    return [...cmd, ...deviceIds, ...configArgs(job, mode, config)];
  }
  cmd.push('python3', '-m', 'dynamo.vllm', '--model', job.modelArg, '--served-model-name', servedModelName(job));
  if (mode !== 'agg') cmd.push('--disaggregation-mode', mode);
  const own = pop(config, 'connector');
  const connector =
    own !== undefined && own !== null ? own : job.backend.connector === undefined ? 'nixl' : job.backend.connector;
  if (connector && connector !== 'null' && connector !== 'none') {
    if (typeof connector !== 'string') throw new RenderError(`connector must be a string (got ${flagStr(connector)})`);
    const preset = CONNECTORS[connector.toLowerCase()];
    cmd.push('--kv-transfer-config', preset ? dumps(preset) : connector);
  }
  cmd.push(...deviceIds);
  const dp = vllmDpSize(job, mode) !== undefined;
  const launch = job.backend.dp_launch_mode ?? 'per_node';
  if (dp && launch === 'per_node') {
    const kebab = pop(config, 'data-parallel-rpc-port');
    const snake = pop(config, 'data_parallel_rpc_port');
    const rpc = process.dpRpcPort || kebab || snake || PORTS.vllmDpRpc;
    for (const k of [
      'data-parallel-size-local',
      'data_parallel_size_local',
      'data-parallel-start-rank',
      'data_parallel_start_rank',
    ])
      delete config[k];
    for (const k of ['data-parallel-hybrid-lb', 'data_parallel_hybrid_lb', 'headless']) delete config[k];
    const replica = vllmReplica(job, mode);
    if (replica > process.gpus.length) {
      if (!multi) throw new RenderError('cross-node per_node DP requires a multi-node endpoint');
      cmd.push('--master-addr', leader, '--nnodes', String(nodes.length), '--node-rank', String(rank));
      cmd.push('--data-parallel-address', leader, '--data-parallel-rpc-port', flagStr(rpc));
      if (rank > 0) cmd.push('--headless');
    } else {
      cmd.push('--data-parallel-size-local', String(Math.floor(process.gpus.length / replica)));
      cmd.push('--data-parallel-start-rank', String(process.nodeRank), '--data-parallel-address', leader);
      cmd.push('--data-parallel-rpc-port', flagStr(rpc), '--data-parallel-hybrid-lb');
    }
  } else if (dp) {
    const kebab = config['data-parallel-rpc-port'];
    const snake = 'data_parallel_rpc_port' in config ? config.data_parallel_rpc_port : PORTS.vllmDpRpc;
    const rpc = process.dpRpcPort || kebab || snake;
    delete config['data-parallel-rpc-port'];
    delete config.data_parallel_rpc_port;
    cmd.push('--data-parallel-rank', String(process.nodeRank), '--data-parallel-address', leader);
    cmd.push('--data-parallel-rpc-port', flagStr(rpc));
  } else if (multi) {
    cmd.push('--master-addr', leader, '--nnodes', String(nodes.length), '--node-rank', String(rank));
    if (rank > 0) cmd.push('--headless');
  }
  cmd.push('--request-plane', job.requestPlane, '--dump-config-to', dumpConfig);
  const kv = kvEventsConfig(job, mode, { publisher: 'zmq', topic: 'kv-events', enable_kv_cache_events: true });
  if (kv && process.kvEventsPort !== null)
    cmd.push('--kv-events-config', dumps({ ...kv, endpoint: `tcp://*:${process.kvEventsPort}` }));
  return [...cmd, ...configArgs(job, mode, config)];
}
