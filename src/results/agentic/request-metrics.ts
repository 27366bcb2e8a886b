/**
 * The client-side metrics of the aggregate (request_metrics.py): completion rate per 1 s window,
 * latency and interactivity distributions (ms in the records, seconds here), token lengths,
 * throughput over the profiled span, and AIPerf's theoretical prefix-cache hit rate.
 */
import { PyFloat, isDict, pyStr } from '../../pycompat/index.js';
import { percentile } from '../../util/percentile.js';
import { REFERENCE_PERCENTILE, type PyValue, statsFor, toFloat, toInt } from './common.js';
import { pyMean, pyPstdev, ratioToFloat } from '../../pycompat/index.js';
import type { RecordDict } from './records.js';

/** What the aggregation derives from requests, flat (prefixed keys) as the reference's first return. */
export type FlatMetrics = Record<string, PyValue>;

function metricValue(record: RecordDict, key: string): unknown {
  const metrics = isDict(record.metrics) ? record.metrics : {};
  const metric = Object.hasOwn(metrics, key) ? metrics[key] : undefined;
  return isDict(metric) ? metric.value : metric;
}

export function recordFloats(records: readonly RecordDict[], key: string): number[] {
  const out: number[] = [];
  for (const r of records) {
    const v = toFloat(metricValue(r, key));
    if (v !== null) out.push(v);
  }
  return out;
}

export function recordInts(records: readonly RecordDict[], key: string): number[] {
  const out: number[] = [];
  for (const r of records) {
    const v = toInt(metricValue(r, key));
    if (v !== null) out.push(v);
  }
  return out;
}

const msToS = (values: readonly number[]): number[] => values.filter((v) => Number.isFinite(v) && v > 0).map((v) => v / 1000);

/** `{mean: …, p50: …}` from `{mean_X: …, p50_X: …}`. */
function nest(prefix: string, flat: FlatMetrics): Record<string, PyValue> {
  const suffix = `_${prefix}`;
  const out: Record<string, PyValue> = {};
  for (const [k, v] of Object.entries(flat)) if (k.endsWith(suffix)) out[k.slice(0, -suffix.length)] = v;
  return out;
}

const num = (v: PyValue | undefined): number | null => (v instanceof PyFloat ? v.value : typeof v === 'number' ? v : null);

/** Interactivity (tokens/s per user) as 1 / the matching latency statistic, so p90 is the slow tail. */
function interactivity(
  latencyStats: FlatMetrics,
  latencies: readonly number[],
  latencyPrefix: string,
  prefix: string,
): FlatMetrics {
  const out: FlatMetrics = {};
  for (const key of ['mean', 'p50', 'p75', 'p90', 'p95']) {
    const v = num(latencyStats[`${key}_${latencyPrefix}`]);
    if (v !== null && v > 0) out[`${key}_${prefix}`] = new PyFloat(1 / v);
  }
  const perRequest = latencies.filter((v) => v > 0).map((v) => 1 / v);
  if (perRequest.length > 0) out[`std_${prefix}`] = new PyFloat(perRequest.length > 1 ? pyPstdev(perRequest) : 0);
  return out;
}

/** Per-user output rate from each request's E2EL / OSL (both present, finite and positive in the same record). */
function e2eNormalizedInteractivity(records: readonly RecordDict[]): FlatMetrics {
  const ratios: number[] = [];
  for (const r of records) {
    const e2el = toFloat(metricValue(r, 'request_latency'));
    const osl = toFloat(metricValue(r, 'output_sequence_length'));
    if (e2el === null || osl === null || !Number.isFinite(e2el) || !Number.isFinite(osl) || e2el <= 0 || osl <= 0) continue;
    ratios.push(e2el / 1000 / osl);
  }
  return interactivity(statsFor('e2el_per_osl', ratios), ratios, 'e2el_per_osl', 'e2e_norm_intvty');
}

