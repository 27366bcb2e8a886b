/**
 * What a worker's engine flags say about its parallelism, per backend. srtctl itself sizes
 * workers from `resources` only and passes these flags through; comparing the two (and the
 * master config's tp/ep/dp-attn) is what catches a recipe whose flags do not match its GPUs.
 */

export type EngineRole = 'prefill' | 'decode' | 'aggregated';

export interface EngineParallelism {
  /** Tensor parallel size within one replica. */
  tp: number;
  /** Data parallel size (replicas, or attention-DP ranks). */
  dp: number;
  pp: number;
  /** Expert parallel size of the MoE layers. */
  ep: number;
  /** Data-parallel attention (DEP): attention split across DP ranks, experts across all GPUs. */
  dpAttn: boolean;
  /** GPUs one worker needs. */
  gpus: number;
  /** Context parallel size: SGLang's attention CP inside the TP group, vLLM's prefill CP. */
  cp: number;
  /** The master-config `tp` values that describe this worker (conventions differ, see consistency.ts). */
  masterTp: number[];
}

type Flags = Record<string, unknown>;

/** A flag by any of its spellings (kebab or snake case), with the key it is written under. */
export function flagEntry(flags: Flags, ...names: string[]): [string, unknown] | undefined {
  for (const name of names) {
    for (const spelling of [name, name.replace(/-/g, '_'), name.replace(/_/g, '-')]) {
      if (flags[spelling] !== undefined && flags[spelling] !== null) return [spelling, flags[spelling]];
    }
  }
  return undefined;
}

const flag = (flags: Flags, ...names: string[]): unknown => flagEntry(flags, ...names)?.[1];

function intFlag(flags: Flags, fallback: number, ...names: string[]): number {
  const v = flag(flags, ...names);
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : fallback;
}

const truthy = (v: unknown): boolean => v === true || v === 'true' || v === 1;

/** The engine flags of one role, or undefined when the recipe gives none. */
export function engineFlags(backend: Record<string, unknown> | undefined, role: EngineRole): Flags | undefined {
  const type = String(backend?.type ?? 'sglang');
  const section = backend?.[`${type}_config`] as Record<string, unknown> | null | undefined;
  const flags = section?.[role];
  return flags && typeof flags === 'object' ? (flags as Flags) : undefined;
}

export function engineParallelism(backendType: string, flags: Flags): EngineParallelism {
  if (backendType === 'vllm') {
    const tp = intFlag(flags, 1, 'tensor-parallel-size');
    const dp = intFlag(flags, 1, 'data-parallel-size');
    const pp = intFlag(flags, 1, 'pipeline-parallel-size');
    const pcp = intFlag(flags, 1, 'prefill-context-parallel-size');
    const expert = truthy(flag(flags, 'enable-expert-parallel'));
    return {
      tp,
      dp,
      pp,
      ep: expert ? tp * dp : 1,
      dpAttn: dp > 1,
      gpus: dp * tp * pp * pcp,
      cp: pcp,
      masterTp: unique([tp, tp * dp]),
    };
  }
  if (backendType === 'trtllm') {
    const tp = intFlag(flags, 1, 'tensor_parallel_size');
    const pp = intFlag(flags, 1, 'pipeline_parallel_size');
    const ep = intFlag(flags, 1, 'moe_expert_parallel_size');
    const dpAttn = truthy(flag(flags, 'enable_attention_dp'));
    return { tp, dp: dpAttn ? tp : 1, pp, ep, dpAttn, gpus: tp * pp, cp: 1, masterTp: [tp] };
  }
  // SGLang: with dp-attention, dp ranks live inside the tp group; without it, dp is replicas.
  const tp = intFlag(flags, 1, 'tensor-parallel-size', 'tp-size', 'tp');
  const dp = intFlag(flags, 1, 'data-parallel-size', 'dp-size', 'dp');
  const pp = intFlag(flags, 1, 'pipeline-parallel-size', 'pp-size');
  const ep = intFlag(flags, 1, 'expert-parallel-size', 'ep-size', 'ep');
  const dpAttn = truthy(flag(flags, 'enable-dp-attention'));
  const cp = intFlag(flags, 1, 'attn-cp-size');
  // Attention context parallelism splits the TP group: a master config writes tp/cp with pcp-size cp.
  return { tp, dp, pp, ep, dpAttn, gpus: (dpAttn ? tp : tp * dp) * pp, cp, masterTp: unique([tp, tp / cp]) };
}

const unique = (values: number[]): number[] => [...new Set(values)];
