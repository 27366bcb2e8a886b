import { findHardware, findModel } from '../catalog.js';
import type { Efficiency } from '../perf.js';
import type { EfficiencyProfile, ProfileEntry, ProfileMatch } from '../profile.js';
import { frameworkOf, resolveEfficiency } from '../profile.js';
import type { AccuracyReport, PointError, Prediction } from './accuracy.js';
import { errorOf, predict, ratios, summarise } from './accuracy.js';
import { median, weightedMedian } from '../../util/median.js';
import type { MeasuredPoint } from './points.js';

/**
 * Fitting an efficiency profile to measured points. Level by level, from the most general
 * (`vendor`) to the slices asked for (`hardware,engine` by default), each group of points gets
 * its own `compute` and `memory` efficiencies (Gauss–Newton in log space on throughput per GPU
 * and interactivity, pulled towards the level above so a group of one point cannot run off) and
 * its fixed request latency (`requestOverheadMs`, from the TTFT gaps). A group's entry
 * records the points it saw and its error on them. Groups of a level are disjoint, so one
 * simulation of every point evaluates them all at once.
 */

export type Dimension = keyof ProfileMatch;
export const DIMENSIONS: readonly Dimension[] = ['vendor', 'hardware', 'engine', 'model'];

export interface FitOptions {
  /** The levels, general to specific, e.g. [['vendor'], ['hardware', 'engine']]. */
  levels: Dimension[][];
  /** Gauss–Newton steps per level (default 3). */
  iterations?: number | undefined;
  /** Told after each simulation pass. */
  progress?: ((message: string) => void) | undefined;
}

export const DEFAULT_LEVELS: Dimension[][] = [['vendor'], ['hardware', 'engine']];

const FITTED = ['compute', 'memory'] as const;
const BOUNDS: Record<(typeof FITTED)[number], [number, number]> = { compute: [0.05, 0.95], memory: [0.1, 0.98] };
/** Weight of the pull towards the level above, per squared log-ratio. */
const PRIOR = 0.05;
const STEP = 0.05;
/**
 * The most a fixed request latency may be: TTFT far beyond it comes from queueing the model does
 * not reproduce (a wave of prompts at a TensorRT-LLM engine's admission limit), and a latency of
 * seconds would pass that error on to every concurrency; it stays visible in the TTFT error.
 */
export const MAX_LATENCY_MS = 500;

const valueOf = (p: MeasuredPoint, d: Dimension): string => {
  const hw = findHardware(p.hardware);
  if (d === 'vendor') return hw.vendor;
  if (d === 'hardware') return hw.id;
  if (d === 'engine') return frameworkOf(p.engine);
  return findModel(p.model).id;
};

const keyOf = (p: MeasuredPoint) => ({ hardware: findHardware(p.hardware), engine: p.engine, model: findModel(p.model) });

interface Group {
  match: ProfileMatch;
  points: MeasuredPoint[];
  /** log compute, log memory */
  theta: number[];
  /** Where the level above left them: the pull's target. */
  prior: number[];
  overheadMs: number;
  loss: number;
  residuals?: number[] | undefined;
  /** Share of the Gauss–Newton step taken: halved after a step that did not lower the loss. */
  step: number;
}