function latencyStats(records: readonly RecordDict[]): [FlatMetrics, Record<string, PyValue>] {
  const ttfts = msToS(recordFloats(records, 'time_to_first_token'));
  const e2els = msToS(recordFloats(records, 'request_latency'));
  const itls = msToS(recordFloats(records, 'inter_token_latency'));
  const fullItls = msToS(recordFloats(records, 'full_response_inter_token_latency'));
  const ttft = statsFor('ttft', ttfts);
  const e2el = statsFor('e2el', e2els);
  const itl = statsFor('itl', itls);
  const tpot = statsFor('tpot', itls);
  const intvty = interactivity(itl, itls, 'itl', 'intvty');
  const e2eNorm = e2eNormalizedInteractivity(records);
  const fullItl = statsFor('full_response_itl', fullItls);
  const fullIntvty = interactivity(fullItl, fullItls, 'full_response_itl', 'full_response_intvty');
  const flat = { ...ttft, ...e2el, ...itl, ...tpot, ...intvty, ...e2eNorm, ...fullItl, ...fullIntvty };
  return [
    flat,
    {
      ttft: nest('ttft', ttft),
      e2el: nest('e2el', e2el),
      itl: nest('itl', itl),
      tpot: nest('tpot', tpot),
      intvty: nest('intvty', intvty),
      e2e_norm_intvty: nest('e2e_norm_intvty', e2eNorm),
      full_response_itl: nest('full_response_itl', fullItl),
      full_response_intvty: nest('full_response_intvty', fullIntvty),
    },
  ];
}

/** `int(record["metadata"][key])` of the records where it is truthy, exactly (nanoseconds exceed 2^53). */
function timestamps(records: readonly RecordDict[], key: string): bigint[] {
  const out: bigint[] = [];
  for (const r of records) {
    const metadata = isDict(r.metadata) ? r.metadata : {};
    const v: unknown = metadata[key];
    if (typeof v === 'bigint') {
      if (v !== 0n) out.push(v);
    } else if (v instanceof PyFloat) {
      if (v.value !== 0) out.push(BigInt(Math.trunc(v.value)));
    } else if (typeof v === 'number') {
      if (v !== 0) out.push(BigInt(Math.trunc(v)));
    } else if (typeof v === 'string' && v !== '') out.push(BigInt(v.trim()));
    else if (v === true) out.push(1n);
  }
  return out;
}

/** Completions per 1 s window from the first completion, stepping while a whole window fits. */
function qpsStats(records: readonly RecordDict[]): [FlatMetrics, Record<string, PyValue>] {
  const endsNs = timestamps(records, 'request_end_ns');
  if (endsNs.length < 2) return [{}, {}];
  const ends = endsNs.map((t) => Number(t) / 1e9).sort((a, b) => a - b);
  const last = ends[ends.length - 1]!;
  const duration = last - ends[0]!;
  if (duration <= 0) return [{}, {}];
  const window = 1;
  const values: number[] = [];
  let current = ends[0]!;
  while (current + window <= last) {
    let count = 0;
    for (const at of ends) if (current <= at && at < current + window) count++;
    values.push(count / window);
    current += window;
  }
  const flat: FlatMetrics =
    values.length > 0
      ? {
          mean_qps: new PyFloat(pyMean(values).value),
          p50_qps: new PyFloat(percentile(values, 50, REFERENCE_PERCENTILE)),
          p75_qps: new PyFloat(percentile(values, 75, REFERENCE_PERCENTILE)),
          p90_qps: new PyFloat(percentile(values, 90, REFERENCE_PERCENTILE)),
          p95_qps: new PyFloat(percentile(values, 95, REFERENCE_PERCENTILE)),
          std_qps: new PyFloat(values.length > 1 ? pyPstdev(values) : 0),
        }
      : { mean_qps: new PyFloat(ends.length / duration) };
  return [flat, { window_seconds: new PyFloat(window), samples: values.length, ...nest('qps', flat) }];
}

