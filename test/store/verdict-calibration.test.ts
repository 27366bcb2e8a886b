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
import { Rng } from '../../src/util/rng.js';

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

/** One side of a comparison: each point measured REPEATS times, every repeat a launch with its own factor. */
function measure(points: readonly Point[], seed: number): Map<string, Record<string, number[]>> {
  const rng = new Rng(seed * 7919 + 17);
  const out = new Map<string, Record<string, number[]>>();
  for (const p of points) {
    const values: Record<string, number[]> = {};
    for (let k = 0; k < REPEATS; k++) {
      const f = runFactor(CV, seed * 1_000_003 + p.launch * 101 + k);
      for (const m of METRICS) {
        const scaled = goalOf(m) === 'max' ? p.values[m] * f : p.values[m] / f;
        (values[m] ??= []).push(scaled * Math.exp(MEASUREMENT_NOISE * rng.normal()));
      }
    }
    out.set(p.key, values);
  }
  return out;
}

/** Every metric of every point of `run` compared with `base`: the verdicts, by point key and metric. */
function verdicts(
  points: readonly Point[],
  run: Map<string, Record<string, number[]>>,
  base: Map<string, Record<string, number[]>>,
) {
  const questions: Question[] = [];
  const asked: { key: string; metric: (typeof METRICS)[number] }[] = [];
  for (const p of points)
    for (const m of METRICS) {
      questions.push({
        run: { values: run.get(p.key)![m]!, independent: true },
        baseline: { values: base.get(p.key)![m]!, independent: true },
        goal: goalOf(m),
        pool: `${p.pool}|${m}`,
      });
      asked.push({ key: p.key, metric: m });
    }
  return answer(questions).map((a, i) => ({ ...asked[i]!, verdict: a.verdict }));
}

/** How many points of `run` against `base` have a metric flagged as a regression, and as an improvement. */
function flagged(
  points: readonly Point[],
  run: Map<string, Record<string, number[]>>,
  base: Map<string, Record<string, number[]>>,
) {
  const v = verdicts(points, run, base);
  const points_ = (verdict: string): number => new Set(v.filter((x) => x.verdict === verdict).map((x) => x.key)).size;
  return { regressed: points_('regression'), improved: points_('improvement'), points: points.length };
}

/** Every point of a sweep `pct` % slower: throughput and interactivity down, latency up. */
const slowed = (points: readonly Point[], pct: number): Point[] =>
  points.map((p) => ({
    ...p,
    values: Object.fromEntries(
      METRICS.map((m) => [m, goalOf(m) === 'max' ? p.values[m] * (1 - pct / 100) : p.values[m] / (1 - pct / 100)]),
    ) as Point['values'],
  }));

/** Over PAIRS seeded pairs, the share of points flagged as regressions when `run` is compared with `base`. */
function regressionRate(run: readonly Point[], base: readonly Point[], seed: number): { caught: number; total: number } {
  let caught = 0;
  let total = 0;
  for (let pair = 0; pair < PAIRS; pair++) {
    const r = flagged(base, measure(run, seed + 2 * pair), measure(base, seed + 1 + 2 * pair));
    caught += r.regressed;
    total += r.points;
  }
  return { caught, total };
}

describe('verdict calibration (simulated run-to-run variation, CV 3%, 3 repeats a side)', () => {
  const base = sweep(1);

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

  it('A/B: a 10% slowdown of every point is flagged as a regression on at least 90% of points', () => {
    const { caught, total } = regressionRate(slowed(base, 10), base, 1000);
    const rate = caught / total;
    console.log(
      `A/B: ${caught} of ${total} points flagged as regressions over ${PAIRS} seeded pairs (${(rate * 100).toFixed(1)}%)`,
    );
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });

  it('the engine 10% slower (performance factor 0.9 in the model): no change flagged against its true direction, and how often each size is caught', () => {
    const slower = sweep(0.9);
    const fell = slower.map((p, i) => 1 - p.values.tput_per_gpu / base[i]!.values.tput_per_gpu);
    // Fixed per-step costs (kernel launches) do not scale with the factor: small batches slow down less.
    expect(Math.min(...fell)).toBeGreaterThan(0.01);
    const truth = new Map(
      slower.flatMap((p, i) =>
        METRICS.map((m) => [`${p.key}|${m}`, p.values[m] > base[i]!.values[m] === (goalOf(m) === 'max')] as const),
      ),
    );
    let against = 0;
    const caught = new Map<string, number>();
    for (let pair = 0; pair < PAIRS; pair++)
      for (const v of verdicts(slower, measure(slower, 5000 + 2 * pair), measure(base, 5001 + 2 * pair))) {
        const better = truth.get(`${v.key}|${v.metric}`)!;
        if ((v.verdict === 'improvement' && !better) || (v.verdict === 'regression' && better)) against++;
        if (v.metric === 'tput_per_gpu' && v.verdict === 'regression') caught.set(v.key, (caught.get(v.key) ?? 0) + 1);
      }
    expect(against).toBe(0);
    const band = (lo: number, hi: number): string => {
      const at = slower.filter((_, i) => fell[i]! >= lo && fell[i]! < hi);
      const rate = at.reduce((a, p) => a + (caught.get(p.key) ?? 0), 0) / (at.length * PAIRS);
      return `${at.length} points that fell ${Math.round(lo * 100)}–${Math.round(hi * 100)}%: ${(rate * 100).toFixed(0)}% caught`;
    };
    console.log(`factor 0.9, throughput per GPU: ${band(0, 0.04)}; ${band(0.04, 0.07)}; ${band(0.07, 0.2)}`);
  });
});
