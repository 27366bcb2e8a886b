import { performance } from 'node:perf_hooks';
import type { Cluster, TokenEvent } from '../cluster.js';
import type { SimClock } from './clock.js';
import type { LiveRequest } from './live.js';
import type { ResponseWriter } from './response-writer.js';

/**
 * Runs the simulation against the wall clock: brings it up to now, hands the token events it
 * produced to the response writer, and wakes up for its next event.
 *
 * Events are delivered a slice of streams at a time (all of a stream's tokens in one write),
 * letting the event loop read sockets in between: a request that arrives while a step's hundreds
 * of tokens go out is taken in (and its arrival logged) within a slice, not after all of them. A
 * stream's tokens are always delivered in order.
 */
export class SimulationLoop {
  /** The wake-up for the simulation's next event: a timer, or an immediate when it is already due. */
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private timerAt = Infinity;
  private stopped = false;
  private readonly slice: number;
  private readonly pending = new Map<number, TokenEvent[]>();
  private readonly queue: number[] = [];
  private head = 0;
  private draining = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly clock: SimClock,
    private readonly live: ReadonlyMap<number, LiveRequest>,
    private readonly writer: ResponseWriter,
  ) {
    this.slice = clock.speed > 1 ? 64 : 1;
  }

  /** Bring the simulation up to now, deliver what it produced, and wake up for its next event. */
  readonly pump = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.stopped) return;
    this.cluster.advance(this.clock.now(), this.collect);
    if (!this.draining) this.drain();
    this.schedule();
  };

  /** Wake up when the simulation's next event is due (sooner than any wake-up already set). */
  schedule(): void {
    const next = this.cluster.nextEventTime();
    if (next === undefined) return;
    const speed = this.clock.speed;
    const delay = (next - this.clock.now()) / speed;
    const at = performance.now() + Math.max(0, delay);
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) this.cancelTimer();
    this.timerAt = at;
    // Node's timers cannot fire sooner than 1 ms. Faster than real time, an event due within that
    // runs on the next turn of the event loop (after pending I/O), so the timer does not pace the
    // simulation; at real time the process sleeps instead of spinning.
    this.timer = delay < 1 && speed > 1 ? setImmediate(this.pump) : setTimeout(this.pump, Math.max(0, delay));
  }

  /** No more wake-ups or deliveries (the server crashed or is closing). */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.cancelTimer();
  }

  private readonly collect = (event: TokenEvent): void => {
    let events = this.pending.get(event.id);
    if (!events) {
      this.pending.set(event.id, (events = []));
      this.queue.push(event.id);
    }
    events.push(event);
  };

  private readonly drain = (): void => {
    this.draining = true;
    const touched = new Set<LiveRequest>();
    for (const end = Math.min(this.queue.length, this.head + this.slice); this.head < end; this.head++) {
      const id = this.queue[this.head]!;
      const events = this.pending.get(id)!;
      this.pending.delete(id);
      for (const event of events) {
        const l = this.live.get(id);
        if (!l) break;
        this.writer.deliver(l, event, touched);
      }
    }
    for (const l of touched) this.writer.flush(l);
    if (this.head < this.queue.length && !this.stopped) {
      setImmediate(this.drain);
      return;
    }
    this.queue.length = 0;
    this.head = 0;
    this.draining = false;
  };

  private cancelTimer(): void {
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
  }
}
