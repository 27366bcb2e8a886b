import { performance } from 'node:perf_hooks';
import { naiveLocalIso } from '../../util/date.js';
import type { RequestResult } from '../client.js';
import { percentileSorted } from '../../util/percentile.js';
import { mean, std, sum } from '../stats.js';

/**
 * Per-request records and the run's aggregate in AIPerf's artifact shapes: `profile_export.jsonl`
 * (one MetricRecordInfo per request: metadata, metrics as {value, unit}, error) and
 * `profile_export_aiperf.json` (each metric's statistics, the counts, throughputs and the dataset).
 * InferenceX's process_agentic_result.py reads both; latencies are in ms, as AIPerf writes them.
 */

export type Phase = 'warmup' | 'profiling';

/** One sent request, as the replay saw it. */
export interface ReplayRecord {
  phase: Phase;
  lane: number;
  /** The trace id, with `::sa:<agent>` for a subagent's requests (as AIPerf names them). */
  conversationId: string;
  /** The trajectory instance (and stream): the X-Correlation-ID sent. */
  correlationId: string;
  turnIndex: number;
  requestId: string;
  /** Order of sending, over the run. */
  sessionNum: number;
  recordedInput: number;
  recordedOutput: number;
  maxTokens: number;
  result: RequestResult;
  cancelled: boolean;
  /** Blocks of the context a cache of unbounded size would hold already, and the context's blocks. */
  theoreticalHitBlocks: number;
  contextBlocks: number;
}

type Metric = { value: number | number[]; unit: string };

/** performance.now() milliseconds as epoch nanoseconds (an integer; doubles keep it to ~256 ns). */
export function epochNs(ms: number): number {
  return Math.round((performance.timeOrigin + ms) * 1e6);
}

export function isError(r: ReplayRecord): boolean {
  return r.result.error !== undefined || r.cancelled;
}

/** Input tokens: the server's count where it gave one (`--use-server-token-count`), else the recorded context. */
export function inputTokens(r: ReplayRecord): number {
  return r.result.usage?.prompt_tokens ?? r.recordedInput;
}

export function outputTokens(r: ReplayRecord): number {
  return r.result.usage?.completion_tokens ?? r.result.tokenChunks;
}

export function cachedTokens(r: ReplayRecord): number | undefined {
  const c = r.result.usage?.prompt_tokens_details?.cached_tokens;
  return typeof c === 'number' ? c : undefined;
}

/** Output tokens after the first, over the time they took (AIPerf's inter_token_latency), ms. */
export function interTokenLatency(r: ReplayRecord): number | undefined {
  const n = outputTokens(r);
  return n > 1 ? (r.result.latency - r.result.ttft) / (n - 1) : undefined;
}

export function recordJson(r: ReplayRecord): Record<string, unknown> {
  const res = r.result;
  const failed = isError(r);
  const metadata = {
    session_num: r.sessionNum,
    x_request_id: r.requestId,
    x_correlation_id: r.correlationId,
    conversation_id: r.conversationId,
    turn_index: r.turnIndex,
    request_start_ns: epochNs(res.sentAt),
    request_ack_ns: null,
    request_end_ns: epochNs(res.endAt),
    worker_id: `lane_${r.lane}`,
    record_processor_id: 'frontier',
    benchmark_phase: r.phase,
    was_cancelled: r.cancelled,
    cancellation_time_ns: r.cancelled ? epochNs(res.endAt) : null,
    // The response's `id`, to match the record with server-side logs (Frontier's addition).
    response_id: res.id ?? null,
  };
  if (failed) {
    const message = res.error ?? 'cancelled';
    return {
      metadata,
      metrics: { error_isl: { value: r.recordedInput, unit: 'tokens' } },
      error: {
        code: r.cancelled ? 499 : (res.status ?? null),
        type: r.cancelled ? 'RequestCancellationError' : errorType(message),
        message: res.errorDetail ? `${message} (${res.errorDetail})` : message,
      },
    };
  }
  const metrics: Record<string, Metric> = {
    input_sequence_length: { value: inputTokens(r), unit: 'tokens' },
    time_to_first_token: { value: res.ttft, unit: 'ms' },
    request_latency: { value: res.latency, unit: 'ms' },
    output_token_count: { value: outputTokens(r), unit: 'tokens' },
    output_sequence_length: { value: outputTokens(r), unit: 'tokens' },
  };
  const itl = interTokenLatency(r);
  if (itl !== undefined) {
    metrics.inter_token_latency = { value: itl, unit: 'ms' };
    if (itl > 0) metrics.output_token_throughput_per_user = { value: 1000 / itl, unit: 'tokens/sec/user' };
  }
  const cached = cachedTokens(r);
  if (cached !== undefined) metrics.cached_input_tokens = { value: cached, unit: 'tokens' };
  if (r.contextBlocks > 0)
    metrics.theoretical_prefix_cache_hit = { value: (100 * r.theoreticalHitBlocks) / r.contextBlocks, unit: '%' };
  return { metadata, metrics, error: null };
}

