/**
 * ATOM's metrics (direct `atom:` names, or Atomesh's `atom_`; counters with or without `_total`):
 * prefix-cache cached over full tokens, LMCache-loaded tokens as the external rate, KV usage.
 */
import { counterInt } from './base.js';
import type { ServerFlat, ServerMetricsBackend, ServerNested } from './base.js';
import { gaugeStat, normalizeFraction, pf, rate, sumStat } from '../common.js';
import type { ServerMetricsIndex } from '../types.js';

const names = (suffix: string): string[] => [`atom:${suffix}`, `atom_${suffix}`];
const counterNames = (stem: string): string[] => [...names(stem), ...names(`${stem}_total`)];

export class AtomBackend implements ServerMetricsBackend {
  readonly name = 'atom';

  matches(metrics: ServerMetricsIndex, framework: string): boolean {
    const metricNames = Object.keys(metrics);
    return (
      metricNames.some((n) => n.startsWith('atom:') || n.startsWith('atom_')) ||
      (metricNames.length === 0 && framework.toLowerCase() === 'atom')
    );
  }

  populate(metrics: ServerMetricsIndex, flat: ServerFlat, nested: ServerNested): void {
    flat.total_prompt_tokens = counterInt(sumStat(metrics, counterNames('prompt_tokens')));
    flat.total_generation_tokens = counterInt(sumStat(metrics, counterNames('generation_tokens')));
    const cached = sumStat(metrics, counterNames('prefix_cache_cached_tokens'));
    const full = sumStat(metrics, counterNames('prefix_cache_full_tokens'));
    const hitRate = rate(cached, full);
    const external = sumStat(metrics, counterNames('lmcache_loaded_tokens'));
    const externalRate = rate(external, full);
    // ATOM's admitted-cache counter may already include a completed LMCache load: not added twice.
    const overall = hitRate;
    flat.server_gpu_cache_hit_rate = hitRate;
    flat.server_cpu_cache_hit_rate = externalRate;
    flat.server_external_cache_hit_rate = externalRate;
    flat.server_overall_cache_hit_rate = overall;
    flat.gpu_kv_cache_usage_pct = normalizeFraction(gaugeStat(metrics, names('kv_cache_usage_ratio')));
    Object.assign(nested.cache, {
      gpu_cache_hit_rate: pf(hitRate),
      cpu_cache_hit_rate: pf(externalRate),
      external_cache_hit_rate: pf(externalRate),
      overall_cache_hit_rate: pf(overall),
      prefix_cache_hits: pf(cached),
      prefix_cache_queries: pf(full),
      external_prefix_cache_hits: pf(external),
      external_prefix_cache_queries: pf(full),
    });
    nested.kv_cache.gpu_usage_pct = pf(flat.gpu_kv_cache_usage_pct);
    nested.tokens.prompt_total = flat.total_prompt_tokens;
    nested.tokens.generation_total = flat.total_generation_tokens;
  }

  gpuKvCapacityTokens(): number | null {
    return null;
  }
}
