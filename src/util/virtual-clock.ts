/**
 * The clock of a simulated run. A simulated engine runs `scale` times faster than real time, and
 * every time a simulated run records (the benchmark window, telemetry samples) is on its clock:
 * from a shared anchor, `scale` seconds pass per real second. The anchor is the run's start
 * (`FRONTIER_CLOCK_ANCHOR`, epoch milliseconds), so the client, the engine and the GPU monitors
 * of one run, each its own process, stamp on the same clock. At scale 1 it is the wall clock.
 */
export const CLOCK_ANCHOR_ENV = 'FRONTIER_CLOCK_ANCHOR';

export interface VirtualClock {
  scale: number;
  /** Epoch milliseconds where the virtual and the wall clock agree. */
  anchorMs: number;
}

/** Epoch milliseconds on the virtual clock at a wall-clock epoch millisecond. */
export function virtualEpochMs(clock: VirtualClock, wallMs: number = Date.now()): number {
  return clock.anchorMs + (wallMs - clock.anchorMs) * clock.scale;
}

/** Wall-clock milliseconds for a virtual duration (how long to wait for `ms` of simulated time). */
export const wallMsOf = (clock: VirtualClock, ms: number): number => ms / clock.scale;

/** The run's clock anchor from FRONTIER_CLOCK_ANCHOR; undefined when it is not set (or not a time). */
export function clockAnchorFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const anchor = Number(env[CLOCK_ANCHOR_ENV]);
  return Number.isFinite(anchor) && anchor > 0 ? anchor : undefined;
}

/** The run's clock from the environment: `scale` from the caller, the anchor from FRONTIER_CLOCK_ANCHOR (else now). */
export function clockFromEnv(scale: number, env: NodeJS.ProcessEnv = process.env, fallbackAnchorMs = Date.now()): VirtualClock {
  return { scale, anchorMs: clockAnchorFromEnv(env) ?? fallbackAnchorMs };
}
