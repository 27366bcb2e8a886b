import type { RequestResult } from './client.js';
import type { BenchRequest } from './dataset.js';
import { percentile } from '../util/percentile.js';
import { mean, median, std } from './stats.js';

/**
 * The reference's `calculate_metrics`: per successful request TTFT, TPOT = (E2EL − TTFT)/(n − 1)
 * for n > 1 output tokens, every inter-token gap, E2EL; throughputs over the run's duration;
 * mean/median/std/percentiles of each (ms); goodput under SLOs. Plus what the reference lacks:
 * failures by reason, where the token counts came from, measured ISL/OSL, and (open loop)
 * latencies measured from when each request was due.
 */

export const METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type Metric = (typeof METRICS)[number];

export interface MetricsOptions {
  percentileMetrics: Metric[];
  percentiles: number[];
  /** SLOs in ms, e.g. { ttft: 500, tpot: 50 }. */
  goodput?: Partial<Record<'ttft' | 'tpot' | 'e2el', number>> | undefined;
}

/** The reasons of a request that ended without fault but without output. */
export const NO_OUTPUT_TOKENS = 'no output tokens';
export const ZERO_COMPLETION_TOKENS = 'zero completion tokens';

/** A request's outcome with its output length settled. */
export interface Outcome {
  result: RequestResult;
  request: BenchRequest;
  success: boolean;
  /** Why it failed (a server or transport error, or no output): its kind, shared by every request that failed so. */
  reason: string | undefined;
  /** What this failure looked like, when that tells more than its kind (the event, the value). */
  detail?: string | undefined;
  outputTokens: number;
  /** `usage` when the server reported it; `tokenizer` when the client had to count (flagged). */
  tokensFrom: 'usage' | 'tokenizer' | 'none';
}

export interface Metrics {
  completed: number;
  failed: number;
  totalInput: number;
  totalOutput: number;
  requestThroughput: number;
  requestGoodput: number | null;
  outputThroughput: number;
  totalTokenThroughput: number;
  inputLens: number[];
  outputLens: number[];
  /** `<stat>_<metric>_ms` in the reference's order. */
  latency: Record<string, number>;
  ttfts: number[];
  itls: number[][];
  tpots: number[];
  e2els: number[];
  /** Open loop: the same, from each request's due time. */
  fromSchedule: Record<string, number> | undefined;
  failures: Record<string, number>;
  /** One example of each failure kind that has details. */
  failureExamples: Record<string, string>;
  /** Requests sent again because their connection could not be opened (none of them had reached the server). */
  retries: number;
  tokensFromTokenizer: number;
  zeroTokenRequests: number;
}

function summary(name: string, values: number[], percentiles: number[], out: Record<string, number>): void {
  out[`mean_${name}_ms`] = mean(values);
  out[`median_${name}_ms`] = median(values);
  out[`std_${name}_ms`] = std(values);
  for (const p of percentiles) out[`p${p}_${name}_ms`] = percentile(values, p);
}

export function computeMetrics(outcomes: readonly Outcome[], durationMs: number, o: MetricsOptions): Metrics {
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const allTpots: number[] = [];
  const itls: number[][] = [];
  const flatItls: number[] = [];
  const e2els: number[] = [];
  const outputLens: number[] = [];
  const failures: Record<string, number> = {};
  const failureExamples: Record<string, string> = {};
  let retries = 0;
  let completed = 0;
  let totalInput = 0;
  let good = 0;
  let tokensFromTokenizer = 0;
  let zeroTokenRequests = 0;
  const lagged = { ttft: [] as number[], e2el: [] as number[] };
  for (const x of outcomes) {
    const r = x.result;
    retries += r.retries;
    if (!x.success) {
      outputLens.push(0);
      const reason = (x.reason ?? 'failed').slice(0, 160);
      failures[reason] = (failures[reason] ?? 0) + 1;
      if (x.detail !== undefined) failureExamples[reason] ??= x.detail.slice(0, 200);
      if (x.reason === NO_OUTPUT_TOKENS || x.reason === ZERO_COMPLETION_TOKENS) zeroTokenRequests++;
      continue;
    }
    if (x.tokensFrom === 'tokenizer') tokensFromTokenizer++;
    const n = x.outputTokens;
    outputLens.push(n);
    totalInput += x.request.promptLen;
    const tpot = n > 1 ? (r.latency - r.ttft) / (n - 1) : 0;
    if (n > 1) tpots.push(tpot);
    allTpots.push(tpot);
    itls.push(r.itl);
    for (const gap of r.itl) flatItls.push(gap);
    ttfts.push(r.ttft);
    e2els.push(r.latency);
    if (r.scheduledAt !== undefined) {
      const lag = r.sentAt - r.scheduledAt;
      lagged.ttft.push(r.ttft + lag);
      lagged.e2el.push(r.latency + lag);
    }
    completed++;
    if (o.goodput) {
      const g = o.goodput;
      const ok =
        (g.ttft === undefined || r.ttft <= g.ttft) &&
        (g.tpot === undefined || tpot <= g.tpot) &&
        (g.e2el === undefined || r.latency <= g.e2el);
      if (ok) good++;
    }
  }
  const seconds = durationMs / 1000;
  const totalOutput = outputLens.reduce((a, b) => a + b, 0);
  const latency: Record<string, number> = {};
  const samples: Record<Metric, number[]> = { ttft: ttfts, tpot: tpots, itl: flatItls, e2el: e2els };
  for (const metric of o.percentileMetrics) summary(metric, samples[metric], o.percentiles, latency);
  let fromSchedule: Record<string, number> | undefined;
  if (lagged.ttft.length > 0) {
    fromSchedule = {};
    summary('ttft', lagged.ttft, o.percentiles, fromSchedule);
    summary('e2el', lagged.e2el, o.percentiles, fromSchedule);
  }
  return {
    completed,
    failed: outcomes.length - completed,
    totalInput,
    totalOutput,
    requestThroughput: completed / seconds,
    requestGoodput: o.goodput ? good / seconds : null,
    outputThroughput: totalOutput / seconds,
    totalTokenThroughput: (totalInput + totalOutput) / seconds,
    inputLens: outcomes.map((x) => x.request.promptLen),
    outputLens,
    latency,
    ttfts,
    itls,
    tpots: allTpots,
    e2els,
    fromSchedule,
    failures,
    failureExamples,
    retries,
    tokensFromTokenizer,
    zeroTokenRequests,
  };
}

/** Distribution of a sample: what was really sent and received, not what was asked for. */
export function distribution(values: readonly number[]): { min: number; mean: number; median: number; max: number } {
  if (values.length === 0) return { min: 0, mean: 0, median: 0, max: 0 };
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  return { min, mean: mean(values), median: median(values), max };
}