/** Fit `levels` onto `base` (its entries kept as the starting point); returns the new profile. */
export function fitProfile(points: readonly MeasuredPoint[], base: EfficiencyProfile, options: FitOptions): EfficiencyProfile {
  let profile: EfficiencyProfile = { ...base, entries: [...base.entries] };
  for (const level of options.levels) {
    const groups = groupBy(points, level).map(([match, members]): Group => {
      const start = resolveEfficiency(profile, keyOf(members[0]!));
      const theta = FITTED.map((k) => Math.log(start[k]));
      return { match, points: members, theta, prior: [...theta], overheadMs: start.requestOverheadMs, loss: Infinity, step: 1 };
    });
    const predictions = fitLevel(groups, profile, options);
    const entries: ProfileEntry[] = groups.map((g, gi) => {
      const factors = factorsOf(g);
      const errors = g.points.map((p, i) => ratios(p, predictions[gi]![i]!));
      return {
        match: g.match,
        factors: roundFactors(factors),
        fit: {
          points: g.points.map((p) => p.id),
          error: {
            tputPerGpu: round(median(errors.map((e) => errorOf(e.tputPerGpu))), 3),
            interactivity: round(median(errors.map((e) => errorOf(e.interactivity))), 3),
            ttft: round(median(errors.map((e) => errorOf(e.ttft))), 3),
          },
        },
      };
    });
    profile = { ...profile, entries: [...profile.entries, ...entries] };
    options.progress?.(`fitted ${level.join('×')}: ${groups.length} group(s)`);
  }
  return profile;
}

function groupBy(points: readonly MeasuredPoint[], level: Dimension[]): [ProfileMatch, MeasuredPoint[]][] {
  const groups = new Map<string, [ProfileMatch, MeasuredPoint[]]>();
  for (const p of points) {
    const match: ProfileMatch = Object.fromEntries(level.map((d) => [d, valueOf(p, d)]));
    const k = JSON.stringify(match);
    if (!groups.has(k)) groups.set(k, [match, []]);
    groups.get(k)![1].push(p);
  }
  return [...groups.values()];
}

const clampLog = (i: number, v: number): number => {
  const [lo, hi] = BOUNDS[FITTED[i]!];
  return Math.min(Math.log(hi), Math.max(Math.log(lo), v));
};

const factorsOf = (g: Group, theta = g.theta): Partial<Efficiency> => ({
  compute: Math.exp(theta[0]!),
  memory: Math.exp(theta[1]!),
  requestOverheadMs: g.overheadMs,
});

/** Residuals of a group: log ratios of throughput and interactivity, and the pull towards the prior. */
function residualsOf(g: Group, predictions: Prediction[], theta: number[]): number[] {
  const r: number[] = [];
  g.points.forEach((p, i) => {
    const ratio = ratios(p, predictions[i]!);
    r.push(Math.log(ratio.tputPerGpu), Math.log(ratio.interactivity));
  });
  theta.forEach((t, i) => r.push(Math.sqrt(PRIOR) * (t - g.prior[i]!)));
  return r;
}

const sumSq = (r: number[]): number => r.reduce((s, x) => s + x * x, 0);

function fitLevel(groups: Group[], profile: EfficiencyProfile, options: FitOptions): Prediction[][] {
  const simulate = (theta: (g: Group) => number[]): Prediction[][] =>
    groups.map((g) => g.points.map((p) => predict(p, profile, factorsOf(g, theta(g)))));
  const current = simulate((g) => g.theta);
  groups.forEach((g, gi) => {
    g.residuals = residualsOf(g, current[gi]!, g.theta);
    g.loss = sumSq(g.residuals);
  });
  // The Jacobian by forward differences, once (in log space it barely changes over a few
  // steps): one pass per parameter serves every group.
  const columns = FITTED.map((_, j) => {
    const shift = (g: Group): number[] => g.theta.map((t, i) => (i === j ? t + STEP : t));
    const shifted = simulate(shift);
    return groups.map((g, gi) => residualsOf(g, shifted[gi]!, shift(g)).map((x, k) => (x - g.residuals![k]!) / STEP));
  });
  const jacobians = groups.map((g, gi) => g.residuals!.map((_, k) => FITTED.map((__, j) => columns[j]![gi]![k]!)));
  const iterations = options.iterations ?? 3;
  for (let it = 0; it < iterations; it++) {
    // The fixed request latency: each point's TTFT moves one for one with it, so the latency
    // that minimises the sum of relative TTFT errors is the median of the gaps weighted by
    // 1 / measured TTFT (it fits one point exactly and is not pulled by one far off).
    groups.forEach((g, gi) => {
      const gaps = g.points.map((p, i) => ({
        value: (p.measured.ttftS - current[gi]![i]!.ttftS) * 1e3,
        weight: 1 / p.measured.ttftS,
      }));
      g.overheadMs = Math.min(MAX_LATENCY_MS, Math.max(0, g.overheadMs + weightedMedian(gaps)));
    });
    const proposals = groups.map((g, gi) => {
      const delta = gaussNewton(jacobians[gi]!, g.residuals!);
      return g.theta.map((t, i) => clampLog(i, t - g.step * delta[i]!));
    });
    const tried = simulate((g) => proposals[groups.indexOf(g)]!);
    groups.forEach((g, gi) => {
      const r = residualsOf(g, tried[gi]!, proposals[gi]!);
      const loss = sumSq(r);
      if (loss < g.loss) {
        g.theta = proposals[gi]!;
        g.residuals = r;
        g.loss = loss;
        current[gi] = tried[gi]!;
        g.step = Math.min(1, g.step * 2);
      } else g.step /= 2;
    });
    options.progress?.(`  step ${it + 1}/${iterations}: loss ${groups.reduce((s, g) => s + g.loss, 0).toFixed(4)}`);
  }
  return current;
}

