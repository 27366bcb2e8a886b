/**
 * vLLM's Prometheus metrics: prefix-cache hits over queries (GPU), external (connector/offload)
 * hits over queries, prompt tokens by source when exported, KV usage gauges, KV offload transfer
 * bytes and seconds; the GPU KV capacity from the "GPU KV cache size" log line of each engine.
 */
import { byCodePoint } from '../../../pycompat/index.js';
import { pf, gaugeStat, labelValue, metricSeries, normalizeFraction, rate, sumByLabel, sumStat } from '../common.js';
import type { PyValue, SeriesFilter } from '../common.js';
import { floatMap } from '../common.js';
import { sumServerLogCapacities } from '../server-logs.js';
import type { ServerMetricSeries, ServerMetricsIndex } from '../types.js';
import { counterInt } from './base.js';
import type { ServerFlat, ServerMetricsBackend, ServerNested } from './base.js';

const ENGINE_TAG = /\((EngineCore(?:_DP\d+)?)\s+pid=\d+\)/;
const GPU_KV_SIZE = /GPU KV cache size:\s*([\d,]+)\s*tokens/;

/** The sum over engines of "GPU KV cache size: N tokens" (the last line per engine tag, bare lines added). */
export function vllmKvCachePoolTokensFromLog(log: string | null): number | null {
  if (!log) return null;
  const perEngine = new Map<string, number>();
  let bare = 0;
  let bareFound = false;
  for (const line of log.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)) {
    if (!line.includes('GPU KV cache size')) continue;
    const size = GPU_KV_SIZE.exec(line);
    if (!size) continue;
    const digits = size[1]!.replaceAll(',', '');
    if (digits === '') continue;
    const tokens = Number(digits);
    if (tokens <= 0) continue;
    const tag = ENGINE_TAG.exec(line);
    if (tag) perEngine.set(tag[1]!, tokens);
    else {
      bare += tokens;
      bareFound = true;
    }
  }
  if (perEngine.size > 0) return [...perEngine.values()].reduce((a, b) => a + b, 0);
  return bareFound ? bare : null;
}

/** The first of the named counters that has a total. */
export function firstCounterTotal(metrics: ServerMetricsIndex, names: readonly string[]): number | null {
  for (const name of names) {
    const value = sumStat(metrics, name);
    if (value !== null) return value;
  }
  return null;
}

/** Which worker a series comes from: its role, endpoint, and worker/rank/engine labels. */
function sourceId(series: ServerMetricSeries): string {
  const component = labelValue(series, 'dynamo_component') || labelValue(series, 'component') || '';
  const role =
    component === 'prefill'
      ? 'prefill'
      : component === 'backend' || component === 'decode'
        ? 'decode'
        : component === 'frontend' || component === 'router'
          ? 'router'
          : 'combined';
  const parts = [role];
  const endpoint: unknown = series.endpoint_url;
  if (endpoint) parts.push(String(endpoint));
  for (const key of ['worker_id', 'dp_rank', 'engine']) {
    const value = labelValue(series, key);
    if (value !== null) parts.push(`${key}=${value}`);
  }
  return parts.join('|');
}

const SOURCE_METRICS = [
  'vllm:prompt_tokens',
  'vllm:generation_tokens',
  'vllm:prefix_cache_hits',
  'vllm:prefix_cache_queries',
  'vllm:kv_cache_usage_perc',
  'vllm:prompt_tokens_by_source',
];