/** The error's kind: the reason up to its first colon ("HTTP 500", "stream error"…). */
function errorType(message: string): string {
  return (message.split(':', 1)[0] ?? message).trim() || 'error';
}

const PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;

/** AIPerf's statistics of one metric: avg, min, max, percentiles, std, count, sum. */
export function metricStats(values: readonly number[], unit: string): Record<string, number | string> | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort() as unknown as number[];
  const out: Record<string, number | string> = { unit, avg: mean(values), min: sorted[0]!, max: sorted[sorted.length - 1]! };
  for (const p of PERCENTILES) out[`p${p}`] = percentileSorted(sorted, p);
  out.std = std(values);
  out.count = values.length;
  out.sum = sum(values);
  return out;
}

export interface AggregateContext {
  /** The profiling window, performance.now() ms. */
  start: number;
  end: number;
  dataset: Record<string, unknown>;
  config: Record<string, unknown>;
  skipped: number;
  stopReason: string | undefined;
}

/** `profile_export_aiperf.json`: statistics over the profiling records only. */
export function aggregateJson(records: readonly ReplayRecord[], c: AggregateContext): Record<string, unknown> {
  const profiled = records.filter((r) => r.phase === 'profiling');
  const ok = profiled.filter((r) => !isError(r));
  const errors = profiled.length - ok.length;
  const durationS = Math.max(c.end - c.start, 0) / 1000;
  // Counts are metric objects too, as AIPerf writes them (validate_agentic_result.py reads `.avg`).
  const count = (n: number): { unit: string; avg: number } => ({ unit: 'requests', avg: n });
  const out: Record<string, unknown> = {
    request_count: count(ok.length),
    error_request_count: count(errors),
    completed_request_count: count(profiled.length),
    warmup_request_count: count(records.length - profiled.length),
    skipped_request_count: count(c.skipped),
    cancelled_request_count: count(profiled.filter((r) => r.cancelled).length),
    benchmark_duration: { unit: 'sec', avg: durationS },
  };
  const put = (key: string, values: number[], unit: string): void => {
    const s = metricStats(values, unit);
    if (s) out[key] = s;
  };
  put(
    'time_to_first_token',
    ok.map((r) => r.result.ttft),
    'ms',
  );
  put(
    'inter_token_latency',
    ok.map(interTokenLatency).filter((v): v is number => v !== undefined),
    'ms',
  );
  put(
    'request_latency',
    ok.map((r) => r.result.latency),
    'ms',
  );
  put('input_sequence_length', ok.map(inputTokens), 'tokens');
  put('output_sequence_length', ok.map(outputTokens), 'tokens');
  const cached = ok.map(cachedTokens).filter((v): v is number => v !== undefined);
  put('cached_input_tokens', cached, 'tokens');
  const inputTotal = sum(ok.map(inputTokens));
  const outputTotal = sum(ok.map(outputTokens));
  if (durationS > 0) {
    out.request_throughput = { unit: 'requests/sec', avg: ok.length / durationS };
    out.output_token_throughput = { unit: 'tokens/sec', avg: outputTotal / durationS };
    out.input_token_throughput = { unit: 'tokens/sec', avg: inputTotal / durationS };
    out.total_token_throughput = { unit: 'tokens/sec', avg: (inputTotal + outputTotal) / durationS };
  }
  if (cached.length > 0) {
    const withCached = ok.filter((r) => cachedTokens(r) !== undefined);
    out.cached_token_share = { unit: 'ratio', avg: sum(cached) / Math.max(1, sum(withCached.map(inputTokens))) };
  }
  const hit = sum(ok.map((r) => r.theoreticalHitBlocks));
  const blocks = sum(ok.map((r) => r.contextBlocks));
  if (blocks > 0) out.theoretical_prefix_cache_hit = { unit: '%', avg: (100 * hit) / blocks, sum: hit, count: blocks };
  // As AIPerf writes them (datetime.fromtimestamp: naive local time); the AgentX power window.
  out.start_time = naiveLocalIso(performance.timeOrigin + c.start);
  out.end_time = naiveLocalIso(performance.timeOrigin + c.end);
  out.metadata = { dataset: c.dataset, stop_reason: c.stopReason ?? null };
  out.input_config = c.config;
  return out;
}
