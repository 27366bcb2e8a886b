import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimClock } from './clock.js';

/**
 * vLLM's torch profiler, as its API server exposes it when started with VLLM_TORCH_PROFILER_DIR:
 * POST /start_profile and /stop_profile (each answered 200 with an empty body). There is no
 * torch here: stopping writes one small Chrome trace (`*.pt.trace.json`, which Perfetto opens and
 * InferenceX's profile relay picks up) with the profiled span in simulated time and the requests
 * that finished in it.
 */
export class SimProfiler {
  private started: { virtualMs: number; finished: number } | undefined;

  constructor(
    readonly dir: string,
    private readonly clock: SimClock,
    /** Requests finished so far. */
    private readonly finished: () => number,
  ) {}

  start(): void {
    this.started = { virtualMs: this.clock.now(), finished: this.finished() };
  }

  /** The trace written, or undefined when the profiler was not running. */
  stop(): string | undefined {
    const s = this.started;
    if (!s) return undefined;
    this.started = undefined;
    const endMs = this.clock.now();
    const event = {
      name: 'frontier-sim profile',
      ph: 'X',
      ts: Math.round(s.virtualMs * 1000),
      dur: Math.round((endMs - s.virtualMs) * 1000),
      pid: process.pid,
      tid: 0,
      args: { requests_finished: this.finished() - s.finished },
    };
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `frontier-sim_${process.pid}.${Date.now()}.pt.trace.json`);
    writeFileSync(file, JSON.stringify({ traceEvents: [event], displayTimeUnit: 'ms' }));
    return file;
  }
}
