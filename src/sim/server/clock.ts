import { performance } from 'node:perf_hooks';

/** The simulation's virtual time: it advances with the wall clock, `speed` times as fast, from the server's start. */
export class SimClock {
  private readonly start = performance.now();
  /** The start as epoch milliseconds. */
  readonly epoch0 = performance.timeOrigin + this.start;

  constructor(readonly speed: number) {}

  /** Virtual milliseconds now. */
  now(): number {
    return (performance.now() - this.start) * this.speed;
  }

  /** Wall-clock milliseconds since the start. */
  elapsedMs(): number {
    return performance.now() - this.start;
  }

  /** The epoch milliseconds of a virtual time. */
  epochOf(virtual: number): number {
    return this.epoch0 + virtual / this.speed;
  }

  /** The virtual time of an epoch millisecond. */
  virtualOf(epochMs: number): number {
    return (epochMs - this.epoch0) * this.speed;
  }
}
