import { describe, expect, it } from 'vitest';
import {
  RECOMMENDED_RUN_VARIATION,
  SimConfigError,
  buildTopology,
  launchSeed,
  nodeSeed,
  runFactor,
  simulateClosedLoop,
  stepTime,
} from '../../src/sim/index.js';
import type { DeploymentOptions, StepLoad, Topology } from '../../src/sim/index.js';

/** Run-to-run variation: one seeded performance factor per launch (docs/simulator.md, "Run-to-run variation"). */

const DSR1: DeploymentOptions = { model: 'deepseek-r1', hardware: 'h200', precision: 'fp8', tp: 8 };
const run = (t: Topology) => simulateClosedLoop(t, { concurrency: 16, requests: 48, isl: 1024, osl: 256 });
const engineOf = (t: Topology) => (t.kind === 'aggregated' ? t.pool.engine : t.decode.engine);

const sdOfLn = (factors: number[]): { mean: number; sd: number } => {
  const ln = factors.map(Math.log);
  const mean = ln.reduce((a, b) => a + b, 0) / ln.length;
  return { mean, sd: Math.sqrt(ln.reduce((a, b) => a + (b - mean) ** 2, 0) / (ln.length - 1)) };
};

describe('runFactor', () => {
  it('CV 0 is exactly 1 for every seed, and the deployment it builds simulates exactly as one without a factor', () => {
    for (const seed of [0, 1, 42, 4294967295]) expect(runFactor(0, seed)).toBe(1);
    const plain = buildTopology(DSR1);
    const zero = buildTopology({ ...DSR1, performanceFactor: runFactor(0, 7) });
    expect(engineOf(zero).efficiency).toEqual(engineOf(plain).efficiency);
    expect(run(zero)).toEqual(run(plain));
  });

  it('with CV 0.03, 200 seeds draw factors whose sd of ln is 0.03 (±15%, three standard errors) around a median of 1', () => {
    const factors = Array.from({ length: 200 }, (_, seed) => runFactor(0.03, seed));
    const { mean, sd } = sdOfLn(factors);
    // The sd of a sample sd of 200 normals is σ/√398 ≈ 5% of σ.
    expect(sd).toBeGreaterThan(0.03 * 0.85);
    expect(sd).toBeLessThan(0.03 * 1.15);
    // The mean of ln f: 0 within three standard errors (0.03/√200 ≈ 0.0021).
    expect(Math.abs(mean)).toBeLessThan(0.0064);
    // Every draw is a distinct factor near 1.
    expect(new Set(factors).size).toBe(200);
    expect(Math.min(...factors)).toBeGreaterThan(Math.exp(-0.03 * 4.5));
    expect(Math.max(...factors)).toBeLessThan(Math.exp(0.03 * 4.5));
  });

  it('the same seed gives the same factor; the CV only scales its logarithm', () => {
    for (const seed of [0, 5, 123456]) {
      expect(runFactor(0.03, seed)).toBe(runFactor(0.03, seed));
      expect(Math.log(runFactor(0.06, seed))).toBeCloseTo(2 * Math.log(runFactor(0.03, seed)), 12);
    }
    expect(runFactor(0.03, 1)).not.toBe(runFactor(0.03, 2));
  });

  it('refuses a CV outside [0, 0.5], saying what it takes', () => {
    for (const cv of [-0.01, 0.51, Number.NaN, Infinity])
      expect(() => runFactor(cv, 0)).toThrow(/run variation .*: expected a coefficient of variation between 0 and 0\.5/);
    expect(() => runFactor(0.5, 0)).not.toThrow();
    expect(RECOMMENDED_RUN_VARIATION).toBeGreaterThan(0);
    expect(RECOMMENDED_RUN_VARIATION).toBeLessThanOrEqual(0.05);
  });
});

describe('the factor in the performance model', () => {
  it('scales the compute and memory efficiencies, and nothing else', () => {
    const base = engineOf(buildTopology(DSR1)).efficiency;
    const slow = engineOf(buildTopology({ ...DSR1, performanceFactor: 0.9 })).efficiency;
    expect(slow.compute).toBeCloseTo(base.compute * 0.9, 15);
    expect(slow.memory).toBeCloseTo(base.memory * 0.9, 15);
    expect(slow.attentionMemory).toBeCloseTo(base.attentionMemory * 0.9, 15);
    expect({ ...slow, compute: 0, memory: 0, attentionMemory: 0 }).toEqual({
      ...base,
      compute: 0,
      memory: 0,
      attentionMemory: 0,
    });
    expect(() => buildTopology({ ...DSR1, performanceFactor: 0 })).toThrow(SimConfigError);
  });

  it('a step’s kernels take 1/f as long; its fixed overheads stay; throughput, TPOT and TTFT follow', () => {
    const load: StepLoad = { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: 32, decodeContext: 32 * 2048 };
    const base = stepTime(engineOf(buildTopology(DSR1)), load);
    const slow = stepTime(engineOf(buildTopology({ ...DSR1, performanceFactor: 0.95 })), load);
    expect(slow.memoryMs).toBeCloseTo(base.memoryMs / 0.95, 9);
    expect(slow.computeMs).toBeCloseTo(base.computeMs / 0.95, 9);
    expect(slow.overheadMs).toBe(base.overheadMs);
    expect(slow.commMs).toBe(base.commMs);
    const fast = run(buildTopology({ ...DSR1, performanceFactor: 1.05 }));
    const mid = run(buildTopology(DSR1));
    const slowRun = run(buildTopology({ ...DSR1, performanceFactor: 0.95 }));
    expect(fast.outputThroughput).toBeGreaterThan(mid.outputThroughput);
    expect(mid.outputThroughput).toBeGreaterThan(slowRun.outputThroughput);
    expect(fast.medianTpotMs).toBeLessThan(mid.medianTpotMs);
    expect(mid.medianTpotMs).toBeLessThan(slowRun.medianTpotMs);
    expect(fast.medianTtftMs).toBeLessThan(slowRun.medianTtftMs);
  });
});

describe('seeds', () => {
  it('a launch’s seed depends on the cluster’s seed and the launch’s id; a node’s on the launch’s and the node', () => {
    expect(launchSeed(0, 'g0')).toBe(launchSeed(0, 'g0'));
    expect(new Set([launchSeed(0, 'g0'), launchSeed(0, 'g1'), launchSeed(1, 'g0'), launchSeed(0, 'g0#r2')]).size).toBe(4);
    const s = launchSeed(0, 'g0');
    expect(nodeSeed(s, 'node0')).toBe(nodeSeed(s, 'node0'));
    expect(nodeSeed(s, 'node0')).not.toBe(nodeSeed(s, 'node1'));
    for (const seed of [s, nodeSeed(s, 'node1')]) {
      expect(Number.isInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThan(2 ** 32);
    }
  });
});
