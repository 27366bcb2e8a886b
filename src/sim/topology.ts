import { topologyLabel } from '../contract/index.js';
import type { TopologyRole, TopologyShape } from '../contract/index.js';
import { findHardware, findModel } from './catalog.js';
import type { Precision } from './catalog.js';
import type { PoolSpec, Topology } from './cluster.js';
import { DEFAULT_CACHE, DEFAULT_LIMITS } from './instance.js';
import type { CacheOptions, SchedulerLimits } from './instance.js';
import { SimConfigError, engineSpec } from './perf.js';
import type { EngineSpec, Efficiency } from './perf.js';
import { shippedProfile, resolveEfficiency, schedulingPolicy } from './profile.js';
import { scaledEfficiency } from './run-variation.js';
import type { EfficiencyProfile } from './profile.js';

/** Parallelism of one pool; unset fields fall back to the deployment-wide ones. */
export interface PoolOptions {
  tp?: number | undefined;
  ep?: number | undefined;
  dpAttn?: boolean | undefined;
}

/** Everything that selects a simulated deployment (what `frontier sim serve` takes). */
export interface DeploymentOptions extends PoolOptions {
  model: string;
  hardware: string;
  precision: Precision;
  /**
   * The serving framework as InferenceX's master configs name it (`vllm`, `sglang`, `trt`,
   * `atom`, `dynamo-trt`, `mori-sglang`…): selects the efficiency profile and scheduling policy
   * calibrated for it on this hardware (profile.ts). Default: vllm.
   */
  engine?: string | undefined;
  pp?: number | undefined;
  /** Aggregated replicas (ignored when prefill/decode workers are given). */
  workers?: number | undefined;
  prefillWorkers?: number | undefined;
  decodeWorkers?: number | undefined;
  prefill?: PoolOptions | undefined;
  decode?: PoolOptions | undefined;
  kvCacheDtype?: 'bf16' | 'fp8' | undefined;
  gpuMemoryUtilization?: number | undefined;
  speculative?: EngineSpec['speculative'];
  /** The efficiency profile the factors come from (default: the shipped one, fitted from published measurements). */
  profile?: EfficiencyProfile | undefined;
  /** Factors that override the profile's. */
  efficiency?: Partial<Efficiency> | undefined;
  limits?: Partial<SchedulerLimits> | undefined;
  /** Automatic prefix caching (default on, as in vLLM). */
  prefixCaching?: boolean | undefined;
  /**
   * Host DRAM for KV offload over the whole deployment, decimal GB (what InferenceX's
   * TOTAL_CPU_DRAM_GB gives); split evenly over the instances that prefill. Default 0: none.
   */
  kvOffloadDramGB?: number | undefined;
  /** GPU ↔ host bandwidth per GPU, GB/s one direction, as reached (default: the hardware's link × network efficiency). */
  hostLinkGBps?: number | undefined;
  /**
   * This launch's performance factor (run-variation.ts): the compute and memory efficiencies are
   * scaled by it, after any override. Default 1: the model as calibrated.
   */
  performanceFactor?: number | undefined;
}

export const DEFAULT_DEPLOYMENT: DeploymentOptions = { model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' };

export function buildTopology(options: DeploymentOptions): Topology {
  const model = findModel(options.model);
  const hardware = findHardware(options.hardware);
  const limits: SchedulerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new SimConfigError(`${name} must be a positive integer, got ${value}`);
  }
  const dramGB = options.kvOffloadDramGB ?? 0;
  if (!Number.isFinite(dramGB) || dramGB < 0)
    throw new SimConfigError(`the KV offload DRAM must be a non-negative number of GB, got ${dramGB}`);
  if (options.hostLinkGBps !== undefined && !(options.hostLinkGBps > 0))
    throw new SimConfigError(`the host link bandwidth must be positive (GB/s), got ${options.hostLinkGBps}`);
  if (dramGB > 0 && options.prefixCaching === false)
    throw new SimConfigError('a KV offload DRAM tier holds prefix-cache blocks: it needs prefix caching on');
  const cacheFor = (workers: number, dram: boolean): CacheOptions => ({
    prefixCaching: options.prefixCaching ?? DEFAULT_CACHE.prefixCaching,
    dramBytes: dram ? (dramGB * 1e9) / workers : 0,
    hostLinkGBps: options.hostLinkGBps,
  });
  const factor = options.performanceFactor ?? 1;
  if (!(Number.isFinite(factor) && factor > 0))
    throw new SimConfigError(`the performance factor must be a positive number, got ${factor}`);
  const efficiency = scaledEfficiency(
    {
      ...resolveEfficiency(options.profile ?? shippedProfile(), { hardware, engine: options.engine, model }),
      ...options.efficiency,
    },
    factor,
  );
  const policy = schedulingPolicy(options.engine);
  const pool = (workers: number, own: PoolOptions = {}, dram = true): PoolSpec => {
    if (!Number.isInteger(workers) || workers < 1) throw new SimConfigError(`workers must be a positive integer, got ${workers}`);
    const engine = engineSpec({
      model,
      hardware,
      precision: options.precision,
      tp: own.tp ?? options.tp,
      ep: own.ep ?? options.ep,
      dpAttn: own.dpAttn ?? options.dpAttn,
      pp: options.pp,
      kvCacheDtype: options.kvCacheDtype,
      gpuMemoryUtilization: options.gpuMemoryUtilization,
      speculative: options.speculative,
      efficiency,
      policy,
    });
    return { engine, limits, workers, cache: cacheFor(workers, dram) };
  };
  const { prefillWorkers, decodeWorkers } = options;
  if (prefillWorkers === undefined && decodeWorkers === undefined)
    return { kind: 'aggregated', pool: pool(options.workers ?? 1) };
  if (prefillWorkers === undefined || decodeWorkers === undefined) {
    throw new SimConfigError('a disaggregated deployment needs both --prefill-workers and --decode-workers');
  }
  return {
    kind: 'disaggregated',
    prefill: pool(prefillWorkers, options.prefill),
    decode: pool(decodeWorkers, options.decode, false),
  };
}

/** The simulated deployment's topology, for its label. */
function shapeOf(t: Topology): TopologyShape {
  const role = (e: EngineSpec): TopologyRole => {
    const { tp, ep, dpAttn, pp } = e.parallelism;
    return { tp, ep, dpAttn, pp };
  };
  if (t.kind === 'aggregated') return { kind: 'aggregated', workers: t.pool.workers, role: role(t.pool.engine) };
  return {
    kind: 'disaggregated',
    prefillWorkers: t.prefill.workers,
    decodeWorkers: t.decode.workers,
    prefill: role(t.prefill.engine),
    decode: role(t.decode.engine),
  };
}

/** "DeepSeek-R1 fp8 on H200: TP8", "… 2×TP8" or "… 1P2D TP4/DEP8". */
export function describeTopology(t: Topology): string {
  const e = t.kind === 'aggregated' ? t.pool.engine : t.prefill.engine;
  return `${e.model.name} ${e.precision} on ${e.hardware.name}: ${topologyLabel(shapeOf(t))}`;
}
