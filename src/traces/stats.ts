import { percentileSorted } from '../util/percentile.js';
import type { Trace, TraceRequest } from './types.js';

/**
 * The distributions of a corpus, as InferenceX's plot_weka_distributions.py and
 * plot_subagent_distributions.py collect them: per trace (requests, main turns, subagents), per
 * request over main turns and subagent requests alike (input, output, prefix reuse, idle gap),
 * per subagent (its requests).
 */

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface Distribution {
  key: string;
  /** What one value is, for tables and plot titles. */
  label: string;
  unit: string;
  values: number[];
  summary: Summary;
}

export interface CorpusStats {
  traces: number;
  requests: number;
  subagents: number;
  inputTokens: number;
  outputTokens: number;
  /** Blocks already seen earlier in their trace over all blocks sent: the corpus's theoretical cache hit rate. */
  blockReuse: number;
  distributions: Distribution[];
}

/** Count, mean, percentiles (numpy's) and max; NaN for every statistic of no values. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { count: 0, mean: NaN, p50: NaN, p90: NaN, p99: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    mean: sum / sorted.length,
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

/** A trace's requests in recorded order: main turns, and each subagent's requests at its place. */
export function requestsInOrder(trace: Trace): TraceRequest[] {
  return trace.entries.flatMap((e) => (e.kind === 'request' ? [e.request] : e.subagent.requests));
}

export function corpusStats(traces: readonly Trace[]): CorpusStats {
  const perTrace = { requests: [] as number[], main: [] as number[], subagents: [] as number[] };
  const input: number[] = [];
  const output: number[] = [];
  const reuse: number[] = [];
  const gaps: number[] = [];
  const subagentRequests: number[] = [];
  let blocks = 0;
  let reused = 0;
  for (const trace of traces) {
    const seen = new Set<number>();
    const requests = requestsInOrder(trace);
    perTrace.requests.push(requests.length);
    perTrace.main.push(trace.entries.filter((e) => e.kind === 'request').length);
    const subs = trace.entries.flatMap((e) => (e.kind === 'subagent' ? [e.subagent] : []));
    perTrace.subagents.push(subs.length);
    for (const s of subs) subagentRequests.push(s.requests.length);
    for (const r of requests) {
      input.push(r.input);
      output.push(r.output);
      if (r.delay !== undefined) gaps.push(r.delay);
      // Like the reference plots: a request without blocks has no hit rate.
      if (r.hashIds.length === 0) continue;
      const hits = r.hashIds.filter((h) => seen.has(h)).length;
      reuse.push(hits / r.hashIds.length);
      blocks += r.hashIds.length;
      reused += hits;
      for (const h of r.hashIds) seen.add(h);
    }
  }
  const dist = (key: string, label: string, unit: string, values: number[]): Distribution => ({
    key,
    label,
    unit,
    values,
    summary: summarize(values),
  });
  return {
    traces: traces.length,
    requests: input.length,
    subagents: subagentRequests.length,
    inputTokens: input.reduce((a, b) => a + b, 0),
    outputTokens: output.reduce((a, b) => a + b, 0),
    blockReuse: blocks ? reused / blocks : NaN,
    distributions: [
      dist('requests_per_trace', 'requests per trace (main + subagent)', 'requests', perTrace.requests),
      dist('main_turns_per_trace', 'main-agent turns per trace', 'turns', perTrace.main),
      dist('subagents_per_trace', 'subagents per trace', 'subagents', perTrace.subagents),
      dist('requests_per_subagent', 'requests per subagent', 'requests', subagentRequests),
      dist('input_tokens', 'input (context) tokens per request', 'tokens', input),
      dist('output_tokens', 'output tokens per request', 'tokens', output),
      dist('prefix_reuse', 'prefix reuse per request', 'share', reuse),
      dist('idle_gap_s', 'idle gap before a request (think time)', 'seconds', gaps),
    ],
  };
}
