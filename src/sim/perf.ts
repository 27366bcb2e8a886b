import type { Hardware, Model, Precision } from './catalog.js';
import { CatalogError } from './catalog.js';
import { UserError } from '../util/user-error.js';

/**
 * The performance model of one engine instance (model × hardware × precision × parallelism):
 * memory (weights and KV cache per GPU) and the time of one scheduler step from a roofline —
 * prefill compute-bound, decode memory-bound — plus TP/EP communication and a fixed overhead.
 * Pure: no I/O, no clock.
 */

/** How close the engine gets to the hardware's peaks. Named, documented, overridable. */
export interface Efficiency {
  /** Fraction of dense tensor-core peak reached by GEMMs and attention (model FLOPs utilisation). */
  compute: number;
  /** Fraction of HBM bandwidth reached when streaming weights and KV cache. */
  memory: number;
  /** Fraction of scale-up / scale-out link bandwidth reached by collectives and KV transfers. */
  network: number;
  /** Fixed cost of one step: scheduling, sampling, input preparation (ms). */
  stepOverheadMs: number;
  /** Cost per layer per step that does not shrink with the batch: kernel launches and small-kernel inefficiency (µs). */
  layerOverheadUs: number;
  /** Latency of one collective (all-reduce or all-to-all), independent of its size (µs). */
  collectiveLatencyUs: number;
  /** Per-GPU scale-out bandwidth (InfiniBand / RoCE NIC), one direction, GB/s: 400 Gb/s NICs. */
  scaleOutBandwidthGBps: number;
  /** Cost of drafting one speculative token, as a fraction of a decode step. */
  draftCostPerToken: number;
}

export const DEFAULT_EFFICIENCY: Efficiency = {
  compute: 0.45,
  memory: 0.8,
  network: 0.7,
  stepOverheadMs: 1,
  layerOverheadUs: 80,
  collectiveLatencyUs: 10,
  scaleOutBandwidthGBps: 50,
  draftCostPerToken: 0.05,
};

export interface Parallelism {
  tp: number;
  /** Expert parallelism of the MoE layers (1 for none; at most tp). */
  ep: number;
  /** Data-parallel attention: attention runs on tp independent ranks, each with its own batch and KV. */
  dpAttn: boolean;
  pp: number;
}

export interface EngineSpec {
  model: Model;
  hardware: Hardware;
  precision: Precision;
  parallelism: Parallelism;
  /** KV cache element type (fp8 halves the cache of a bf16 one). */
  kvCacheDtype: 'bf16' | 'fp8';
  /** Share of HBM the engine may use for weights and KV cache (vLLM `gpu-memory-utilization`). */
  gpuMemoryUtilization: number;
  /** HBM kept for activations and CUDA graphs, per GPU (GB). */
  activationReserveGB: number;
  /** Speculative decoding: draft tokens per step, and tokens accepted per step on average (≤ draft + 1). */
  speculative?: { draftTokens: number; acceptanceLength: number } | undefined;
  efficiency: Efficiency;
}

/** Bytes per weight: fp4 carries a one-byte scale per 16 (NVFP4) or 32 (MXFP4) values. */
const WEIGHT_BYTES: Record<Precision, number> = { bf16: 2, fp8: 1, fp4: 0.5625 };
const KV_BYTES = { bf16: 2, fp8: 1 } as const;
/** Activations travel in bf16 through collectives. */
const ACTIVATION_BYTES = 2;

export const gpusOf = (p: Parallelism): number => p.tp * p.pp;

/** Where a model's parameters are: what every token uses, and the routed experts it picks from. */
export interface ParameterSplit {
  /** Routed expert weights of all MoE layers. */
  expert: number;
  /** Everything else: attention, dense and shared-expert FFNs, embeddings, norms. */
  dense: number;
}

export function parameterSplit(model: Model): ParameterSplit {
  const total = model.totalParamsB * 1e9;
  if (!model.moe) return { expert: 0, dense: total };
  const moeLayers = model.layers - model.moe.denseLayers;
  const expert = moeLayers * model.moe.experts * 3 * model.hiddenSize * model.moe.expertIntermediateSize;
  // The configs and the model cards round differently; never let the experts exceed the total.
  const routed = Math.min(expert, total * 0.98);
  return { expert: routed, dense: total - routed };
}

/** Weight bytes each GPU holds. */
export function weightBytesPerGpu(spec: EngineSpec): number {
  const { tp, pp, dpAttn } = spec.parallelism;
  const split = parameterSplit(spec.model);
  const bytes = WEIGHT_BYTES[spec.precision];
  // Experts are spread over all tp GPUs (by expert or tensor parallelism alike); with
  // dp-attention the dense part (attention) is replicated on every rank.
  const dense = dpAttn ? split.dense : split.dense / tp;
  return ((dense + split.expert / tp) * bytes) / pp;
}

