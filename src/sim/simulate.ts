import type { Topology } from './cluster.js';
import { Cluster } from './cluster.js';

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
}

export interface SimulatedRun {
  gpus: number;
  durationMs: number;
  /** Output tokens per second, over the whole deployment and per GPU. */
  outputThroughput: number;
  outputThroughputPerGpu: number;
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
  const issue = (now: number): void => {
    const id = issued++;
    started.set(id, { start: now, last: now, tokens: 0 });
    cluster.submit({ id, promptTokens: load.isl, outputTokens: load.osl }, now);
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
    medianTtftMs: median(ttft),
    medianTpotMs,
    interactivity: medianTpotMs > 0 ? 1000 / medianTpotMs : 0,
    preemptions: cluster.stats().preemptions,
  };
}