/** Per-worker token totals, prefix-cache hit rate and KV usage, by source id. */
function vllmSources(metrics: ServerMetricsIndex): PyValue[] {
  const ids = new Set<string>();
  for (const name of SOURCE_METRICS) for (const series of metricSeries(metrics, name)) ids.add(sourceId(series));
  const sources: PyValue[] = [];
  for (const id of [...ids].sort(byCodePoint)) {
    if (!id) continue;
    const filter: SeriesFilter = (series) => sourceId(series) === id;
    const hits = sumStat(metrics, 'vllm:prefix_cache_hits', { filter });
    const queries = sumStat(metrics, 'vllm:prefix_cache_queries', { filter });
    sources.push({
      id,
      role: id.split('|')[0]!,
      prompt_tokens: pf(sumStat(metrics, 'vllm:prompt_tokens', { filter })),
      generation_tokens: pf(sumStat(metrics, 'vllm:generation_tokens', { filter })),
      prefix_cache_hit_rate: pf(rate(hits, queries)),
      gpu_kv_cache_usage_pct: pf(
        normalizeFraction(gaugeStat(metrics, ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'], { filter })),
      ),
    });
  }
  return sources;
}

export class VllmBackend implements ServerMetricsBackend {
  readonly name: string = 'vllm';

  matches(metrics: ServerMetricsIndex, framework: string): boolean {
    const names = Object.keys(metrics);
    return names.some((n) => n.startsWith('vllm:')) || (names.length === 0 && framework.toLowerCase() === 'vllm');
  }

  promptGenerationTotals(metrics: ServerMetricsIndex): [number | null, number | null] {
    return [sumStat(metrics, 'vllm:prompt_tokens'), sumStat(metrics, 'vllm:generation_tokens')];
  }

  populate(metrics: ServerMetricsIndex, flat: ServerFlat, nested: ServerNested): void {
    const [promptTotal, generationTotal] = this.promptGenerationTotals(metrics);
    flat.total_prompt_tokens = counterInt(promptTotal);
    flat.total_generation_tokens = counterInt(generationTotal);

    const prefixHits = sumStat(metrics, 'vllm:prefix_cache_hits');
    const prefixQueries = sumStat(metrics, 'vllm:prefix_cache_queries');
    const gpuRate = rate(prefixHits, prefixQueries);
    flat.server_gpu_cache_hit_rate = gpuRate;

    const externalHits = sumStat(metrics, 'vllm:external_prefix_cache_hits');
    const externalQueries = sumStat(metrics, 'vllm:external_prefix_cache_queries');
    const externalRate = rate(externalHits, externalQueries);
    flat.server_external_cache_hit_rate = externalRate;
    flat.server_cpu_cache_hit_rate = externalRate;

    const bySource = sumByLabel(metrics, 'vllm:prompt_tokens_by_source', 'source');
    if (bySource.size > 0) {
      const localHit = bySource.get('local_cache_hit') ?? null;
      const external = bySource.get('external_kv_transfer') ?? null;
      const compute = bySource.get('local_compute') ?? null;
      const total = [...bySource.values()].reduce((a, b) => a + b, 0);
      if (total > 0) {
        if (localHit !== null) flat.server_gpu_cache_hit_rate = localHit / total;
        if (external !== null) {
          flat.server_cpu_cache_hit_rate = external / total;
          flat.server_external_cache_hit_rate = external / total;
        }
        flat.server_overall_cache_hit_rate = ((localHit ?? 0) + (external ?? 0)) / total;
      }
      nested.tokens.prompt_by_source = {
        gpu_cache_hit: pf(localHit),
        cpu_or_external_cache_hit: pf(external),
        computed: pf(compute),
        raw: floatMap(bySource),
      };
    } else if (gpuRate !== null) flat.server_overall_cache_hit_rate = gpuRate;

    flat.gpu_kv_cache_usage_pct = normalizeFraction(
      gaugeStat(metrics, ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc']),
    );
    flat.cpu_kv_cache_usage_pct = normalizeFraction(gaugeStat(metrics, 'vllm:cpu_kv_cache_usage_perc'));

    flat.kv_offload_bytes_gpu_to_cpu = sumStat(metrics, 'vllm:kv_offload_bytes_gpu_to_cpu');
    flat.kv_offload_bytes_cpu_to_gpu = sumStat(metrics, 'vllm:kv_offload_bytes_cpu_to_gpu');
    flat.kv_offload_time_gpu_to_cpu = sumStat(metrics, 'vllm:kv_offload_time_gpu_to_cpu');
    flat.kv_offload_time_cpu_to_gpu = sumStat(metrics, 'vllm:kv_offload_time_cpu_to_gpu');
    flat.kv_offload_bandwidth_gpu_to_cpu_bytes_per_second = rate(
      flat.kv_offload_bytes_gpu_to_cpu,
      flat.kv_offload_time_gpu_to_cpu,
    );
    flat.kv_offload_bandwidth_cpu_to_gpu_bytes_per_second = rate(
      flat.kv_offload_bytes_cpu_to_gpu,
      flat.kv_offload_time_cpu_to_gpu,
    );

    Object.assign(nested.cache, {
      gpu_cache_hit_rate: pf(flat.server_gpu_cache_hit_rate),
      cpu_cache_hit_rate: pf(flat.server_cpu_cache_hit_rate),
      external_cache_hit_rate: pf(flat.server_external_cache_hit_rate),
      overall_cache_hit_rate: pf(flat.server_overall_cache_hit_rate),
      prefix_cache_hits: pf(prefixHits),
      prefix_cache_queries: pf(prefixQueries),
      external_prefix_cache_hits: pf(externalHits),
      external_prefix_cache_queries: pf(externalQueries),
    });
    Object.assign(nested.kv_cache, {
      gpu_usage_pct: pf(flat.gpu_kv_cache_usage_pct),
      cpu_usage_pct: pf(flat.cpu_kv_cache_usage_pct),
    });
    Object.assign(nested.kv_offload, {
      bytes_gpu_to_cpu: pf(flat.kv_offload_bytes_gpu_to_cpu),
      bytes_cpu_to_gpu: pf(flat.kv_offload_bytes_cpu_to_gpu),
      time_gpu_to_cpu: pf(flat.kv_offload_time_gpu_to_cpu),
      time_cpu_to_gpu: pf(flat.kv_offload_time_cpu_to_gpu),
      bandwidth_gpu_to_cpu_bytes_per_second: pf(flat.kv_offload_bandwidth_gpu_to_cpu_bytes_per_second),
      bandwidth_cpu_to_gpu_bytes_per_second: pf(flat.kv_offload_bandwidth_cpu_to_gpu_bytes_per_second),
    });
    nested.tokens.prompt_total = flat.total_prompt_tokens;
    nested.tokens.generation_total = flat.total_generation_tokens;
    nested.sources = vllmSources(metrics);
  }

  gpuKvCapacityTokens(_metrics: ServerMetricsIndex, serverLogPaths: readonly string[]): number | null {
    return sumServerLogCapacities(serverLogPaths, vllmKvCachePoolTokensFromLog);
  }
}