/** KV bytes of one token in one layer, for the whole model width. */
function kvBytesPerTokenLayer(spec: EngineSpec): number {
  const a = spec.model.attention;
  const bytes = KV_BYTES[spec.kvCacheDtype];
  if (a.type === 'mla') return ((a.kvLoraRank ?? 512) + (a.qkRopeHeadDim ?? 64)) * bytes;
  return 2 * a.kvHeads * a.headDim * bytes;
}

/**
 * KV bytes one token of context costs on one GPU that holds it. With tensor parallelism, GQA
 * heads are split across GPUs (replicated when there are fewer KV heads than GPUs); an MLA
 * latent is replicated on every GPU. With dp-attention a sequence lives on one rank only.
 */
export function kvBytesPerTokenPerGpu(spec: EngineSpec): { full: number; sliding: number } {
  const a = spec.model.attention;
  const { tp, pp, dpAttn } = spec.parallelism;
  const perLayer = kvBytesPerTokenLayer(spec);
  const share = a.type === 'gqa' && !dpAttn ? Math.ceil(a.kvHeads / tp) / a.kvHeads : 1;
  return { full: (perLayer * share * a.fullAttentionLayers) / pp, sliding: (perLayer * share * a.slidingWindowLayers) / pp };
}

export interface Memory {
  weightsGB: number;
  /** HBM left for the KV cache on each GPU. */
  kvCacheGB: number;
  /** KV bytes the whole instance can hold (over all dp-attention ranks). */
  kvCapacityBytes: number;
}

export class SimConfigError extends UserError {}

export function memory(spec: EngineSpec): Memory {
  const perGpu = spec.hardware.memoryGB * 1e9;
  const weights = weightBytesPerGpu(spec);
  const free = perGpu * spec.gpuMemoryUtilization - weights - spec.activationReserveGB * 1e9;
  if (free <= 0) {
    const need = (weights + spec.activationReserveGB * 1e9) / 1e9 / spec.gpuMemoryUtilization;
    throw new SimConfigError(
      `${spec.model.name} in ${spec.precision} needs ${(weights / 1e9).toFixed(1)} GB of weights per GPU with tp ${spec.parallelism.tp}: it does not fit on ${spec.hardware.id} (${spec.hardware.memoryGB} GB; at least ${need.toFixed(0)} GB needed). Use more GPUs (--tp) or a smaller precision.`,
    );
  }
  const ranks = spec.parallelism.dpAttn ? spec.parallelism.tp : 1;
  return { weightsGB: weights / 1e9, kvCacheGB: free / 1e9, kvCapacityBytes: free * ranks };
}

/** KV bytes a sequence of `tokens` tokens holds, summed over the GPUs of its rank (one GPU's worth per shard). */
export function sequenceKvBytes(spec: EngineSpec, tokens: number): number {
  const kv = kvBytesPerTokenPerGpu(spec);
  const window = spec.model.attention.slidingWindow ?? tokens;
  return tokens * kv.full + Math.min(tokens, window) * kv.sliding;
}

/** What one scheduler step computes. */
export interface StepLoad {
  /** Prompt tokens computed this step (chunks of one or more prefills). */
  prefillTokens: number;
  /** Σ over prefill chunks of chunk × (tokens before it + chunk / 2): the attention work of causal prefill. */
  prefillAttention: number;
  /** Σ over prefill chunks of the context they attend to (tokens before them + the chunk): the KV they read. */
  prefillContext: number;
  /** Sequences decoding this step. */
  decodeSeqs: number;
  /** Σ of their context lengths. */
  decodeContext: number;
}

export interface StepTime {
  ms: number;
  computeMs: number;
  memoryMs: number;
  commMs: number;
  overheadMs: number;
}

export function hardwareTflops(spec: EngineSpec): number {
  const tflops = spec.hardware.denseTflops[spec.precision];
  if (tflops === null || tflops === undefined) {
    throw new CatalogError(`${spec.hardware.id} has no ${spec.precision} tensor cores; choose another precision or hardware`);
  }
  return tflops;
}

/** Tokens one decoding sequence computes per step: itself plus its draft tokens. */
export const verifyTokens = (spec: EngineSpec): number => 1 + (spec.speculative?.draftTokens ?? 0);