/** Solve (JᵀJ + εI) δ = Jᵀr for the two parameters. */
function gaussNewton(J: number[][], r: number[]): number[] {
  let a = 1e-6;
  let b = 0;
  let d = 1e-6;
  let g0 = 0;
  let g1 = 0;
  J.forEach((row, k) => {
    a += row[0]! * row[0]!;
    b += row[0]! * row[1]!;
    d += row[1]! * row[1]!;
    g0 += row[0]! * r[k]!;
    g1 += row[1]! * r[k]!;
  });
  const det = a * d - b * b;
  if (Math.abs(det) < 1e-12) return [0, 0];
  return [(d * g0 - b * g1) / det, (a * g1 - b * g0) / det];
}

const round = (v: number, digits: number): number => Number(v.toFixed(digits));

function roundFactors(f: Partial<Efficiency>): Partial<Efficiency> {
  return Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(v, k === 'requestOverheadMs' ? 1 : 4)]));
}

/** The profile's hand-set entries (with a source), without any fitted ones: where a refit starts. */
export function unfitted(profile: EfficiencyProfile): EfficiencyProfile {
  return { description: profile.description, entries: profile.entries.filter((e) => e.fit === undefined) };
}

/**
 * `k` folds of the points for cross-validation: within each group of the most specific level,
 * points are dealt to the folds in turn (by id, continuing across groups), so a slice with two or
 * more points is seen by more than one fold.
 */
export function folds(points: readonly MeasuredPoint[], level: Dimension[], k: number): MeasuredPoint[][] {
  const out: MeasuredPoint[][] = Array.from({ length: k }, () => []);
  let next = 0;
  for (const [, members] of groupBy(points, level)) {
    for (const p of [...members].sort((x, y) => x.id.localeCompare(y.id))) out[next++ % k]!.push(p);
  }
  return out;
}

/** k-fold cross-validation: each fold predicted by a profile fitted on the others. */
export function crossValidate(
  points: readonly MeasuredPoint[],
  base: EfficiencyProfile,
  levels: Dimension[][],
  k: number,
  progress?: (message: string) => void,
): AccuracyReport {
  const parts = folds(points, levels.at(-1)!, Math.max(2, k));
  const errors: PointError[] = [];
  parts.forEach((heldOut, i) => {
    const training = parts.filter((_, j) => j !== i).flat();
    const profile = fitProfile(training, base, { levels });
    progress?.(`cross-validation: fold ${i + 1}/${parts.length} fitted on ${training.length} points`);
    for (const point of heldOut) {
      const predicted = predict(point, profile);
      errors.push({ point, predicted, ratio: ratios(point, predicted) });
    }
  });
  return summarise(errors);
}
