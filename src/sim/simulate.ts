import type { Topology } from './cluster.js';
import { Cluster } from './cluster.js';
import { Rng } from '../util/rng.js';
import { weightedMedian } from '../util/median.js';

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
  /** Seed of the length draws and of speculative acceptance (default 1). */
  seed?: number | undefined;
  /**
   * The medians are those of a run of this many requests (default: `requests`): the first wave,
   * the burst of `concurrency` requests at the start, weighs what it would there, and the later
   * waves, alike in a steady state, the rest. InferenceX sends 10 × concurrency; a shorter
   * simulation stands for it without its first wave's queueing weighing 2.5× too much.
   */
  standsFor?: number | undefined;
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

export function simulateClosedLoop(topology: Topology, load: LoadSpec): SimulatedRun {
  const cluster = new Cluster(topology, load.seed ?? 1);
  const started = new Map<number, { start: number; first?: number; last: number; tokens: number }>();
  const ttft: { value: number; weight: number }[] = [];
  const tpot: { value: number; weight: number }[] = [];
  const first = Math.min(load.concurrency, load.requests);
  const standsFor = Math.max(load.standsFor ?? load.requests, load.requests);
  // Per sample: the first wave's share of the run stood for, and the rest's.
  const firstWeight = first / standsFor / first;
  const restWeight = load.requests > first ? (1 - first / standsFor) / (load.requests - first) : 0;
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
      const weight = id < first ? firstWeight : restWeight;
      ttft.push({ value: r.first! - r.start, weight });
      if (r.tokens > 1) tpot.push({ value: (r.last - r.first!) / (r.tokens - 1), weight });
      done++;
      if (issued < load.requests) issue(next);
    }
  }
  const durationMs = cluster.now;
  const throughput = outputTokens / (durationMs / 1e3);
  const medianTpotMs = weightedMedian(tpot);
  return {
    gpus: cluster.gpus,
    durationMs,
    outputThroughput: throughput,
    outputThroughputPerGpu: throughput / cluster.gpus,
    totalThroughputPerGpu: (inputTokens + outputTokens) / (durationMs / 1e3) / cluster.gpus,
    medianTtftMs: weightedMedian(ttft),
    medianTpotMs,
    interactivity: medianTpotMs > 0 ? 1000 / medianTpotMs : 0,
    preemptions: cluster.stats().preemptions,
  };
}
