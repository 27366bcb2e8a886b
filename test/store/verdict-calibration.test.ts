/**
 * The acceptance figures of the verdicts (docs/verdicts.md): A/A, a sweep compared with itself
 * under run-to-run variation, flags at most the false discovery rate of its points; A/B, a 10%
 * slowdown, is flagged on at least 90% of points at 3 repeats. The sweep's values come from the
 * simulator's performance model; each launch draws its performance factor as `frontier sim serve
 * --run-variation` does (runFactor), and scales throughput by it and latency by its inverse, as a
 * uniform change of step time does. `npx vitest run test/store/verdict-calibration.test.ts` prints
 * the figures.
 */
import { describe, expect, it } from 'vitest';
import { goalOf } from '../../src/contract/index.js';
import { answer } from '../../src/store/index.js';
import type { Question } from '../../src/store/index.js';
import { buildTopology, estimate, runFactor } from '../../src/sim/index.js';

const CV = 0.03;
const PAIRS = 40;
const REPEATS = 3;
const METRICS = ['tput_per_gpu', 'output_tput_per_gpu', 'median_intvty', 'median_ttft'] as const;

/** Within one launch, the benchmark's own measurement noise on each metric (relative). */
const MEASUREMENT_NOISE = 0.003;

interface Point {
  key: string;
  /** Its deployment: one launch serves every concurrency of it, so they share the launch's factor. */
  launch: number;
  pool: string;
  values: Record<(typeof METRICS)[number], number>;
}

/** A sweep of the model: three deployments at five concurrencies, at a performance factor (1: as calibrated). */
function sweep(factor: number): Point[] {
  const o = { concurrencies: [1, 4, 16, 64, 256], requestsPerConc: 4, isl: 1024, osl: 1024, rangeRatio: 1 };
  const deployments = [
    { model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8', tp: 1 },
    { model: 'llama-3.1-70b', hardware: 'h100', precision: 'fp8', tp: 4 },
    { model: 'deepseek-r1', hardware: 'h200', precision: 'fp8', tp: 8 },
  ] as const;
  return deployments.flatMap((d, launch) =>
    estimate(buildTopology({ ...d, performanceFactor: factor }), o).map((r) => ({
      key: `${d.model}/${d.tp}/${r.conc}`,
      launch,
      pool: `${d.hardware}|vllm`,
      values: {
        tput_per_gpu: r.totalThroughputPerGpu,
        output_tput_per_gpu: r.outputThroughputPerGpu,
        median_intvty: r.interactivity,
        median_ttft: r.medianTtftMs,
      },
    })),
  );
}

/** A small seeded normal for the measurement noise (Box–Muller over a 32-bit LCG). */
function normals(seed: number): () => number {
  let s = seed >>> 0 || 1;
  const u = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/** One side of a comparison: each point measured REPEATS times, every repeat a launch with its own factor. */
function measure(points: readonly Point[], seed: number): Map<string, Record<string, number[]>> {
  const noise = normals(seed * 7919 + 17);
  const out = new Map<string, Record<string, number[]>>();
  for (const p of points) {
    const values: Record<string, number[]> = {};
    for (let k = 0; k < REPEATS; k++) {
      const f = runFactor(CV, seed * 1_000_003 + p.launch * 101 + k);
      for (const m of METRICS) {
        const scaled = goalOf(m) === 'max' ? p.values[m] * f : p.values[m] / f;
        (values[m] ??= []).push(scaled * Math.exp(MEASUREMENT_NOISE * noise()));
      }
    }
    out.set(p.key, values);
  }
  return out;
}

/** The share of points flagged (regression or improvement) when `run` is compared with `base`. */
function flagged(points: readonly Point[], run: Map<string, Record<string, number[]>>, base: Map<string, Record<string, number[]>>) {
  const questions: Question[] = [];
  const owner: string[] = [];
  for (const p of points)
    for (const m of METRICS) {
      questions.push({
        run: { values: run.get(p.key)![m]!, independent: true },
        baseline: { values: base.get(p.key)![m]!, independent: true },
        goal: goalOf(m),
        pool: `${p.pool}|${m}`,
      });
      owner.push(p.key);
    }
  const answers = answer(questions);
  const regressed = new Set(owner.filter((_, i) => answers[i]!.verdict === 'regression'));
  const improved = new Set(owner.filter((_, i) => answers[i]!.verdict === 'improvement'));
  return { regressed: regressed.size, improved: improved.size, points: points.length };
}

describe('verdict calibration (simulated run-to-run variation, CV 3%, 3 repeats a side)', () => {
  const base = sweep(1);
  const slower = sweep(0.9);

  it('the slowdown is real on the model: every point is slower', () => {
    for (const [i, p] of base.entries()) expect(slower[i]!.values.tput_per_gpu).toBeLessThan(p.values.tput_per_gpu * 0.97);
  });

  it('A/A: a sweep against itself flags at most the false discovery rate (5%) of its points', () => {
    let wrong = 0;
    let total = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      const r = flagged(base, measure(base, 2 * pair + 1), measure(base, 2 * pair + 2));
      wrong += r.regressed + r.improved;
      total += r.points;
    }
    const rate = wrong / total;
    console.log(`A/A: ${wrong} of ${total} points flagged over ${PAIRS} seeded pairs (${(rate * 100).toFixed(2)}%)`);
    expect(rate).toBeLessThanOrEqual(0.05);
  });

  it('A/B: a 10% slowdown is flagged as a regression on at least 90% of points', () => {
    let caught = 0;
    let total = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      const r = flagged(base, measure(slower, 1000 + 2 * pair), measure(base, 1001 + 2 * pair));
      caught += r.regressed;
      total += r.points;
    }
    const rate = caught / total;
    console.log(`A/B: ${caught} of ${total} points flagged as regressions over ${PAIRS} seeded pairs (${(rate * 100).toFixed(1)}%)`);
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });
});
