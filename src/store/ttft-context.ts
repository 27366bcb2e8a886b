/**
 * TTFT by context length, from AIPerf's per-request records (`profile_export.jsonl`): requests are
 * grouped by input length in powers of two (under 8k tokens, 8k–16k, 16k–32k, …) and each group's
 * TTFT summarised. The records counted are the ones InferenceX's aggregation counts (profiling
 * phase, no error; `request_metrics.py`), and percentiles interpolate linearly as its `percentile`
 * does, so a bucket holding every request reproduces the aggregate's TTFT.
 */
import type { TtftBucket } from '../contract/index.js';
import { jsonTooDeep } from '../util/json-depth.js';
import { percentileSorted } from '../util/percentile.js';
import { REFERENCE_PERCENTILE } from '../results/agentic/common.js';
import type { IngestProblem } from './rows.js';

/** The upper bound of the first bucket (tokens); each later bucket doubles. */
export const FIRST_BUCKET_TOKENS = 8192;

function bucketOf(tokens: number): [number, number] {
  if (tokens < FIRST_BUCKET_TOKENS) return [0, FIRST_BUCKET_TOKENS];
  let lo = FIRST_BUCKET_TOKENS;
  while (lo * 2 <= tokens) lo *= 2;
  return [lo, lo * 2];
}

/** A metric's value in a record: `{value, unit}` in AIPerf's export, or a bare number. */
function metric(record: Record<string, unknown>, key: string): unknown {
  const m = (record.metrics as Record<string, unknown> | undefined)?.[key];
  return m !== null && typeof m === 'object' ? (m as { value?: unknown }).value : m;
}

/** The table for one records file (its text); a line that is not a record is a problem naming the file and line. */
export function ttftByContext(text: string, file: string, problems: IngestProblem[]): TtftBucket[] {
  const groups = new Map<number, { hi: number; ttfts: number[] }>();
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    let record: Record<string, unknown>;
    try {
      if (jsonTooDeep(line)) throw new Error('nested too deep');
      record = JSON.parse(line) as Record<string, unknown>;
      if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new Error('not an object');
    } catch (e) {
      problems.push({ file: `${file}:${i + 1}`, message: `not an AIPerf record (${(e as Error).message})` });
      return [];
    }
    const phase = (record.metadata as Record<string, unknown> | undefined)?.benchmark_phase;
    if ((phase !== undefined && phase !== null && phase !== 'profiling') || record.error) continue;
    const isl = Number(metric(record, 'input_sequence_length'));
    const ttftMs = Number(metric(record, 'time_to_first_token'));
    if (!Number.isFinite(isl) || !Number.isFinite(ttftMs) || ttftMs <= 0) continue;
    const [lo, hi] = bucketOf(Math.trunc(isl));
    const g = groups.get(lo) ?? { hi, ttfts: [] };
    g.ttfts.push(ttftMs / 1000);
    groups.set(lo, g);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([lo, { hi, ttfts }]) => {
      const sorted = [...ttfts].sort((a, b) => a - b);
      return {
        min_tokens: lo,
        max_tokens: hi,
        count: sorted.length,
        mean: sorted.reduce((s, v) => s + v, 0) / sorted.length,
        p50: percentileSorted(sorted, 50, REFERENCE_PERCENTILE),
        p90: percentileSorted(sorted, 90, REFERENCE_PERCENTILE),
        p99: percentileSorted(sorted, 99, REFERENCE_PERCENTILE),
      };
    });
}
