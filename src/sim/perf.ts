import type { Hardware, Model, Precision } from './catalog.js';
import { CatalogError } from './catalog.js';
import { UserError } from '../util/user-error.js';
import type { SpeculativeConfig } from './speculative.js';

/**
 * The performance model of one engine instance (model × hardware × precision × parallelism):
 * memory (weights and KV cache per GPU) and the time of one scheduler step from a roofline —
 * prefill compute-bound, decode memory-bound — plus TP/EP communication and a fixed overhead.
 * Pure: no I/O, no clock.
 */

/**
 * How close the engine gets to the hardware's peaks, and the fixed costs around its kernels.
 * Named, documented, overridable; the calibrated values per hardware × engine live in
 * data/profile.json (profile.ts).
 */
export interface Efficiency {
  /** Fraction of dense tensor-core peak reached by GEMMs and attention (model FLOPs utilisation). */
  compute: number;
  /** Fraction of HBM bandwidth reached when streaming weights. */
  memory: number;
  /**
   * Fraction of HBM bandwidth attention kernels reach reading the KV cache: scattered pages and
   * small per-sequence reads stay below weight streaming, so decode slows with batch × context.
   */
  attentionMemory: number;
  /** Fraction of scale-up / scale-out link bandwidth reached by collectives and KV transfers. */
  network: number;
  /** Fixed cost of one step: scheduling, sampling, input preparation (ms). */
  stepOverheadMs: number;
  /** Cost per layer per step that does not shrink with the batch: kernel launches and small-kernel inefficiency (µs). */
  layerOverheadUs: number;
  /** Latency of one collective hop inside the scale-up domain (µs). */
  collectiveLatencyUs: number;
  /** Latency of one collective hop that leaves the scale-up domain, over the NICs (µs). */
  scaleOutLatencyUs: number;
  /** Per-GPU scale-out bandwidth (InfiniBand / RoCE NIC), one direction, GB/s: 400 Gb/s NICs. */
  scaleOutBandwidthGBps: number;
  /**
   * Routed experts' load imbalance: the busiest expert (or expert-parallel rank) gets
   * mean × (1 + imbalance × √(2 ln n / mean)) tokens, the Poisson maximum of random routing at 1;
   * 0 is perfectly even. Costs most at few tokens per expert.
   */
  expertImbalance: number;
  /** Fixed latency of every request outside the model's steps: HTTP, tokenization, detokenization (ms). */
  requestOverheadMs: number;
  /** One-way latency of a KV transfer between prefill and decode (connection setup, RDMA registration) (ms). */
  kvTransferLatencyMs: number;
  /** The disaggregated router's hop in front of the prefill and decode workers (ms). */
  routerOverheadMs: number;
  /** Cost of drafting one speculative token, as a fraction of a decode step. */
  draftCostPerToken: number;
}

/** Where no profile says otherwise (profile.ts documents each number). */
export const DEFAULT_EFFICIENCY: Efficiency = {
  compute: 0.45,
  memory: 0.8,
  attentionMemory: 0.6,
  network: 0.7,
  stepOverheadMs: 1,
  layerOverheadUs: 80,
  collectiveLatencyUs: 10,
  scaleOutLatencyUs: 25,
  scaleOutBandwidthGBps: 50,
  expertImbalance: 0.5,
  requestOverheadMs: 10,
  kvTransferLatencyMs: 0.5,
  routerOverheadMs: 1,
  draftCostPerToken: 0.05,
};

/**
 * How the engine's scheduler builds a step (scheduling.ts gives each engine's). `mixed`: prefill
 * chunks ride in the decode batch under the token budget (vLLM chunked prefill, TRT-LLM in-flight
 * batching); `prefill-first`: while prompts wait, a step prefills only and the decodes wait
 * (SGLang's default).
 */
export interface SchedulingPolicy {
  batching: 'mixed' | 'prefill-first';
  /** How a data-parallel-attention instance spreads requests over its ranks. */
  dpRouting: 'round-robin' | 'least-loaded';
}

