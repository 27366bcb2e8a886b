import type { Hardware } from './catalog.js';
import type { Cluster } from './cluster.js';
import type { Instance } from './instance.js';
import type { StepTime } from './perf.js';
import { memory } from './perf.js';

/**
 * The simulated GPUs' board power. Each GPU draws
 *
 *   P = idle + (TDP − idle) × activity
 *
 * where activity (0–1) is what its instance's steps did, seen through the board's response
 * (a first-order lag, `timeConstantMs`): idle between steps, and within a step a weighted share
 * of its phases, compute-bound work drawing more than memory-bound work, communication and host
 * overhead less. Every GPU of an instance does the same work (tensor/expert shards), so they draw
 * alike, but for a small fixed per-GPU spread (silicon lottery). An energy accumulator per GPU
 * integrates P exactly (closed form of the lag over each piecewise-constant input), never from
 * samples: a sampler's integral can be checked against it, as `amd-smi metric -E` or DCGM's
 * total energy is checked on real hardware. Pure but for `PowerMeter`'s state; virtual ms.
 */

export interface PowerFactors {
  /**
   * Dynamic share (of TDP − idle) while a step's core is compute-bound (tensor cores saturated,
   * prefill): 1, a large prefill batch runs at the power limit. Estimate: GPUs under large GEMMs
   * sit at their power cap (MLPerf inference power submissions run near TDP in the offline scenario).
   */
  computeBound: number;
  /**
   * Dynamic share while the core is memory-bound (decode: HBM streaming, tensor cores mostly
   * waiting). Estimate: 0.6 — decode-heavy serving is commonly measured well below TDP (≈55–70 %
   * of the dynamic range); no vendor figure.
   */
  memoryBound: number;
  /** Dynamic share while the step communicates (all-reduce, all-to-all over NVLink/xGMI). Estimate. */
  communication: number;
  /** Dynamic share during a step's fixed host overhead (launch gaps, scheduling): clocks up, little work. Estimate. */
  overhead: number;
  /**
   * Time constant of the board's power response as the tools report it (ms): nvidia-smi's
   * `power.draw` on recent drivers is a 1-second average (`power.draw.average`), AMD's
   * `socket_power` a similar firmware average. A first-order lag of 1 s stands for both (estimate).
   */
  timeConstantMs: number;
  /** Thermal time constant of the die temperature (ms). Estimate: tens of seconds for a cold plate / heat sink. */
  thermalTimeConstantMs: number;
  /** Die temperature idle and at TDP (°C). Estimate, typical of data-centre GPUs. */
  idleTempC: number;
  loadTempC: number;
  /** Per-GPU spread of power around the model, ± share (0.015: ±1.5 %). Estimate. */
  spread: number;
}

export const DEFAULT_POWER_FACTORS: PowerFactors = {
  computeBound: 1,
  memoryBound: 0.6,
  communication: 0.35,
  overhead: 0.2,
  timeConstantMs: 1000,
  thermalTimeConstantMs: 30_000,
  idleTempC: 32,
  loadTempC: 72,
  spread: 0.015,
};

/** What a step's GPUs do, as inputs to the power lag: a constant level over [start, end). */
export interface Segment {
  start: number;
  end: number;
  /** Dynamic activity 0–1. */
  level: number;
  /** Share of the time a kernel runs (utilization.gpu): 1 while a step runs. */
  busy: number;
  /** Share of the time the memory interface is busy (utilization.memory). */
  memory: number;
}

/**
 * A step's activity: its core (max of compute and memory time, stretched by speculative drafts)
 * at a level between memory- and compute-bound by how compute-heavy it is, then communication
 * and overhead at theirs, weighted by their time.
 */
export function stepActivity(time: StepTime, f: PowerFactors = DEFAULT_POWER_FACTORS): { level: number; memory: number } {
  if (time.ms <= 0) return { level: 0, memory: 0 };
  const core = Math.max(0, time.ms - time.commMs - time.overheadMs);
  const bound = Math.max(time.computeMs, time.memoryMs);
  const computeShare = bound > 0 ? time.computeMs / bound : 0;
  const coreLevel = f.memoryBound + (f.computeBound - f.memoryBound) * computeShare;
  const level = (core * coreLevel + time.commMs * f.communication + time.overheadMs * f.overhead) / time.ms;
  const memoryShare = bound > 0 ? (core * (time.memoryMs / bound)) / time.ms : 0;
  return { level: Math.min(1, Math.max(0, level)), memory: Math.min(1, memoryShare) };
}

