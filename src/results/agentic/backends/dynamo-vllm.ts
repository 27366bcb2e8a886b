/**
 * Dynamo in front of vLLM workers: the vLLM metrics, with prompt/generation totals from the
 * frontend when it exports them, plus the frontend's cached-token rate and the router's KV hit
 * rates. Chosen for any `dynamo*` framework or any `dynamo_` metric.
 */
import { gaugeStat, normalizeFraction, pf, rate, sumStat } from '../common.js';
import type { ServerMetricsIndex } from '../types.js';
import type { ServerFlat, ServerNested } from './base.js';
import { VllmBackend, firstCounterTotal } from './vllm.js';

export class DynamoVllmBackend extends VllmBackend {
  override readonly name: string = 'dynamo-vllm';

  override matches(metrics: ServerMetricsIndex, framework: string): boolean {
    return framework.toLowerCase().startsWith('dynamo') || Object.keys(metrics).some((n) => n.startsWith('dynamo_'));
  }

  override promptGenerationTotals(metrics: ServerMetricsIndex): [number | null, number | null] {
    return [
      firstCounterTotal(metrics, ['dynamo_frontend_input_sequence_tokens', 'vllm:prompt_tokens']),
      firstCounterTotal(metrics, ['dynamo_frontend_output_tokens', 'vllm:generation_tokens']),
    ];
  }

  override populate(metrics: ServerMetricsIndex, flat: ServerFlat, nested: ServerNested): void {
    super.populate(metrics, flat, nested);
    const gpuUsage = normalizeFraction(gaugeStat(metrics, 'dynamo_component_gpu_cache_usage_percent'));
    if (flat.gpu_kv_cache_usage_pct === null) {
      flat.gpu_kv_cache_usage_pct = gpuUsage;
      nested.kv_cache.gpu_usage_pct = pf(gpuUsage);
    }
    const frontendCached = sumStat(metrics, 'dynamo_frontend_cached_tokens');
    const frontendInput = sumStat(metrics, 'dynamo_frontend_input_sequence_tokens');
    const frontendRate = rate(frontendCached, frontendInput);
    const avg = { keys: ['avg', 'max', 'total'], combine: 'avg' } as const;
    const routerKv = normalizeFraction(gaugeStat(metrics, 'dynamo_component_router_kv_hit_rate', avg));
    const routerShared = normalizeFraction(gaugeStat(metrics, 'dynamo_component_router_shared_cache_hit_rate', avg));
    // Python's `a or b`: a zero frontend rate falls through to the router's.
    if (flat.server_overall_cache_hit_rate === null) flat.server_overall_cache_hit_rate = frontendRate || routerShared;
    Object.assign(nested.cache, {
      frontend_cache_hit_rate: pf(frontendRate),
      router_kv_hit_rate: pf(routerKv),
      router_shared_cache_hit_rate: pf(routerShared),
      frontend_cached_tokens: pf(frontendCached),
      frontend_input_tokens: pf(frontendInput),
    });
  }
}
