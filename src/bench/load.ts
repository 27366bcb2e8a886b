import { performance } from 'node:perf_hooks';
import type { BenchRequest } from './dataset.js';
import { Rng } from '../util/rng.js';

/**
 * When requests start. Closed loop (`requestRate` Infinity): every request is due at once and at
 * most `concurrency` are in flight, the reference's fixed-concurrency mode. Open loop: requests
 * are due on a precomputed schedule of gamma-distributed gaps (Poisson at burstiness 1), so a
 * slow server cannot slow the schedule down; each request remembers when it was due, and
 * latencies can be reported from that time (no coordinated omission).
 */
export interface LoadOptions {
  /** Most requests in flight (undefined: no limit). */
  concurrency: number | undefined;
  /** Requests per second; Infinity for the closed loop. */
  requestRate: number;
  burstiness: number;
  seed: number;
}

/** Due times (ms after the start) of n requests. */
export function schedule(n: number, o: LoadOptions): number[] {
  if (!Number.isFinite(o.requestRate)) return new Array<number>(n).fill(0);
  const rng = new Rng(o.seed ^ 0x9e37);
  const theta = 1 / (o.requestRate * o.burstiness);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    out.push(t * 1000);
    t += rng.gamma(o.burstiness, theta);
  }
  return out;
}

/**
 * Run `send` over every request under the load policy; results in request order. Each request in
 * flight holds a slot (0 … concurrency − 1, reused as requests end): a client can give each slot
 * its own connection.
 */
export async function runLoad<R>(
  requests: readonly BenchRequest[],
  o: LoadOptions,
  send: (request: BenchRequest, index: number, slot: number, scheduledAt: number | undefined) => Promise<R>,
): Promise<R[]> {
  const due = schedule(requests.length, o);
  const open = Number.isFinite(o.requestRate);
  const results = new Array<R>(requests.length);
  const start = performance.now();
  const limit = o.concurrency ?? Infinity;
  let next = 0;
  let inFlight = 0;
  const freeSlots: number[] = [];
  let slots = 0;
  return new Promise((resolve) => {
    let finished = 0;
    let timer: NodeJS.Timeout | undefined;
    const launch = (): void => {
      timer = undefined;
      const now = performance.now();
      while (next < requests.length && inFlight < limit && start + due[next]! <= now) {
        const i = next++;
        inFlight++;
        const slot = freeSlots.pop() ?? slots++;
        send(requests[i]!, i, slot, open ? start + due[i]! : undefined).then((r) => {
          results[i] = r;
          inFlight--;
          freeSlots.push(slot);
          if (++finished === requests.length) resolve(results);
          else launch();
        });
      }
      if (next < requests.length && inFlight < limit && timer === undefined) {
        timer = setTimeout(launch, Math.max(0, start + due[next]! - performance.now()));
      }
    };
    if (requests.length === 0) resolve(results);
    else launch();
  });
}
