/**
 * What process_agentic_result.py takes from the environment to describe one agentic point, read
 * with its defaults, checks and messages, in its order (KV offload, then the GPU shape, then the
 * rest). A refusal is a UserError naming the variable, with the fix in its hint.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isDict, loads } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';

export type AgenticEnv = Record<string, string | undefined>;

/** A runtime component pinned by name and version (`ROUTER_METADATA`). */
export interface AgenticComponent {
  name: string;
  version: string;
}

/** `KV_OFFLOAD_BACKEND_METADATA`: a name and an optional version, in the order given. */
export type KvOffloadBackend = { name: string; version?: string };

/** The GPU-shape fields the aggregate carries after `dp_attention` (pp/dcp/pcp, or the prefill/decode set). */
export type ShapeFields = Record<string, number | string>;

export interface AgenticContext {
  runnerType: string;
  conc: number;
  image: string;
  recipeFingerprint: string;
  model: string;
  modelPrefix: string;
  framework: string;
  precision: string;
  specDecoding: string;
  disagg: boolean;
  isMultinode: boolean;
  tp: number;
  ep: number;
  /** `DP_ATTENTION` as given, or "true"/"false" from the prefill/decode pair on multinode. */
  dpAttention: string;
  /** The GPUs the per-GPU throughput divides by. */
  numGpus: number;
  shapeFields: ShapeFields;
  kvOffloading: string;
  kvOffloadBackend: KvOffloadBackend | null;
  allocatedCpuDramGb: number;
  router: AgenticComponent | null;
  kvP2pTransfer: string | null;
  /**
   * The Hugging Face hub cache the reference searches for the replayed traces (expected output
   * lengths): HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub.
   */
  hfHubCache: string;
}

const fail = (message: string, hint: string): never => {
  throw new UserError(message, { hint });
};

const blank = (v: string | undefined): v is undefined | '' => v === undefined || v === '';

/** Python's int() of a variable's text. */
function intOf(env: AgenticEnv, name: string, text: string): number {
  const s = text.trim().replaceAll('_', '');
  if (!/^[+-]?\d+$/.test(s) || /__|^_|_$/.test(text.trim())) {
    fail(`${name} must be an integer: invalid literal for int() with base 10: '${text}'`, `set ${name} to a whole number`);
  }
  const n = Number(s);
  if (!Number.isSafeInteger(n)) fail(`${name} is ${text}: too large`, `set ${name} to a whole number below 2^53`);
  return n;
}

function envInt(env: AgenticEnv, name: string, fallback = 0): number {
  const v = env[name];
  return blank(v) ? fallback : intOf(env, name, v);
}

