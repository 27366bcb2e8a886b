/**
 * Everything `process_result.py` takes from the environment to describe one benchmark point,
 * read with the reference's checks, defaults and error texts, in the reference's order.
 */
import { PyFloat, loads, pyIntFromString } from '../pycompat/index.js';
import { ResultsError } from './errors.js';

export type Env = Record<string, string | undefined>;

/** A runtime component pinned by name and version (`ROUTER_METADATA`). */
export interface ComponentMetadata {
  name: string;
  version: string;
}

export interface SingleNodeTopology {
  kind: 'single-node';
  tp: number;
  ep: number;
  /** `DP_ATTENTION` as given (`"true"`/`"false"`): the reference copies the string. */
  dpAttention: string;
  pp: number;
  dcpSize: number;
  pcpSize: number;
}

/** One role of a multinode deployment (`PREFILL_*` or `DECODE_*`). */
export interface WorkerPool {
  numWorkers: number;
  tp: number;
  ep: number;
  /** `PREFILL_DP_ATTN`/`DECODE_DP_ATTN` as given. */
  dpAttention: string;
  pp: number;
  dcpSize: number;
  pcpSize: number;
}

export interface MultiNodeTopology {
  kind: 'multinode';
  /** GPUs of each role as the workflow exports them (`PREFILL_GPUS`, `DECODE_GPUS`; 0 decode GPUs: aggregated). */
  prefillGpus: number;
  decodeGpus: number;
  prefill: WorkerPool;
  decode: WorkerPool;
  /** Heterogeneous deployments: both `PREFILL_HARDWARE` and `DECODE_HARDWARE`. */
  hardware?: { prefill: string; decode: string };
}

export interface PointIdentity {
  /** `RUNNER_TYPE`: the runner label, recorded as `hw`. */
  hw: string;
  framework: string;
  precision: string;
  specDecoding: string;
  /** `RESULT_FILENAME`: the raw file is `<it>.json`, the aggregate `agg_<it>.json`. */
  resultFilename: string;
  isl: number;
  osl: number;
  disagg: boolean;
  modelPrefix: string;
  image: string;
  recipeFingerprint: string;
  router?: ComponentMetadata;
  kvP2pTransfer?: string;
  topology: SingleNodeTopology | MultiNodeTopology;
}

/** Checked first, before the raw file is opened. */
export const BASE_ENV = [
  'RUNNER_TYPE',
  'FRAMEWORK',
  'PRECISION',
  'SPEC_DECODING',
  'RESULT_FILENAME',
  'ISL',
  'OSL',
  'DISAGG',
  'MODEL_PREFIX',
  'IMAGE',
] as const;
const SINGLE_NODE_ENV = ['TP', 'EP_SIZE', 'DP_ATTENTION'];
const MULTINODE_ENV = [
  'PREFILL_GPUS',
  'DECODE_GPUS',
  'PREFILL_NUM_WORKERS',
  'PREFILL_TP',
  'PREFILL_EP',
  'PREFILL_DP_ATTN',
  'DECODE_NUM_WORKERS',
  'DECODE_TP',
  'DECODE_EP',
  'DECODE_DP_ATTN',
];

/** Unset variables (an empty string counts as set), named in the order given. */
export function requireEnv(env: Env, names: readonly string[]): void {
  const missing = names.filter((name) => env[name] === undefined);
  if (missing.length > 0) {
    throw new ResultsError(
      `Missing required environment variables: ${missing.join(', ')}`,
      'OSError',
      'export them as the InferenceX benchmark workflow does, or describe the point with a matrix row',
    );
  }
}

/** The reference's first check: the variables every point needs. */
export function checkBaseEnv(env: Env): void {
  requireEnv(env, BASE_ENV);
}

/** `ROUTER_METADATA`: unset, `""` or `"null"` means none; otherwise exactly `{"name", "version"}`, non-empty strings. */
function componentMetadata(env: Env, name: string): ComponentMetadata | undefined {
  const text = env[name];
  if (text === undefined || text === '' || text === 'null') return undefined;
  const hint = `${name} is JSON like {"name": "sglang-router", "version": "0.3.2"}`;
  let metadata: unknown;
  try {
    metadata = loads(text);
  } catch {
    throw new ResultsError(`${name} must contain valid JSON`, 'ValueError', hint);
  }
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata) || metadata instanceof PyFloat) {
    throw new ResultsError(`${name} must contain exactly 'name' and 'version'`, 'ValueError', hint);
  }
  const keys = Object.keys(metadata);
  if (keys.length !== 2 || !keys.includes('name') || !keys.includes('version')) {
    throw new ResultsError(`${name} must contain exactly 'name' and 'version'`, 'ValueError', hint);
  }
  if (!Object.values(metadata).every((v) => typeof v === 'string' && v !== '')) {
    throw new ResultsError(`${name} name and version must be non-empty strings`, 'ValueError', hint);
  }
  return metadata as ComponentMetadata;
}

