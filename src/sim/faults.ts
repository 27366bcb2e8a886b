import { Rng } from '../util/rng.js';

/**
 * Faults to inject, for testing how clients and the pipeline cope. Every decision comes from a
 * generator seeded with `seed`, in request arrival order, so a run is reproducible.
 */
export interface FaultOptions {
  /** Share of requests answered with an HTTP error instead of a completion. */
  errorRate: number;
  /** Status codes those errors use, picked at random (500, 429, 503). */
  errorStatuses: number[];
  /** Share of streams cut off (the connection destroyed) part-way through. */
  disconnectRate: number;
  /** Share of streams that pause for `stallMs` part-way through. */
  stallRate: number;
  stallMs: number;
  /** Share of streams with one malformed SSE event part-way through. */
  malformedRate: number;
  /** The server dies (every connection dropped, the port closed) after this many requests. */
  crashAfter: number | undefined;
  /** /health answers 503 (and requests are refused) for this long after start (ms). */
  slowStartMs: number;
}

export const NO_FAULTS: FaultOptions = {
  errorRate: 0,
  errorStatuses: [500, 429, 503],
  disconnectRate: 0,
  stallRate: 0,
  stallMs: 1000,
  malformedRate: 0,
  crashAfter: undefined,
  slowStartMs: 0,
};

/** What happens to one request. Token positions are 1-based indexes into its output. */
export interface RequestFaults {
  errorStatus?: number;
  disconnectAt?: number;
  stallAt?: number;
  malformedAt?: number;
}

export class FaultPlan {
  private readonly rng: Rng;
  private received = 0;

  constructor(
    readonly options: FaultOptions,
    seed: number,
  ) {
    this.rng = new Rng(seed ^ 0x5eed);
  }

  /** Counts the request; true when it is the one after which the server crashes. */
  crashesAfterThis(): boolean {
    this.received++;
    return this.options.crashAfter !== undefined && this.received === this.options.crashAfter;
  }

  /** Decide the faults of the next request, which will produce `outputTokens` tokens. */
  next(outputTokens: number): RequestFaults {
    const o = this.options;
    const faults: RequestFaults = {};
    const position = (): number => 1 + this.rng.int(Math.max(1, outputTokens));
    if (this.rng.chance(o.errorRate)) faults.errorStatus = o.errorStatuses[this.rng.int(o.errorStatuses.length)] ?? 500;
    if (this.rng.chance(o.disconnectRate)) faults.disconnectAt = position();
    if (this.rng.chance(o.stallRate)) faults.stallAt = position();
    if (this.rng.chance(o.malformedRate)) faults.malformedAt = position();
    return faults;
  }
}
