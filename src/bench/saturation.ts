import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';

/**
 * Was the client the bottleneck? A client whose event loop is late reads chunks late (its
 * timings are wrong) and sends late (the load is not what was asked). Measured over the run:
 * event-loop delay and the CPU the process used, as a share of one core.
 */
export interface ClientLoad {
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** CPU time / wall time: 1 means one core fully busy. */
  cpu: number;
  saturated: boolean;
  reasons: string[];
}

/**
 * The engine runs on the client's own machine (a local run): its processes and the client take
 * turns on the same cores, so a late event loop may be the engine's doing rather than the client's.
 */
export interface SharedCores {
  /** This machine's cores. */
  cores: number;
  /** The engine as a reason names it, e.g. `llama.cpp, 1 thread`. */
  engine: string;
}

/** Limits beyond which the client's own load distorts what it measures. */
export const SATURATION = { eventLoopDelayP99Ms: 50, cpu: 0.9 } as const;

const RESOLUTION_MS = 10;

export class SaturationMonitor {
  // Sampling every 10 ms: often enough to see a late loop, rarely enough not to disturb timing.
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private cpu0 = process.cpuUsage();
  private wall0 = performance.now();

  start(): void {
    this.histogram.reset();
    this.histogram.enable();
    this.cpu0 = process.cpuUsage();
    this.wall0 = performance.now();
  }

  /** The load over the run; `shared`: the engine runs on this machine's cores too. */
  stop(shared?: SharedCores): ClientLoad {
    this.histogram.disable();
    const used = process.cpuUsage(this.cpu0);
    const wall = performance.now() - this.wall0;
    const cpu = wall > 0 ? (used.user + used.system) / 1000 / wall : 0;
    // The histogram counts in ns and includes the sampling interval itself.
    const p99 = Math.max(0, this.histogram.percentile(99) / 1e6 - RESOLUTION_MS);
    const max = Math.max(0, this.histogram.max / 1e6 - RESOLUTION_MS);
    const reasons: string[] = [];
    const late = `event-loop delay p99 ${p99.toFixed(1)} ms > ${SATURATION.eventLoopDelayP99Ms} ms`;
    // Late but not busy: the client was kept waiting for a core. Its timings are still late (the
    // point stays invalid), but the reason says who it waited behind and what to change.
    if (p99 > SATURATION.eventLoopDelayP99Ms && shared && cpu <= SATURATION.cpu)
      reasons.push(
        `${late} while it used only ${(cpu * 100).toFixed(0)}% of a core: it waited for a CPU, as it shares this machine's ` +
          `${shared.cores} core${shared.cores === 1 ? '' : 's'} with the engine (${shared.engine}) and whatever else runs here; ` +
          "leave it a core (the engine's threads option in the cluster profile, where it has one) or run on a quieter machine",
      );
    else if (p99 > SATURATION.eventLoopDelayP99Ms) reasons.push(late);
    if (cpu > SATURATION.cpu) reasons.push(`client CPU ${(cpu * 100).toFixed(0)}% of a core > ${SATURATION.cpu * 100}%`);
    return { eventLoopDelayP99Ms: p99, eventLoopDelayMaxMs: max, cpu, saturated: reasons.length > 0, reasons };
  }
}
