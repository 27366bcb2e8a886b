import type { Topology } from './cluster.js';
import { Cluster } from './cluster.js';
import { Rng } from '../util/rng.js';

/**
 * A closed-loop benchmark in virtual time: `concurrency` requests in flight, each replaced as
 * soon as it finishes, like the InferenceX client at a fixed concurrency. What the planner and
 * the model's sanity tests use; no sockets, no clock.
 */
export interface LoadSpec {
  concurrency: number;
  requests: number;
  isl: number;
  osl: number;
  /**
   * Lengths drawn uniformly in [ratio × L, L], as InferenceX's client does with
   * `random_range_ratio` (default 1: every request exactly isl / osl).
   */
  rangeRatio?: number | undefined;
  /** Seed of the length draws (default 1). */
  seed?: number | undefined;
}

export interface SimulatedRun {
  gpus: number;
  durationMs: number;
  /** Output tokens per second, over the whole deployment and per GPU. */
  outputThroughput: number;
  outputThroughputPerGpu: number;
  /** Input and output tokens per second per GPU: InferenceX's `tput_per_gpu`. */
  totalThroughputPerGpu: number;
  medianTtftMs: number;
  medianTpotMs: number;
  /** 1000 / median TPOT: tokens per second one user sees. */
  interactivity: number;
  preemptions: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export function simulateClosedLoop(topology: Topology, load: LoadSpec): SimulatedRun {
  const cluster = new Cluster(topology);
  const started = new Map<number, { start: number; first?: number; last: number; tokens: number }>();
  const ttft: number[] = [];
  const tpot: number[] = [];
  let issued = 0;
  let done = 0;
  let outputTokens = 0;
  let inputTokens = 0;
  const ratio = load.rangeRatio ?? 1;
  const rng = new Rng(load.seed ?? 1);
  const draw = (length: number): number => Math.max(1, Math.round(length * (ratio + (1 - ratio) * rng.next())));
  const issue = (now: number): void => {
    const id = issued++;
    started.set(id, { start: now, last: now, tokens: 0 });
    const promptTokens = draw(load.isl);
    inputTokens += promptTokens;
    cluster.submit({ id, promptTokens, outputTokens: draw(load.osl) }, now);
  };
  for (let i = 0; i < Math.min(load.concurrency, load.requests); i++) issue(0);
  while (done < load.requests) {
    const next = cluster.nextEventTime();
    if (next === undefined) throw new Error('simulation stalled with requests in flight');
    const finished: number[] = [];
    cluster.advance(next, (e) => {
      const r = started.get(e.id)!;
      if (e.tokens > 0 && r.first === undefined) r.first = e.time;
      r.tokens += e.tokens;
      r.last = e.time;
      outputTokens += e.tokens;
      if (e.finished) finished.push(e.id);
    });
    for (const id of finished) {
      const r = started.get(id)!;
      started.delete(id);
      ttft.push(r.first! - r.start);
      if (r.tokens > 1) tpot.push((r.last - r.first!) / (r.tokens - 1));
      done++;
      if (issued < load.requests) issue(next);
    }
  }
  const durationMs = cluster.now;
  const throughput = outputTokens / (durationMs / 1e3);
  const medianTpotMs = median(tpot);
  return {
    gpus: cluster.gpus,
    durationMs,
    outputThroughput: throughput,
    outputThroughputPerGpu: throughput / cluster.gpus,
    totalThroughputPerGpu: (inputTokens + outputTokens) / (durationMs / 1e3) / cluster.gpus,
    medianTtftMs: median(ttft),
    medianTpotMs,
    interactivity: medianTpotMs > 0 ? 1000 / medianTpotMs : 0,
    preemptions: cluster.stats().preemptions,
  };
}