function envBool(env: AgenticEnv, name: string, fallback = false): boolean {
  const v = env[name];
  if (blank(v)) return fallback;
  return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

function requiredEnv(env: AgenticEnv, name: string): string {
  const v = env[name];
  if (blank(v)) fail(`Missing required environment variable: ${name}`, `set ${name} (as the matrix row's field gives it)`);
  return v!;
}

function parseJson(env: AgenticEnv, name: string): unknown {
  try {
    return loads(env[name]!);
  } catch {
    return fail(`${name} must contain valid JSON`, `set ${name} to a JSON object such as {"name": "…", "version": "…"}`);
  }
}

const nonEmptyStrings = (o: Record<string, unknown>): boolean => Object.values(o).every((v) => typeof v === 'string' && v !== '');

function componentMetadata(env: AgenticEnv, name: string): AgenticComponent | null {
  const raw = env[name];
  if (blank(raw) || raw === 'null') return null;
  const value = parseJson(env, name);
  const hint = `set ${name} to {"name": "…", "version": "…"}, or leave it empty`;
  const keys = isDict(value) ? Object.keys(value) : [];
  if (!isDict(value) || keys.length !== 2 || !keys.includes('name') || !keys.includes('version')) {
    fail(`${name} must contain exactly 'name' and 'version'`, hint);
  }
  if (!nonEmptyStrings(value as Record<string, unknown>)) fail(`${name} name and version must be non-empty strings`, hint);
  return value as unknown as AgenticComponent;
}

function kvOffloadBackendMetadata(env: AgenticEnv, name: string): KvOffloadBackend | null {
  const raw = env[name];
  if (blank(raw) || raw === 'null') return null;
  const value = parseJson(env, name);
  const hint = `set ${name} to {"name": "…"} or {"name": "…", "version": "…"}`;
  const keys = isDict(value) ? Object.keys(value) : [];
  if (!isDict(value) || !keys.every((k) => k === 'name' || k === 'version'))
    fail(`${name} may contain only 'name' and 'version'`, hint);
  if (!keys.includes('name')) fail(`${name} must contain 'name' and optional 'version'`, hint);
  if (!nonEmptyStrings(value as Record<string, unknown>)) fail(`${name} values must be non-empty strings`, hint);
  return value as unknown as KvOffloadBackend;
}

function kvOffload(env: AgenticEnv): [string, KvOffloadBackend | null] {
  const kvOffloading = requiredEnv(env, 'KV_OFFLOADING');
  const backendName = env.KV_OFFLOAD_BACKEND ?? '';
  const backend = kvOffloadBackendMetadata(env, 'KV_OFFLOAD_BACKEND_METADATA');
  if (kvOffloading === 'none') {
    if (backendName !== '' || backend !== null) {
      fail(
        'KV_OFFLOAD_BACKEND must be empty when KV_OFFLOADING=none',
        'unset KV_OFFLOAD_BACKEND and KV_OFFLOAD_BACKEND_METADATA, or set KV_OFFLOADING',
      );
    }
  } else {
    if (backendName === '' || backendName === 'none' || backend === null) {
      fail(
        'KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled',
        'set KV_OFFLOAD_BACKEND and KV_OFFLOAD_BACKEND_METADATA (e.g. lmcache and {"name": "lmcache"})',
      );
    }
    if (backend!.name !== backendName) {
      fail('KV_OFFLOAD_BACKEND must match KV_OFFLOAD_BACKEND_METADATA.name', 'give the same backend name in both variables');
    }
  }
  return [kvOffloading, backend];
}

interface GpuShape {
  fields: ShapeFields;
  numGpus: number;
  tp: number;
  ep: number;
  dpAttention: string;
}

/** `_gpu_shape()`: the parallelism fields and the GPU count of a single-node or multinode point. */
export function gpuShape(env: AgenticEnv): GpuShape {
  const isMultinode = envBool(env, 'IS_MULTINODE');
  const tp = envInt(env, 'TP', 1);
  const ep = envInt(env, 'EP_SIZE', 1);
  const dpAttention = env.DP_ATTENTION ?? 'false';
  if (!isMultinode) {
    const pp = envInt(env, 'PP_SIZE', 1);
    const dcp = envInt(env, 'DCP_SIZE', 1);
    const pcp = envInt(env, 'PCP_SIZE', 1);
    if (pp <= 0 || dcp <= 0 || pcp <= 0) {
      fail('PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.', 'set PP_SIZE, DCP_SIZE and PCP_SIZE to 1 or more');
    }
    return { fields: { pp, dcp_size: dcp, pcp_size: pcp }, numGpus: tp * pp * pcp, tp, ep, dpAttention };
  }
  const pNum = envInt(env, 'PREFILL_NUM_WORKERS');
  const pTp = envInt(env, 'PREFILL_TP');
  const pPp = envInt(env, 'PREFILL_PP_SIZE', 1);
  const pDcp = envInt(env, 'PREFILL_DCP_SIZE', 1);
  const pPcp = envInt(env, 'PREFILL_PCP_SIZE', 1);
  const pEp = envInt(env, 'PREFILL_EP', 1);
  const pDpAttn = env.PREFILL_DP_ATTN ?? 'false';
  const dNum = envInt(env, 'DECODE_NUM_WORKERS');
  let dTp = envInt(env, 'DECODE_TP');
  let dPp = envInt(env, 'DECODE_PP_SIZE', 1);
  let dDcp = envInt(env, 'DECODE_DCP_SIZE', 1);
  let dPcp = envInt(env, 'DECODE_PCP_SIZE', 1);
  let dEp = envInt(env, 'DECODE_EP', 1);
  const dDpAttn = env.DECODE_DP_ATTN ?? 'false';
  if ([pPp, pDcp, pPcp, dPp, dDcp, dPcp].some((v) => v <= 0)) {
    fail(
      'Multinode PP, DCP, and PCP sizes must be positive integers.',
      'set the PREFILL_/DECODE_ PP_SIZE, DCP_SIZE and PCP_SIZE to 1 or more',
    );
  }
  const prefillHw = env.PREFILL_HARDWARE ?? '';
  const decodeHw = env.DECODE_HARDWARE ?? '';
  if ((prefillHw === '') !== (decodeHw === '')) {
    fail(
      'PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.',
      'set both PREFILL_HARDWARE and DECODE_HARDWARE, or neither',
    );
  }
  const numPrefillGpu = pNum * pTp * pPp * pPcp;
  const numDecodeGpu = dNum * dTp * dPp * dPcp;
  // Aggregated configs set decode workers to 0: the decode-side parallelism is dropped so the
  // single co-located worker's GPUs are not counted twice (as process_result.py does).
  if (numDecodeGpu <= 0) {
    dTp = 0;
    dEp = 0;
    dPp = 1;
    dDcp = 1;
    dPcp = 1;
  }
  const fields: ShapeFields = {
    prefill_num_workers: pNum,
    prefill_tp: pTp,
    prefill_pp: pPp,
    prefill_dcp_size: pDcp,
    prefill_pcp_size: pPcp,
    prefill_ep: pEp,
    prefill_dp_attention: pDpAttn,
    num_prefill_gpu: numPrefillGpu,
    decode_num_workers: dNum,
    decode_tp: dTp,
    decode_pp: dPp,
    decode_dcp_size: dDcp,
    decode_pcp_size: dPcp,
    decode_ep: dEp,
    decode_dp_attention: dDpAttn,
    num_decode_gpu: numDecodeGpu,
  };
  if (prefillHw !== '') {
    fields.prefill_hw = prefillHw;
    fields.decode_hw = decodeHw;
  }
  return {
    fields,
    numGpus: numPrefillGpu + numDecodeGpu,
    tp: pTp + dTp,
    ep: Math.max(pEp, dEp),
    dpAttention: envBool(env, 'PREFILL_DP_ATTN') || envBool(env, 'DECODE_DP_ATTN') ? 'true' : 'false',
  };
}

function hfHubCache(env: AgenticEnv): string {
  const hub = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE;
  if (hub) return hub;
  return env.HF_HOME ? join(env.HF_HOME, 'hub') : join(env.HOME || homedir(), '.cache', 'huggingface', 'hub');
}

/** The context of an agentic point from an environment, checked as the reference checks it. */
export function agenticContextFromEnv(env: AgenticEnv): AgenticContext {
  const [kvOffloading, kvOffloadBackend] = kvOffload(env);
  const shape = gpuShape(env);
  const conc = intOf(env, 'CONC', env.CONC ?? '0');
  const allocatedCpuDramGb = envInt(env, 'TOTAL_CPU_DRAM_GB');
  const router = componentMetadata(env, 'ROUTER_METADATA');
  return {
    runnerType: env.RUNNER_TYPE ?? '',
    conc,
    image: env.IMAGE ?? '',
    recipeFingerprint: env.RECIPE_FINGERPRINT ?? '',
    model: env.MODEL ?? '',
    modelPrefix: env.MODEL_PREFIX ?? '',
    framework: env.FRAMEWORK ?? '',
    precision: env.PRECISION ?? '',
    specDecoding: env.SPEC_DECODING ?? 'none',
    disagg: envBool(env, 'DISAGG'),
    isMultinode: envBool(env, 'IS_MULTINODE'),
    tp: shape.tp,
    ep: shape.ep,
    dpAttention: shape.dpAttention,
    numGpus: shape.numGpus,
    shapeFields: shape.fields,
    kvOffloading,
    kvOffloadBackend,
    allocatedCpuDramGb,
    router,
    kvP2pTransfer: env.KV_P2P_TRANSFER ? env.KV_P2P_TRANSFER : null,
    hfHubCache: hfHubCache(env),
  };
}
