import type { Cluster, Topology } from './cluster.js';
import { gpusOf, memory } from './perf.js';

/** One line per pool: GPUs, weights and KV cache per GPU. */
export function describeMemory(t: Topology): string[] {
  const pools =
    t.kind === 'aggregated'
      ? [['', t.pool] as const]
      : ([
          ['prefill ', t.prefill],
          ['decode ', t.decode],
        ] as const);
  return pools.map(([name, pool]) => {
    const m = memory(pool.engine);
    return `  ${name}${pool.workers} × ${gpusOf(pool.engine.parallelism)} GPUs: weights ${m.weightsGB.toFixed(1)} GB/GPU, KV cache ${m.kvCacheGB.toFixed(1)} GB/GPU`;
  });
}

/**
 * vLLM's startup line for each engine's KV cache (`GPU KV cache size: N tokens`), which
 * InferenceX's aggregation sums from the server log for the pool's capacity.
 */
export function describeKvCache(cluster: Cluster): string[] {
  return cluster.instances.map((i) => `  GPU KV cache size: ${i.maxSequenceTokens.toLocaleString('en-US')} tokens`);
}
