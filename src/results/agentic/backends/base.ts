/**
 * What every server-metrics adapter fills: the flat fields (the reference's first return, kept for
 * the summary and parity) and the nested `server_metrics` block of the aggregate, whose keys are
 * the same for every backend (null where a backend has no such metric).
 */
import { pyRoundInt } from '../../../pycompat/index.js';
import type { PyValue } from '../common.js';
import type { RecordDict } from '../records.js';
import { recordInts } from '../request-metrics.js';
import type { ServerMetricsIndex } from '../types.js';

export interface ServerFlat {
  server_gpu_cache_hit_rate: number | null;
  server_cpu_cache_hit_rate: number | null;
  server_external_cache_hit_rate: number | null;
  server_overall_cache_hit_rate: number | null;
  gpu_kv_cache_usage_pct: number | null;
  cpu_kv_cache_usage_pct: number | null;
  kv_offload_bytes_gpu_to_cpu: number | null;
  kv_offload_bytes_cpu_to_gpu: number | null;
  kv_offload_time_gpu_to_cpu: number | null;
  kv_offload_time_cpu_to_gpu: number | null;
  kv_offload_bandwidth_gpu_to_cpu_bytes_per_second: number | null;
  kv_offload_bandwidth_cpu_to_gpu_bytes_per_second: number | null;
  /** Python ints (counter totals rounded) from here on. */
  total_prompt_tokens: number | null;
  total_generation_tokens: number | null;
  total_requests_completed: number | null;
}

export const emptyServerFlat = (): ServerFlat => ({
  server_gpu_cache_hit_rate: null,
  server_cpu_cache_hit_rate: null,
  server_external_cache_hit_rate: null,
  server_overall_cache_hit_rate: null,
  gpu_kv_cache_usage_pct: null,
  cpu_kv_cache_usage_pct: null,
  kv_offload_bytes_gpu_to_cpu: null,
  kv_offload_bytes_cpu_to_gpu: null,
  kv_offload_time_gpu_to_cpu: null,
  kv_offload_time_cpu_to_gpu: null,
  kv_offload_bandwidth_gpu_to_cpu_bytes_per_second: null,
  kv_offload_bandwidth_cpu_to_gpu_bytes_per_second: null,
  total_prompt_tokens: null,
  total_generation_tokens: null,
  total_requests_completed: null,
});

/** The nested `server_metrics` block; values are Python values (floats as PyFloat). */
export interface ServerNested {
  present: boolean;
  adapter: string;
  metric_count: number;
  cache: Record<string, PyValue>;
  kv_cache: Record<string, PyValue>;
  kv_offload: Record<string, PyValue>;
  tokens: {
    prompt_total: PyValue;
    generation_total: PyValue;
    requests_completed: PyValue;
    prompt_by_source: Record<string, PyValue>;
  };
  sources: PyValue[];
}

export function emptyServerNested(present: boolean, metricCount: number): ServerNested {
  return {
    present,
    adapter: 'none',
    metric_count: metricCount,
    cache: {
      gpu_cache_hit_rate: null,
      cpu_cache_hit_rate: null,
      external_cache_hit_rate: null,
      overall_cache_hit_rate: null,
      prefix_cache_hits: null,
      prefix_cache_queries: null,
      external_prefix_cache_hits: null,
      external_prefix_cache_queries: null,
      cached_tokens_by_source: new Map(),
      frontend_cache_hit_rate: null,
      router_kv_hit_rate: null,
      router_shared_cache_hit_rate: null,
      frontend_cached_tokens: null,
      frontend_input_tokens: null,
    },
    kv_cache: {
      gpu_usage_pct: null,
      gpu_total_tokens: null,
      cpu_usage_pct: null,
      cpu_used_tokens: null,
      cpu_total_tokens: null,
    },
    kv_offload: {
      bytes_gpu_to_cpu: null,
      bytes_cpu_to_gpu: null,
      time_gpu_to_cpu: null,
      time_cpu_to_gpu: null,
      bandwidth_gpu_to_cpu_bytes_per_second: null,
      bandwidth_cpu_to_gpu_bytes_per_second: null,
    },
    tokens: {
      prompt_total: null,
      generation_total: null,
      requests_completed: null,
      prompt_by_source: { gpu_cache_hit: null, cpu_or_external_cache_hit: null, computed: null, raw: new Map() },
    },
    sources: [],
  };
}

/** One engine's reading of the server metrics. */
export interface ServerMetricsBackend {
  readonly name: string;
  matches(metrics: ServerMetricsIndex, framework: string): boolean;
  populate(metrics: ServerMetricsIndex, flat: ServerFlat, nested: ServerNested): void;
  /** The GPU KV-cache capacity in tokens, from the engine logs; null when not found. */
  gpuKvCapacityTokens(metrics: ServerMetricsIndex, serverLogPaths: readonly string[]): number | null;
}

/** Python's `int(round(value))`: half to even. */
export const counterInt = (value: number | null): number | null => (value === null ? null : pyRoundInt(value));

/** Where the server gives no token totals, the profiled records' sums; the completed count is the records'. */
export function applyProfileTotals(flat: ServerFlat, records: readonly RecordDict[]): void {
  const sum = (key: string): number | null => {
    const values = recordInts(records, key);
    return values.length > 0 ? values.reduce((a, b) => a + b, 0) : null;
  };
  const input = sum('input_sequence_length');
  const output = sum('output_sequence_length');
  if (flat.total_prompt_tokens === null && input !== null) flat.total_prompt_tokens = input;
  if (flat.total_generation_tokens === null && output !== null) flat.total_generation_tokens = output;
  flat.total_requests_completed = records.length;
}