/** Board power (W) at an activity. */
export const boardPower = (hardware: Hardware, activity: number): number =>
  hardware.power.idleW + (hardware.power.tdpW - hardware.power.idleW) * activity;

/** One GPU's state, as the monitors report it. */
export interface GpuState {
  powerW: number;
  /** Joules since the meter started (exact integral of powerW). */
  energyJ: number;
  /** Percent. */
  utilizationGpu: number;
  utilizationMemory: number;
  temperatureC: number;
  memoryTemperatureC: number;
  smClockMHz: number;
  memoryClockMHz: number;
}

/** The per-GPU spread factor of GPU `slot` (deterministic, ±`spread`). */
export function spreadOf(slot: number, spread: number): number {
  // A fixed low-discrepancy sequence in [-1, 1): the golden-ratio fractions.
  const u = ((slot + 1) * 0.6180339887498949) % 1;
  return 1 + spread * (2 * u - 1);
}

/** The meter's integrated state at a time: the lagged inputs and the exact integrals. */
interface Lag {
  t: number;
  /** Lagged activity, busy and memory shares. */
  level: number;
  busy: number;
  mem: number;
  /** ∫ activity dt and elapsed time (ms), for the exact energy: E = idle·t + (TDP − idle)·∫activity. */
  activityMs: number;
  elapsedMs: number;
  tempExcess: number;
}

/** How far back (virtual ms) a meter can be read: a tool's reading at its invocation, a sampler's late tick. */
export const METER_HISTORY_MS = 300_000;

/**
 * One instance's power over virtual time: its steps as segments, the lagged activity, and the
 * exact energy integral. It advances with the latest time read (never backwards) and keeps
 * `METER_HISTORY_MS` of history, so an earlier time reads what it was then, exactly (replayed
 * from the last checkpoint before it). A step recorded with a start the meter has passed counts
 * from where the meter is (the past does not change).
 */
export class PowerMeter {
  private now: Lag;
  /** States after each advance, oldest first (within the history). */
  private readonly checkpoints: Lag[] = [];
  /** Segments by start, those that end within the history or later. */
  private readonly segments: Segment[] = [];

  constructor(
    readonly hardware: Hardware,
    start = 0,
    readonly factors: PowerFactors = DEFAULT_POWER_FACTORS,
  ) {
    this.now = { t: start, level: 0, busy: 0, mem: 0, activityMs: 0, elapsedMs: 0, tempExcess: 0 };
    this.checkpoints.push({ ...this.now });
  }

  record(segment: Segment): void {
    const start = Math.max(segment.start, this.now.t);
    if (segment.end > start) this.segments.push({ ...segment, start });
  }

  /** Attach to an instance: every step it plans becomes a segment. */
  observe(instance: Instance): void {
    instance.onStep = (start, end, time) => {
      const { level, memory } = stepActivity(time, this.factors);
      this.record({ start, end, level, busy: 1, memory });
    };
  }

  advance(now: number): void {
    if (now <= this.now.t) return;
    this.replay(this.now, now);
    this.checkpoints.push({ ...this.now });
    const horizon = now - METER_HISTORY_MS;
    let drop = 0;
    while (drop < this.checkpoints.length - 1 && this.checkpoints[drop + 1]!.t <= horizon) drop++;
    if (drop > 0) this.checkpoints.splice(0, drop);
    const oldest = this.checkpoints[0]!.t;
    drop = 0;
    while (drop < this.segments.length && this.segments[drop]!.end <= oldest) drop++;
    if (drop > 0) this.segments.splice(0, drop);
  }

  /** The integrated state at `t`: advanced to it, or replayed from the history (clamped to its start). */
  private at(t: number): Lag {
    if (t >= this.now.t) {
      this.advance(t);
      return this.now;
    }
    let i = this.checkpoints.length - 1;
    while (i > 0 && this.checkpoints[i]!.t > t) i--;
    const from = this.checkpoints[i]!;
    if (from.t >= t) return from;
    const state = { ...from };
    this.replay(state, t);
    return state;
  }

