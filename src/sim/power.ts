import type { Hardware } from './catalog.js';
import type { Cluster } from './cluster.js';
import type { Instance } from './instance.js';
import type { StepTime } from './perf.js';
import { gpusOf, memory } from './perf.js';

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

/**
 * One instance's power over virtual time: its steps as segments, the lagged activity, and the
 * exact energy integral. `advance(t)` brings it to `t` (never backwards); a step recorded with a
 * start already passed counts from where the meter is.
 */
export class PowerMeter {
  private t: number;
  /** Lagged activity, busy and memory shares. */
  private level = 0;
  private busy = 0;
  private mem = 0;
  /** ∫ activity dt (ms), for the exact energy: E = idle·t + (TDP − idle)·∫activity. */
  private activityMs = 0;
  private elapsedMs = 0;
  private tempExcess = 0;
  private readonly segments: Segment[] = [];

  constructor(
    readonly hardware: Hardware,
    start = 0,
    readonly factors: PowerFactors = DEFAULT_POWER_FACTORS,
  ) {
    this.t = start;
  }

  record(segment: Segment): void {
    if (segment.end > segment.start) this.segments.push(segment);
  }

  /** Attach to an instance: every step it plans becomes a segment. */
  observe(instance: Instance): void {
    instance.onStep = (start, end, time) => {
      const { level, memory } = stepActivity(time, this.factors);
      this.record({ start, end, level, busy: 1, memory });
    };
  }

  advance(now: number): void {
    while (this.t < now) {
      const s = this.segments[0];
      if (!s || s.start >= now) {
        this.hold(now - this.t, 0, 0, 0);
        break;
      }
      if (s.start > this.t) {
        this.hold(s.start - this.t, 0, 0, 0);
        continue;
      }
      const end = Math.min(s.end, now);
      if (end > this.t) this.hold(end - this.t, s.level, s.busy, s.memory);
      if (s.end <= now) this.segments.shift();
      else break;
    }
  }

  /** Hold a constant input for `d` ms: the lag's closed form, and its exact integral. */
  private hold(d: number, level: number, busy: number, mem: number): void {
    if (d <= 0) return;
    const f = this.factors;
    const decay = Math.exp(-d / f.timeConstantMs);
    this.activityMs += level * d + (this.level - level) * f.timeConstantMs * (1 - decay);
    this.level = level + (this.level - level) * decay;
    this.busy = busy + (this.busy - busy) * decay;
    this.mem = mem + (this.mem - mem) * decay;
    this.elapsedMs += d;
    this.t += d;
    // The die follows the (lagged) power with its own, slower lag.
    const target = (f.loadTempC - f.idleTempC) * this.level;
    this.tempExcess = target + (this.tempExcess - target) * Math.exp(-d / f.thermalTimeConstantMs);
  }

  /** The state of GPU `slot` at `now` (advances the meter). */
  state(now: number, slot: number): GpuState {
    this.advance(now);
    const h = this.hardware;
    const f = this.factors;
    const k = spreadOf(slot, f.spread);
    const range = h.power.tdpW - h.power.idleW;
    const energyJ = (k * (h.power.idleW * this.elapsedMs + range * this.activityMs)) / 1000;
    const clockUp = Math.min(1, this.busy * 4);
    return {
      powerW: k * (h.power.idleW + range * this.level),
      energyJ,
      utilizationGpu: Math.round(100 * Math.min(1, this.busy)),
      utilizationMemory: Math.round(100 * Math.min(1, this.mem)),
      temperatureC: Math.round(f.idleTempC + this.tempExcess * k),
      memoryTemperatureC: Math.round(f.idleTempC + 4 + this.tempExcess * 0.8 * k),
      // Boost clocks while busy, pulled down a little near the power limit.
      smClockMHz: Math.round(
        h.clocks.smIdleMHz + (h.clocks.smMaxMHz - h.clocks.smIdleMHz) * clockUp * (1 - 0.08 * Math.max(0, this.level - 0.6)),
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
      return { meter, instance, gpus: gpusOf(instance.spec.parallelism) };
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
