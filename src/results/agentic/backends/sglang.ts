/**
 * SGLang's metrics: cached prompt tokens by source (device = GPU radix cache, host = HiCache) over
 * prompt tokens, token usage, HiCache host occupancy, prefill-computed tokens; the GPU KV
 * capacity from `max_total_num_tokens=` in the log (per DP/TP/EP rank, times dp_size when only
 * one rank logs), else the `sglang:max_total_num_tokens` gauge.
 */
import { counterInt } from './base.js';
import type { ServerFlat, ServerMetricsBackend, ServerNested } from './base.js';
import { floatMap, gaugeStat, labelEquals, normalizeFraction, pf, rate, sumByLabel, sumStat } from '../common.js';
import { sumServerLogCapacities } from '../server-logs.js';
import type { ServerMetricsIndex } from '../types.js';

const RANK = /\b(DP\d+\s+TP\d+\s+EP\d+)\b/;
const MAX_TOKENS = /\bmax_total_num_tokens=(\d+)\b/;
const DP_SIZE = /\bdp_size=(\d+)\b/;

function dpSize(log: string): number | null {
  const m = DP_SIZE.exec(log);
  if (!m) return null;
  const n = Number(m[1]);
  return n > 0 ? n : null;
}

export function sglangKvCachePoolTokensFromLog(log: string | null): number | null {
  if (!log) return null;
  const perRank = new Map<string, number>();
  let bare = 0;
  let bareCount = 0;
  const dp = dpSize(log);
  for (const line of log.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)) {
    if (!line.includes('max_total_num_tokens')) continue;
    const size = MAX_TOKENS.exec(line);
    if (!size) continue;
    const tokens = Number(size[1]);
    if (tokens <= 0) continue;
    const tag = RANK.exec(line);
    if (tag) perRank.set(tag[1]!, tokens);
    else {
      bare += tokens;
      bareCount += 1;
    }
  }
  if (perRank.size > 0) {
    if (dp !== null && perRank.size === 1 && dp > 1) return [...perRank.values()][0]! * dp;
    return [...perRank.values()].reduce((a, b) => a + b, 0);
  }
  if (bareCount === 1 && dp !== null && dp > 1) return bare * dp;
  return bareCount > 0 ? bare : null;
}

export class SglangBackend implements ServerMetricsBackend {
  readonly name = 'sglang';

  matches(metrics: ServerMetricsIndex, framework: string): boolean {
    const names = Object.keys(metrics);
    return names.some((n) => n.startsWith('sglang:')) || (names.length === 0 && framework.toLowerCase() === 'sglang');
  }

  populate(metrics: ServerMetricsIndex, flat: ServerFlat, nested: ServerNested): void {
    const promptTotal = sumStat(metrics, 'sglang:prompt_tokens');
    const generationTotal = sumStat(metrics, 'sglang:generation_tokens');
    flat.total_prompt_tokens = counterInt(promptTotal);
    flat.total_generation_tokens = counterInt(generationTotal);

    const cachedBySource = sumByLabel(metrics, 'sglang:cached_tokens', 'cache_source');
    const deviceHits = cachedBySource.get('device') ?? null;
    const hostHits = cachedBySource.get('host') ?? null;
    const totalCached = cachedBySource.size > 0 ? [...cachedBySource.values()].reduce((a, b) => a + b, 0) : null;

    flat.server_gpu_cache_hit_rate = rate(deviceHits, promptTotal);
    flat.server_cpu_cache_hit_rate = rate(hostHits, promptTotal);
    // HiCache host hits are external to the GPU cache.
    flat.server_external_cache_hit_rate = flat.server_cpu_cache_hit_rate;
    flat.server_overall_cache_hit_rate = rate(totalCached, promptTotal);
    if (flat.server_overall_cache_hit_rate === null) {
      flat.server_overall_cache_hit_rate = normalizeFraction(
        gaugeStat(metrics, 'sglang:cache_hit_rate', { keys: ['avg', 'max', 'total'], combine: 'avg' }),
      );
    }
    flat.gpu_kv_cache_usage_pct = normalizeFraction(gaugeStat(metrics, 'sglang:token_usage'));
    const maxTotalNumTokens = sumStat(metrics, 'sglang:max_total_num_tokens', { keys: ['max', 'avg', 'total', 'sum'] });
    const hostUsed = gaugeStat(metrics, 'sglang:hicache_host_used_tokens');
    const hostTotal = gaugeStat(metrics, 'sglang:hicache_host_total_tokens');
    flat.cpu_kv_cache_usage_pct = rate(hostUsed, hostTotal);
    const prefillCompute = sumStat(metrics, 'sglang:realtime_tokens', { filter: labelEquals('mode', 'prefill_compute') });

    Object.assign(nested.cache, {
      gpu_cache_hit_rate: pf(flat.server_gpu_cache_hit_rate),
      cpu_cache_hit_rate: pf(flat.server_cpu_cache_hit_rate),
      external_cache_hit_rate: pf(flat.server_external_cache_hit_rate),
      overall_cache_hit_rate: pf(flat.server_overall_cache_hit_rate),
      cached_tokens_by_source: floatMap(cachedBySource),
    });
    Object.assign(nested.kv_cache, {
      gpu_usage_pct: pf(flat.gpu_kv_cache_usage_pct),
      gpu_total_tokens: counterInt(maxTotalNumTokens),
      cpu_usage_pct: pf(flat.cpu_kv_cache_usage_pct),
      cpu_used_tokens: pf(hostUsed),
      cpu_total_tokens: pf(hostTotal),
    });
    nested.tokens.prompt_total = flat.total_prompt_tokens;
    nested.tokens.generation_total = flat.total_generation_tokens;
    nested.tokens.prompt_by_source = {
      gpu_cache_hit: pf(deviceHits),
      cpu_or_external_cache_hit: pf(hostHits),
      computed: pf(prefillCompute),
      raw: floatMap(cachedBySource),
    };
  }

  gpuKvCapacityTokens(_metrics: ServerMetricsIndex, serverLogPaths: readonly string[]): number | null {
    return sumServerLogCapacities(serverLogPaths, sglangKvCachePoolTokensFromLog);
  }
}
