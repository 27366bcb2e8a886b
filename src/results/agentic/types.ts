/**
 * The AIPerf artifact files an agentic replay leaves in `aiperf_artifacts/` (or one per-run child
 * of it), as far as the aggregation and the validity gate read them. Frontier's replay writer
 * produces these shapes; fields not listed here are carried but not read.
 */

/** One metric of a record: the value in display units (`ms` for latencies, `tokens` for lengths). */
export interface ProfileMetricValue {
  value: number | null;
  unit: string;
}

/** `metadata` of a profile_export.jsonl line (AIPerf's MetricRecordMetadata). */
export interface ProfileRecordMetadata {
  session_num?: number;
  x_request_id?: string | null;
  x_correlation_id?: string | null;
  /** The trace id, with `::sa:<agent>` appended for a subagent's requests. */
  conversation_id?: string | null;
  /** The request's index within its conversation (the trace's n/s requests, in order). */
  turn_index?: number | null;
  /** Wall-clock nanoseconds (`time.time_ns()`); beyond 2^53, so read exactly. */
  request_start_ns: number | bigint;
  request_ack_ns?: number | bigint | null;
  request_end_ns: number | bigint;
  worker_id?: string;
  /** `warmup` or `profiling`; rows in any phase but `profiling` are dropped (absent: profiling). */
  benchmark_phase?: string | null;
  was_cancelled?: boolean;
  cancellation_time_ns?: number | bigint | null;
}

/** `error` of a record: categorised by the first of type, error_type, code, class, status; else the message. */
export interface ProfileRecordError {
  type?: string | null;
  code?: number | string | null;
  message?: string | null;
  [key: string]: unknown;
}

/**
 * One line of profile_export.jsonl (AIPerf's MetricRecordInfo). The metrics read:
 * `input_sequence_length`, `output_sequence_length` (tokens), `time_to_first_token`,
 * `request_latency`, `inter_token_latency`, `full_response_inter_token_latency` (ms).
 */
export interface ProfileRecord {
  metadata: ProfileRecordMetadata;
  metrics: Record<string, ProfileMetricValue>;
  error: ProfileRecordError | string | null;
}

/** One metric of profile_export_aiperf.json: summary statistics in the metric's unit. */
export interface AiperfAggregateMetric {
  unit?: string;
  avg?: number | null;
  sum?: number | null;
  count?: number | null;
  [stat: string]: unknown;
}

/**
 * profile_export_aiperf.json as read: `request_count`, `error_request_count`,
 * `completed_request_count` (`.avg`, the validity gate), `theoretical_prefix_cache_hit`
 * (`sum`/`count` hit blocks over blocks, else `avg` in `%`), `metadata.dataset` (copied whole).
 */
export interface AiperfAggregate {
  request_count?: AiperfAggregateMetric | number;
  error_request_count?: AiperfAggregateMetric;
  completed_request_count?: AiperfAggregateMetric;
  theoretical_prefix_cache_hit?: AiperfAggregateMetric;
  metadata?: { dataset?: Record<string, unknown>; [key: string]: unknown };
  [metric: string]: unknown;
}

/**
 * One scraped series over the profiling window. Counters carry `total` (the increase over the
 * window) and `rate`; gauges `max`, `avg` (and `min`, percentiles). Readers prefer
 * total, sum, max, avg for counters and max, avg, total for gauges.
 */
export interface ServerMetricSeries {
  endpoint_url?: string;
  labels?: Record<string, string>;
  stats: { total?: number; sum?: number; max?: number; avg?: number; rate?: number; [stat: string]: unknown };
}

export interface ServerMetricEntry {
  type?: 'counter' | 'gauge' | 'histogram' | string;
  unit?: string;
  description?: string;
  series: ServerMetricSeries[];
}

/** Metric name (Prometheus name, e.g. `vllm:prefix_cache_hits`) → its series. */
export type ServerMetricsIndex = Record<string, ServerMetricEntry>;

/**
 * server_metrics_export.json: only `metrics` is read (`warmup_metrics`, a scrape of the warm-up
 * phase, is ignored on purpose).
 */
export interface ServerMetricsExport {
  schema_version?: string;
  metrics_phase?: string;
  summary?: { endpoints_configured?: string[]; endpoints_successful?: string[]; [key: string]: unknown };
  metrics: ServerMetricsIndex;
  warmup_metrics?: ServerMetricsIndex;
  [key: string]: unknown;
}
