/**
 * A cap on concurrent heavy work (the queries that read many rows, until their answer is sent):
 * at most `running` at once, at most `queued` waiting; past that a caller is turned away at once
 * (the server answers 503 with Retry-After) rather than piling up memory and making everyone wait.
 */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly running: number,
    readonly queued: number,
  ) {}

  /** A release function once a slot is free; undefined when the queue is full (turn the caller away). */
  async enter(): Promise<(() => void) | undefined> {
    if (this.active < this.running) this.active++;
    else if (this.waiting.length < this.queued) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so `active` only drops when nobody waits.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }

  get load(): { running: number; queued: number } {
    return { running: this.active, queued: this.waiting.length };
  }
}
