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

  stop(): ClientLoad {
    this.histogram.disable();
    const used = process.cpuUsage(this.cpu0);
    const wall = performance.now() - this.wall0;
    const cpu = wall > 0 ? (used.user + used.system) / 1000 / wall : 0;
    // The histogram counts in ns and includes the sampling interval itself.
    const p99 = Math.max(0, this.histogram.percentile(99) / 1e6 - RESOLUTION_MS);
    const max = Math.max(0, this.histogram.max / 1e6 - RESOLUTION_MS);
    const reasons: string[] = [];
    if (p99 > SATURATION.eventLoopDelayP99Ms)
      reasons.push(`event-loop delay p99 ${p99.toFixed(1)} ms > ${SATURATION.eventLoopDelayP99Ms} ms`);
    if (cpu > SATURATION.cpu) reasons.push(`client CPU ${(cpu * 100).toFixed(0)}% of a core > ${SATURATION.cpu * 100}%`);
    return { eventLoopDelayP99Ms: p99, eventLoopDelayMaxMs: max, cpu, saturated: reasons.length > 0, reasons };
  }
}
