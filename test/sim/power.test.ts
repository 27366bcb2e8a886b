import { describe, expect, it } from 'vitest';
import { Cluster, HARDWARE, buildTopology, findHardware } from '../../src/sim/index.js';
import { ClusterPower, DEFAULT_POWER_FACTORS, PowerMeter, boardPower, stepActivity } from '../../src/sim/power.js';
import type { StepTime } from '../../src/sim/perf.js';

const h100 = findHardware('h100');
const step = (over: Partial<StepTime>): StepTime => ({ ms: 10, computeMs: 0, memoryMs: 0, commMs: 0, overheadMs: 0, ...over });

/** A meter driven by a duty cycle: `busyMs` of a step at `level`, then `idleMs`, repeated until `untilMs`. */
function drive(meter: PowerMeter, level: number, busyMs: number, idleMs: number, untilMs: number, from = 0): void {
  for (let t = from; t < untilMs; t += busyMs + idleMs) meter.record({ start: t, end: t + busyMs, level, busy: 1, memory: 0.5 });
}

describe('power model', () => {
  it('every hardware has a TDP with a source and an idle draw below it', () => {
    for (const h of HARDWARE) {
      expect(h.power.tdpW, h.id).toBeGreaterThan(h.power.idleW);
      expect(h.power.idleW, h.id).toBeGreaterThan(0);
      expect(h.sources['power.tdpW'], h.id).toMatch(/^https:\/\//);
      expect(h.notes, h.id).toMatch(/Idle power \d+ W is an estimate/);
      expect(h.clocks.smMaxMHz).toBeGreaterThan(h.clocks.smIdleMHz);
    }
  });

  it('board power spans idle to TDP with activity', () => {
    expect(boardPower(h100, 0)).toBe(70);
    expect(boardPower(h100, 1)).toBe(700);
    expect(boardPower(h100, 0.5)).toBeCloseTo(385);
  });

  it('a compute-bound step draws more than a memory-bound one of the same length', () => {
    const prefill = stepActivity(step({ computeMs: 9, memoryMs: 2, overheadMs: 1 }));
    const decode = stepActivity(step({ computeMs: 1, memoryMs: 9, overheadMs: 1 }));
    expect(prefill.level).toBeGreaterThan(decode.level);
    // And a decode streams memory more of the time.
    expect(decode.memory).toBeGreaterThan(prefill.memory);
  });

  it('communication and host overhead draw less than the core', () => {
    const core = stepActivity(step({ memoryMs: 10 }));
    const comm = stepActivity(step({ memoryMs: 5, commMs: 5 }));
    const overhead = stepActivity(step({ memoryMs: 5, overheadMs: 5 }));
    expect(comm.level).toBeLessThan(core.level);
    expect(overhead.level).toBeLessThan(comm.level);
    expect(core.level).toBeCloseTo(DEFAULT_POWER_FACTORS.memoryBound);
  });

  it('power rises under load towards the step level, lags by the time constant, and falls back to idle', () => {
    const meter = new PowerMeter(h100);
    meter.record({ start: 1000, end: 11_000, level: 1, busy: 1, memory: 0.3 });
    expect(meter.state(1000, 0).powerW).toBeCloseTo(70 * spreadFactor(meter, 0), 6);
    // One time constant in: 1 − 1/e of the way.
    const oneTau = meter.state(2000, 0).powerW / spreadFactor(meter, 0);
    expect(oneTau).toBeCloseTo(70 + 630 * (1 - Math.exp(-1)), 6);
    const loaded = meter.state(11_000, 0);
    expect(loaded.powerW).toBeGreaterThan(690);
    expect(loaded.utilizationGpu).toBe(100);
    expect(loaded.smClockMHz).toBeGreaterThan(1800);
    const after = meter.state(20_000, 0);
    expect(after.powerW).toBeLessThan(71);
    expect(after.utilizationGpu).toBe(0);
  });

  it('a busier duty cycle draws more on average', () => {
    const light = new PowerMeter(h100);
    const heavy = new PowerMeter(h100);
    drive(light, 0.8, 10, 40, 60_000);
    drive(heavy, 0.8, 40, 10, 60_000);
    expect(heavy.state(60_000, 0).energyJ).toBeGreaterThan(light.state(60_000, 0).energyJ * 1.5);
  });

  it('the accumulator is the exact integral of the reported power', () => {
    const meter = new PowerMeter(h100);
    const probe = new PowerMeter(h100);
    for (const m of [meter, probe]) {
      drive(m, 0.9, 30, 20, 20_000);
      drive(m, 0.55, 12, 3, 40_000, 20_000);
    }
    // A fine trapezoid sum (1 ms) of the probe's power against the meter's energy.
    let j = 0;
    const dt = 1;
    let prev = probe.state(0, 3).powerW;
    for (let t = dt; t <= 45_000 + 1e-9; t += dt) {
      const p = probe.state(t, 3).powerW;
      j += ((prev + p) / 2) * (dt / 1000);
      prev = p;
    }
    const exact = meter.state(45_000, 3).energyJ;
    expect(Math.abs(exact - j) / exact).toBeLessThan(1e-4);
  });

  it('temperature rises with sustained load', () => {
    const meter = new PowerMeter(h100);
    const cold = meter.state(0, 0).temperatureC;
    meter.record({ start: 0, end: 120_000, level: 1, busy: 1, memory: 0.5 });
    expect(meter.state(120_000, 0).temperatureC).toBeGreaterThan(cold + 30);
  });

  it('prefill-heavy work draws more than decode-heavy work on a real instance', () => {
    const mean = (prompt: number, output: number): number => {
      const cluster = new Cluster(buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' }));
      const power = new ClusterPower(cluster);
      for (let i = 0; i < 64; i++) cluster.submit({ id: i, promptTokens: prompt, outputTokens: output }, 0);
      let end = 0;
      cluster.advance(1e9, (e) => (end = Math.max(end, e.time)));
      // Mean power while busy (energy over the busy span, idle-corrected by the same span).
      return power.readings(end)[0]!.energyJ / (end / 1000);
    };
    const prefillHeavy = mean(8000, 1);
    const decodeHeavy = mean(16, 400);
    expect(prefillHeavy).toBeGreaterThan(decodeHeavy);
    expect(decodeHeavy).toBeGreaterThan(70);
  });
});

/** GPU `slot`'s fixed spread factor, as the meter applies it (power at idle / idle). */
function spreadFactor(meter: PowerMeter, slot: number): number {
  const fresh = new PowerMeter(meter.hardware);
  return fresh.state(0, slot).powerW / meter.hardware.power.idleW;
}

describe('power meter history', () => {
  it('reads an earlier time as it was, after later readings', () => {
    const live = new PowerMeter(h100);
    const late = new PowerMeter(h100);
    for (const m of [live, late]) drive(m, 0.7, 25, 15, 60_000);
    const then = [10_000, 20_000, 30_000].map((t) => live.state(t, 0));
    late.state(59_000, 0);
    // Out of order, after the meter has moved on: the same readings.
    for (const [i, t] of [30_000, 10_000, 20_000].entries()) {
      expect(late.state(t, 0)).toEqual(then[[2, 0, 1][i]!]);
    }
  });

  it('counts a step recorded after the meter passed its start from where the meter is', () => {
    const meter = new PowerMeter(h100);
    meter.state(5_000, 0);
    meter.record({ start: 4_000, end: 6_000, level: 1, busy: 1, memory: 1 });
    const e = meter.state(6_000, 0).energyJ - meter.state(5_000, 0).energyJ;
    const idle = new PowerMeter(h100);
    expect(e).toBeGreaterThan(idle.state(1_000, 0).energyJ * 1.5);
    expect(e).toBeLessThan(700 * 1.1);
  });
});