export const DEFAULT_POLICY: SchedulingPolicy = { batching: 'mixed', dpRouting: 'least-loaded' };

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
  speculative?: SpeculativeConfig | undefined;
  efficiency: Efficiency;
  policy: SchedulingPolicy;
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
  /**
   * With data-parallel attention, the busiest rank's own share (each rank attends over its own
   * batch on its own GPU, and the step waits for the slowest); absent, the ranks are even.
   */
  busiestRank?: RankLoad | undefined;
}

/** One attention rank's work in a step: its tokens, its attention work and the KV context it reads. */
export interface RankLoad {
  tokens: number;
  attentionWork: number;
  context: number;
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

/**
 * The busiest of `n` ranks (or experts) against the mean, when `mean` assignments land on each
 * at random: the Poisson maximum mean + √(2 mean ln n), scaled by `scale`; never above all of
 * them on one.
 */
export function imbalanceFactor(n: number, mean: number, scale: number): number {
  if (n <= 1 || mean <= 0 || scale <= 0) return 1;
  return Math.min(n, 1 + scale * Math.sqrt((2 * Math.log(n)) / mean));
}

/** Active parameters per token: the routed experts a token uses, and the rest. */
function activeSplit(model: Model): { expert: number; dense: number } {
  const active = model.activeParamsB * 1e9;
  if (!model.moe) return { expert: 0, dense: active };
  const moeLayers = model.layers - model.moe.denseLayers;
  const expert = Math.min(active * 0.95, moeLayers * model.moe.topK * 3 * model.hiddenSize * model.moe.expertIntermediateSize);
  return { expert, dense: active - expert };
}

/**
 * Milliseconds of one all-to-all (dispatch or combine) in which each of `group` ranks sends
 * `bytes`: the peers inside its scale-up domain over the scale-up link, the rest over the NIC, in
 * parallel, plus one hop's latency (the NIC's when any peer is outside).
 */
export function allToAllMs(spec: EngineSpec, group: number, bytes: number): number {
  const { hardware, efficiency: eff } = spec;
  const local = Math.min(group, hardware.scaleUpDomain);
  const remotePeers = group - local;
  const localBytes = (bytes * (local - 1)) / group;
  const remoteBytes = (bytes * remotePeers) / group;
  const transfer = Math.max(
    localBytes / (hardware.scaleUpBandwidthGBps * eff.network * 1e9),
    remoteBytes / (eff.scaleOutBandwidthGBps * eff.network * 1e9),
  );
  return transfer * 1e3 + (remotePeers > 0 ? eff.scaleOutLatencyUs : eff.collectiveLatencyUs) / 1e3;
}

/**
 * The time of one step: max(compute, memory) + communication + overhead. Compute: the dense part
 * and attention of the busiest attention rank, the routed experts over every GPU (the busiest
 * expert-parallel rank's share); memory: weights (only the experts the batch routes to) at the
 * `memory` efficiency, the KV the busiest rank reads at the `attentionMemory` one.
 */
export function stepTime(spec: EngineSpec, load: StepLoad): StepTime {
  const { model, hardware, efficiency: eff } = spec;
  const { tp, ep, dpAttn, pp } = spec.parallelism;
  const gpus = gpusOf(spec.parallelism);
  const a = model.attention;
  const verify = verifyTokens(spec);
  const decodeTokens = load.decodeSeqs * verify;
  const tokens = load.prefillTokens + decodeTokens;
  if (tokens === 0) return { ms: 0, computeMs: 0, memoryMs: 0, commMs: 0, overheadMs: 0 };
  const attentionWork = load.prefillAttention + load.decodeContext * verify;
  const context = load.decodeContext + load.prefillContext;
  // One rank's attention runs on tp GPUs, or with dp-attention on its own GPU.
  const rank: RankLoad = dpAttn
    ? (load.busiestRank ?? { tokens: tokens / tp, attentionWork: attentionWork / tp, context: context / tp })
    : { tokens, attentionWork, context };
  const rankGpus = (dpAttn ? 1 : tp) * pp;

  const moe = model.moe;
  const expertGroup = moe ? Math.max(ep, dpAttn ? tp : 1) : 1;
  const imbalance = moe ? imbalanceFactor(expertGroup, (tokens * moe.topK) / expertGroup, eff.expertImbalance) : 1;

  // Compute: 2 FLOPs per active parameter per token, plus attention over the context.
  const peak = hardwareTflops(spec) * 1e12 * eff.compute;
  const active = activeSplit(model);
  const qWidth = a.type === 'mla' ? a.heads * ((a.kvLoraRank ?? 512) + (a.qkRopeHeadDim ?? 64)) : a.heads * a.headDim;
  const rankFlops = 2 * active.dense * rank.tokens + 4 * a.fullAttentionLayers * qWidth * rank.attentionWork;
  const expertFlops = 2 * active.expert * tokens * imbalance;
  const computeMs = (rankFlops / (rankGpus * peak) + expertFlops / (gpus * peak)) * 1e3;

  // Memory: every GPU streams its weights (the experts this batch routes to) and the KV it attends over.
  const split = parameterSplit(model);
  const wBytes = WEIGHT_BYTES[spec.precision];
  const denseBytes = ((dpAttn ? split.dense : split.dense / tp) * wBytes) / pp;
  let expertBytes = 0;
  if (moe) {
    const touched = 1 - Math.pow(1 - moe.topK / moe.experts, tokens);
    expertBytes = ((split.expert / tp) * wBytes * touched) / pp;
  }
  const kvBytes = rank.context * kvBytesPerTokenPerGpu(spec).full;
  const bandwidth = hardware.memoryBandwidthTBps * 1e12;
  const memoryMs = ((denseBytes + expertBytes) / (bandwidth * eff.memory) + kvBytes / (bandwidth * eff.attentionMemory)) * 1e3;

  // Communication: all-reduces after attention and FFN under tensor parallelism, all-to-all
  // dispatch and combine around the experts under expert parallelism.
  const scaleOut = gpus > hardware.scaleUpDomain;
  const linkGBps = (scaleOut ? eff.scaleOutBandwidthGBps : hardware.scaleUpBandwidthGBps) * eff.network;
  const hopMs = (scaleOut ? eff.scaleOutLatencyUs : eff.collectiveLatencyUs) / 1e3;
  let commMs = 0;
  if (tp > 1 && !dpAttn) {
    const bytes = tokens * model.hiddenSize * ACTIVATION_BYTES;
    commMs += model.layers * 2 * (((2 * ((tp - 1) / tp) * bytes) / (linkGBps * 1e9)) * 1e3 + hopMs);
  }
  if (moe && expertGroup > 1) {
    const rankTokens = dpAttn ? rank.tokens : tokens / expertGroup;
    const bytes = rankTokens * model.hiddenSize * moe.topK * ACTIVATION_BYTES * imbalance;
    commMs += (model.layers - moe.denseLayers) * 2 * allToAllMs(spec, expertGroup, bytes);
  }
  const draft = spec.speculative ? spec.speculative.draftTokens * eff.draftCostPerToken : 0;
  const core = Math.max(computeMs, memoryMs) * (1 + (load.decodeSeqs > 0 ? draft : 0));
  const overheadMs = eff.stepOverheadMs + (model.layers / pp) * eff.layerOverheadUs * 1e-3;
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
  policy?: SchedulingPolicy | undefined;
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
    policy: options.policy ?? DEFAULT_POLICY,
  };
  hardwareTflops(spec);
  const s = spec.speculative;
  if (s && (s.acceptanceLength < 1 || s.acceptanceLength > s.draftTokens + 1)) {
    throw new SimConfigError(
      `speculative acceptance length ${s.acceptanceLength} must be between 1 and draft tokens + 1 (${s.draftTokens + 1}): ${s.draftTokens} draft tokens accept at most ${s.draftTokens + 1} tokens per step; lower it or raise the draft tokens`,
    );
  }
  memory(spec);
  return spec;
}