/** The time of one step: max(compute, memory) + communication + overhead. */
export function stepTime(spec: EngineSpec, load: StepLoad): StepTime {
  const { model, hardware, efficiency: eff } = spec;
  const { tp, ep, dpAttn } = spec.parallelism;
  const gpus = gpusOf(spec.parallelism);
  const a = model.attention;
  const verify = verifyTokens(spec);
  const decodeTokens = load.decodeSeqs * verify;
  const tokens = load.prefillTokens + decodeTokens;
  if (tokens === 0) return { ms: 0, computeMs: 0, memoryMs: 0, commMs: 0, overheadMs: 0 };

  // Compute: 2 FLOPs per active parameter per token, plus attention over the context.
  const qWidth = a.type === 'mla' ? a.heads * ((a.kvLoraRank ?? 512) + (a.qkRopeHeadDim ?? 64)) : a.heads * a.headDim;
  const attentionWork = load.prefillAttention + load.decodeContext * verify;
  const flops = 2 * model.activeParamsB * 1e9 * tokens + 4 * a.fullAttentionLayers * qWidth * attentionWork;
  const computeMs = (flops / (gpus * hardwareTflops(spec) * 1e12 * eff.compute)) * 1e3;

  // Memory: every GPU streams its weights (the experts this batch routes to) and the KV it attends over.
  const split = parameterSplit(model);
  const wBytes = WEIGHT_BYTES[spec.precision];
  const denseBytes = ((dpAttn ? split.dense : split.dense / tp) * wBytes) / spec.parallelism.pp;
  let expertBytes = 0;
  if (model.moe) {
    const touched = 1 - Math.pow(1 - model.moe.topK / model.moe.experts, tokens);
    expertBytes = ((split.expert / tp) * wBytes * touched) / spec.parallelism.pp;
  }
  const kv = kvBytesPerTokenPerGpu(spec);
  const kvRanks = dpAttn ? tp : 1;
  const kvBytes = ((load.decodeContext + load.prefillContext) * kv.full) / kvRanks;
  const memoryMs = ((denseBytes + expertBytes + kvBytes) / (hardware.memoryBandwidthTBps * 1e12 * eff.memory)) * 1e3;

  // Communication: all-reduces after attention and FFN under tensor parallelism, all-to-all
  // dispatch and combine around the experts under expert parallelism.
  const linkGBps = (gpus > hardware.scaleUpDomain ? eff.scaleOutBandwidthGBps : hardware.scaleUpBandwidthGBps) * eff.network;
  const perByteMs = (1 / (linkGBps * 1e9)) * 1e3;
  const latencyMs = eff.collectiveLatencyUs / 1e3;
  let commMs = 0;
  if (tp > 1 && !dpAttn) {
    const bytes = tokens * model.hiddenSize * ACTIVATION_BYTES;
    commMs += model.layers * 2 * (2 * ((tp - 1) / tp) * bytes * perByteMs + latencyMs);
  }
  if (model.moe && (ep > 1 || dpAttn)) {
    const group = Math.max(ep, dpAttn ? tp : 1);
    const tokensPerRank = tokens / group;
    const bytes = tokensPerRank * model.hiddenSize * model.moe.topK * ACTIVATION_BYTES * ((group - 1) / group);
    commMs += (model.layers - model.moe.denseLayers) * 2 * (bytes * perByteMs + latencyMs);
  }
  const draft = spec.speculative ? spec.speculative.draftTokens * eff.draftCostPerToken : 0;
  const core = Math.max(computeMs, memoryMs) * (1 + (load.decodeSeqs > 0 ? draft : 0));
  const overheadMs = eff.stepOverheadMs + (model.layers / spec.parallelism.pp) * eff.layerOverheadUs * 1e-3;
  return { ms: core + commMs + overheadMs, computeMs, memoryMs, commMs, overheadMs };
}

export interface EngineOptions {
  model: Model;
  hardware: Hardware;
  precision: Precision;
  tp?: number | undefined;
  ep?: number | undefined;
  dpAttn?: boolean | undefined;
  pp?: number | undefined;
  kvCacheDtype?: 'bf16' | 'fp8' | undefined;
  gpuMemoryUtilization?: number | undefined;
  activationReserveGB?: number | undefined;
  speculative?: EngineSpec['speculative'];
  efficiency?: Partial<Efficiency> | undefined;
}

/** An engine spec with defaults filled in and its parallelism checked. */
export function engineSpec(options: EngineOptions): EngineSpec {
  const tp = options.tp ?? 1;
  const ep = options.ep ?? 1;
  const pp = options.pp ?? 1;
  for (const [name, value] of [
    ['tp', tp],
    ['ep', ep],
    ['pp', pp],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new SimConfigError(`${name} must be a positive integer, got ${value}`);
  }
  if (ep > tp) throw new SimConfigError(`ep ${ep} is larger than tp ${tp}: experts are spread over the instance's tp GPUs`);
  if (ep > 1 && !options.model.moe)
    throw new SimConfigError(`${options.model.name} is dense: expert parallelism (ep ${ep}) needs a MoE model`);
  const spec: EngineSpec = {
    model: options.model,
    hardware: options.hardware,
    precision: options.precision,
    parallelism: { tp, ep, dpAttn: options.dpAttn ?? false, pp },
    kvCacheDtype: options.kvCacheDtype ?? (options.precision === 'bf16' ? 'bf16' : 'fp8'),
    gpuMemoryUtilization: options.gpuMemoryUtilization ?? 0.9,
    activationReserveGB: options.activationReserveGB ?? 2,
    speculative: options.speculative,
    efficiency: { ...DEFAULT_EFFICIENCY, ...options.efficiency },
  };
  hardwareTflops(spec);
  const s = spec.speculative;
  if (s && (s.acceptanceLength < 1 || s.acceptanceLength > s.draftTokens + 1)) {
    throw new SimConfigError(
      `speculative acceptance length ${s.acceptanceLength} must be between 1 and draft tokens + 1 (${s.draftTokens + 1})`,
    );
  }
  memory(spec);
  return spec;
}