  /** Bring `state` to `until` over the segments (idle between them). */
  private replay(state: Lag, until: number): void {
    // The first segment that ends after the state's time.
    let lo = 0;
    let hi = this.segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.segments[mid]!.end <= state.t) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; state.t < until; i++) {
      const s = this.segments[i];
      if (!s || s.start >= until) {
        this.hold(state, until - state.t, 0, 0, 0);
        break;
      }
      if (s.start > state.t) this.hold(state, s.start - state.t, 0, 0, 0);
      const end = Math.min(s.end, until);
      if (end > state.t) this.hold(state, end - state.t, s.level, s.busy, s.memory);
    }
  }

  /** Hold a constant input for `d` ms: the lag's closed form, and its exact integral. */
  private hold(st: Lag, d: number, level: number, busy: number, mem: number): void {
    if (d <= 0) return;
    const f = this.factors;
    const decay = Math.exp(-d / f.timeConstantMs);
    st.activityMs += level * d + (st.level - level) * f.timeConstantMs * (1 - decay);
    st.level = level + (st.level - level) * decay;
    st.busy = busy + (st.busy - busy) * decay;
    st.mem = mem + (st.mem - mem) * decay;
    st.elapsedMs += d;
    st.t += d;
    // The die follows the (lagged) power with its own, slower lag.
    const target = (f.loadTempC - f.idleTempC) * st.level;
    st.tempExcess = target + (st.tempExcess - target) * Math.exp(-d / f.thermalTimeConstantMs);
  }

  /** The state of GPU `slot` at virtual ms `t` (now, or a time within the history). */
  state(t: number, slot: number): GpuState {
    const st = this.at(t);
    const h = this.hardware;
    const f = this.factors;
    const k = spreadOf(slot, f.spread);
    const range = h.power.tdpW - h.power.idleW;
    const energyJ = (k * (h.power.idleW * st.elapsedMs + range * st.activityMs)) / 1000;
    const clockUp = Math.min(1, st.busy * 4);
    return {
      powerW: k * (h.power.idleW + range * st.level),
      energyJ,
      utilizationGpu: Math.round(100 * Math.min(1, st.busy)),
      utilizationMemory: Math.round(100 * Math.min(1, st.mem)),
      temperatureC: Math.round(f.idleTempC + st.tempExcess * k),
      memoryTemperatureC: Math.round(f.idleTempC + 4 + st.tempExcess * 0.8 * k),
      // Boost clocks while busy, pulled down a little near the power limit.
      smClockMHz: Math.round(
        h.clocks.smIdleMHz + (h.clocks.smMaxMHz - h.clocks.smIdleMHz) * clockUp * (1 - 0.08 * Math.max(0, st.level - 0.6)),
      ),
      memoryClockMHz: h.clocks.memoryMHz,
    };
  }
}

/** One simulated GPU's reading, as GET /sim/gpus answers it. */
export interface GpuReading extends GpuState {
  /** Its place in the server's deployment: instance by instance, GPU by GPU. */
  slot: number;
  instance: number;
  hardware: string;
  powerLimitW: number;
  memoryUsedMiB: number;
  memoryTotalMiB: number;
}

/** Every GPU of a cluster's instances, metered. */
export class ClusterPower {
  private readonly meters: { meter: PowerMeter; instance: Instance; gpus: number }[];

  constructor(cluster: Cluster, start = 0, factors: PowerFactors = DEFAULT_POWER_FACTORS) {
    this.meters = cluster.instances.map((instance) => {
      const meter = new PowerMeter(instance.spec.hardware, start, factors);
      meter.observe(instance);
      return { meter, instance, gpus: instance.gpus };
    });
  }

  get gpus(): number {
    return this.meters.reduce((s, m) => s + m.gpus, 0);
  }

  readings(now: number): GpuReading[] {
    const out: GpuReading[] = [];
    let slot = 0;
    this.meters.forEach(({ meter, instance, gpus }, i) => {
      const h = instance.spec.hardware;
      const m = memory(instance.spec);
      for (let g = 0; g < gpus; g++, slot++) {
        out.push({
          slot,
          instance: i,
          hardware: h.id,
          powerLimitW: h.power.tdpW,
          memoryUsedMiB: Math.round(((m.weightsGB + m.kvCacheGB) * 1e9) / 2 ** 20),
          memoryTotalMiB: Math.round((h.memoryGB * 1e9) / 2 ** 20),
          ...meter.state(now, slot),
        });
      }
    });
    return out;
  }
}