/**
 * The identity of a point from the variables `process_result.py` reads. Throws a `ResultsError`
 * with the reference's message for everything the reference rejects.
 */
export function identityFromEnv(env: Env): PointIdentity {
  checkBaseEnv(env);
  const get = (name: string): string => env[name]!;
  const int = (name: string, fallback?: string): number => pyIntFromString(env[name] ?? fallback!, name);
  const disagg = get('DISAGG').toLowerCase() === 'true';
  const isl = int('ISL');
  const osl = int('OSL');
  const router = componentMetadata(env, 'ROUTER_METADATA');
  const kvP2pTransfer = env.KV_P2P_TRANSFER || undefined;
  const base = {
    hw: get('RUNNER_TYPE'),
    framework: get('FRAMEWORK'),
    precision: get('PRECISION'),
    specDecoding: get('SPEC_DECODING'),
    resultFilename: get('RESULT_FILENAME'),
    isl,
    osl,
    disagg,
    modelPrefix: get('MODEL_PREFIX'),
    image: get('IMAGE'),
    recipeFingerprint: env.RECIPE_FINGERPRINT ?? '',
    ...(router ? { router } : {}),
    ...(kvP2pTransfer ? { kvP2pTransfer } : {}),
  };

  if ((env.IS_MULTINODE ?? 'false').toLowerCase() === 'true') {
    // Multinode never checks DISAGG: aggregated multinode arms run with DISAGG=true.
    requireEnv(env, MULTINODE_ENV);
    const prefillHardware = env.PREFILL_HARDWARE ?? '';
    const decodeHardware = env.DECODE_HARDWARE ?? '';
    if (!prefillHardware !== !decodeHardware) {
      throw new ResultsError(
        'PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.',
        'ValueError',
        'set both (heterogeneous deployment) or neither',
      );
    }
    const prefillGpus = int('PREFILL_GPUS');
    const decodeGpus = int('DECODE_GPUS');
    const pool = (role: 'PREFILL' | 'DECODE'): WorkerPool => {
      const numWorkers = int(`${role}_NUM_WORKERS`);
      const tp = int(`${role}_TP`);
      const pp = int(`${role}_PP_SIZE`, '1');
      const dcpSize = int(`${role}_DCP_SIZE`, '1');
      const pcpSize = int(`${role}_PCP_SIZE`, '1');
      const ep = int(`${role}_EP`);
      return { numWorkers, tp, ep, dpAttention: get(`${role}_DP_ATTN`), pp, dcpSize, pcpSize };
    };
    const prefill = pool('PREFILL');
    const decode = pool('DECODE');
    if ([prefill, decode].some((p) => p.pp <= 0 || p.dcpSize <= 0 || p.pcpSize <= 0)) {
      throw new ResultsError('Multinode PP, DCP, and PCP sizes must be positive integers.', 'ValueError', undefined);
    }
    if (prefillGpus + decodeGpus <= 0) {
      throw new ResultsError('Multinode results require at least one GPU.', 'ValueError', 'PREFILL_GPUS + DECODE_GPUS is 0');
    }
    if (prefillGpus <= 0) {
      throw new ResultsError('Multinode results require at least one prefill GPU.', 'ValueError', 'PREFILL_GPUS must be > 0');
    }
    const hardware = prefillHardware ? { hardware: { prefill: prefillHardware, decode: decodeHardware } } : {};
    return { ...base, topology: { kind: 'multinode', prefillGpus, decodeGpus, prefill, decode, ...hardware } };
  }

  if (disagg) {
    throw new ResultsError(
      'Disaggregated mode requires multinode setup.',
      'ValueError',
      'set IS_MULTINODE=true for a multinode point, or DISAGG=false',
    );
  }
  requireEnv(env, SINGLE_NODE_ENV);
  const tp = int('TP');
  const ep = int('EP_SIZE');
  const dpAttention = get('DP_ATTENTION');
  const pp = int('PP_SIZE', '1');
  const dcpSize = int('DCP_SIZE', '1');
  const pcpSize = int('PCP_SIZE', '1');
  if (pp <= 0 || dcpSize <= 0 || pcpSize <= 0) {
    throw new ResultsError('PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.', 'ValueError', undefined);
  }
  return { ...base, topology: { kind: 'single-node', tp, ep, dpAttention, pp, dcpSize, pcpSize } };
}