function workloadStats(records: readonly RecordDict[], expected: readonly number[]): [FlatMetrics, Record<string, PyValue>] {
  const flat: FlatMetrics = {
    ...statsFor('input_tokens', recordInts(records, 'input_sequence_length'), true),
    ...statsFor('output_tokens_actual', recordInts(records, 'output_sequence_length'), true),
  };
  if (expected.length > 0) Object.assign(flat, statsFor('output_tokens_expected', expected, true));
  return [
    flat,
    {
      input: nest('input_tokens', flat),
      output_actual: nest('output_tokens_actual', flat),
      output_expected: nest('output_tokens_expected', flat),
    },
  ];
}

function throughputStats(records: readonly RecordDict[]): [FlatMetrics, Record<string, PyValue>] {
  const inputs = recordInts(records, 'input_sequence_length');
  const outputs = recordInts(records, 'output_sequence_length');
  const starts = timestamps(records, 'request_start_ns');
  const ends = timestamps(records, 'request_end_ns');
  if (starts.length === 0 || ends.length === 0) return [{}, {}];
  const span = ends.reduce((a, b) => (b > a ? b : a)) - starts.reduce((a, b) => (b < a ? b : a));
  const duration = ratioToFloat(span, 1n) / 1e9;
  if (duration <= 0) return [{}, {}];
  const totalIn = inputs.reduce((a, b) => a + b, 0);
  const totalOut = outputs.reduce((a, b) => a + b, 0);
  const input = totalIn / duration;
  const output = totalOut / duration;
  const total = (totalIn + totalOut) / duration;
  const flat: FlatMetrics = {
    input_tput_tps: new PyFloat(input),
    output_tput_tps: new PyFloat(output),
    total_tput_tps: new PyFloat(total),
    duration_seconds: new PyFloat(duration),
  };
  return [
    flat,
    {
      input: { tokens_per_second: new PyFloat(input) },
      output: { tokens_per_second: new PyFloat(output) },
      total: { tokens_per_second: new PyFloat(total) },
      duration_seconds: new PyFloat(duration),
      per_gpu: {},
    },
  ];
}

/** AIPerf's theoretical prefix-cache hit: sum/count of hit blocks, else `avg` (a `%` unit divided by 100). */
function theoreticalCacheHitRate(aggregate: Record<string, unknown>): number | null {
  const metric = aggregate.theoretical_prefix_cache_hit;
  if (!isDict(metric)) return null;
  const hits = toFloat(metric.sum);
  const blocks = toFloat(metric.count);
  if (hits !== null && blocks !== null && blocks > 0) return hits / blocks;
  const avg = toFloat(metric.avg);
  if (avg === null) return null;
  const unit = pyStr(Object.hasOwn(metric, 'unit') ? metric.unit : '').trim();
  return unit === '%' ? avg / 100 : avg;
}

/** The request metrics: flat (for the per-GPU division) and nested (what the aggregate carries). */
export function computeRequestMetrics(
  records: readonly RecordDict[],
  aggregate: Record<string, unknown> = {},
  expectedOutputs: readonly number[] = [],
): [FlatMetrics, Record<string, PyValue>] {
  const [qpsFlat, qps] = qpsStats(records);
  const [latencyFlat, latency] = latencyStats(records);
  const [workloadFlat, tokens] = workloadStats(records, expectedOutputs);
  const hit = theoreticalCacheHitRate(aggregate);
  const cacheFlat: FlatMetrics = { theoretical_cache_hit_rate: hit === null ? null : new PyFloat(hit) };
  const [throughputFlat, throughput] = throughputStats(records);
  const flat = { ...qpsFlat, ...latencyFlat, ...workloadFlat, ...cacheFlat, ...throughputFlat };
  return [
    flat,
    { qps, latency, tokens, throughput, cache: { theoretical_cache_hit_rate: cacheFlat.theoretical_cache_hit_rate! } },
  ];
}
