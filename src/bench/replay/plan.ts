import type { Trace, TraceRequest, TraceSubagent } from '../../traces/types.js';
import { Rng } from '../../util/rng.js';

/**
 * Where lanes start: the corpus in a seeded order, taken round robin, and for each lane's first
 * trajectory a start turn sampled uniformly in [minRatio, maxRatio] of its main turns (AIPerf's
 * `--trajectory-start-min-ratio/--max-ratio`), so the run begins mid-session as a steady state
 * would, not with every lane on an empty context.
 */

export interface StartOptions {
  seed: number;
  lanes: number;
  startMinRatio: number;
  startMaxRatio: number;
  warmupRequestsPerLane: number;
}

/**
 * A lane's first trajectory: turns before `start` are skipped (their effect is in the recorded
 * context), turn `start` is the priming request and the turns up to `profileFrom` the warmup
 * requests (one token each, no idle gaps); profiling begins at `profileFrom`.
 */
export interface LaneStart {
  trace: number;
  start: number;
  profileFrom: number;
}

export interface ReplayPlan {
  /** Indexes of the corpus in the seeded order the lanes take them. */
  order: number[];
  lanes: LaneStart[];
}

export function mainRequests(trace: Trace): TraceRequest[] {
  const out: TraceRequest[] = [];
  for (const e of trace.entries) if (e.kind === 'request') out.push(e.request);
  return out;
}

export function subagents(trace: Trace): TraceSubagent[] {
  const out: TraceSubagent[] = [];
  for (const e of trace.entries) if (e.kind === 'subagent') out.push(e.subagent);
  return out;
}

export function planReplay(traces: readonly Trace[], o: StartOptions): ReplayPlan {
  const rng = new Rng(o.seed);
  const order = traces.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const lanes: LaneStart[] = [];
  for (let lane = 0; lane < o.lanes && order.length > 0; lane++) {
    const trace = order[lane % order.length]!;
    const turns = mainRequests(traces[trace]!).length;
    lanes.push({ trace, ...startTurn(turns, rng.next(), o) });
  }
  return { order, lanes };
}

/**
 * The start turn for a uniform draw `u` in [0, 1): ⌊(min + u·(max − min))·turns⌋, clamped so that
 * at least one turn is profiled after the priming request; the warmup requests are cut to fit.
 * A one-turn trajectory has no warmup: it is profiled from its first turn.
 */
export function startTurn(
  turns: number,
  u: number,
  o: Omit<StartOptions, 'seed' | 'lanes'>,
): { start: number; profileFrom: number } {
  if (turns < 2) return { start: 0, profileFrom: 0 };
  const ratio = o.startMinRatio + u * (o.startMaxRatio - o.startMinRatio);
  const start = Math.min(Math.floor(ratio * turns), turns - 2);
  const warmup = Math.max(0, Math.min(o.warmupRequestsPerLane, turns - 2 - start));
  return { start, profileFrom: start + 1 + warmup };
}
