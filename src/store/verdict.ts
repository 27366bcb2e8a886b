/**
 * Did a metric change, beyond noise? Each question compares a run's samples of one point's metric
 * with the baseline's, on the log scale (a change is a ratio, and run-to-run spread is relative),
 * and answers with the change, its 95% interval, a p-value, and after Benjamini–Hochberg across
 * every question of the comparison one verdict: regression, improvement, no significant change,
 * or inconclusive (with what would settle it). docs/verdicts.md says why each choice.
 */
import type { Goal, VerdictName } from '../contract/index.js';
import { benjaminiHochberg, mean, studentQuantile, twoSidedP, welchDf } from '../util/stats.js';

/** One side's samples: `independent` when each value came from a launch of its own (not repeats within one launch). */
export interface SampleSide {
  values: readonly number[];
  independent: boolean;
}

/** A variance of the log of a metric (≈ CV²) and the degrees of freedom it rests on. */
export interface LogVariance {
  s2: number;
  df: number;
}

export interface Question {
  run: SampleSide;
  baseline: SampleSide;
  goal: Goal;
  /** Questions with the same pool (metric, hardware, framework) share what their repeats say about the spread. */
  pool: string;
  /** The spread official history shows for this metric (store/variation.ts), if known. */
  history?: LogVariance | undefined;
}

export interface VerdictSettings {
  /** The false discovery rate across the comparison (default 0.05). */
  alpha: number;
  /** The smallest change called a regression or improvement, % (default 2). */
  minEffectPct: number;
}

export const DEFAULT_VERDICT_SETTINGS: VerdictSettings = { alpha: 0.05, minEffectPct: 2 };

/**
 * A comparison that cannot rule out a change this many times the minimum effect says
 * inconclusive rather than no significant change.
 */
export const RESOLUTION_FACTOR = 2.5;

export type TestName = 'welch' | 'moderated-t';

export interface Answer {
  /** The change of the geometric mean, %. */
  change_pct: number | null;
  ci95_pct: [number, number] | null;
  test: TestName | null;
  df: number | null;
  p: number | null;
  q: number | null;
  verdict: VerdictName;
  /** Why the verdict is inconclusive and what would settle it. */
  note?: string;
}

/** The answer to a question that could not be put to a test, and why. */
export const untested = (note: string): Answer => ({
  change_pct: null,
  ci95_pct: null,
  test: null,
  df: null,
  p: null,
  q: null,
  verdict: 'inconclusive',
  note,
});

const pct = (logRatio: number): number => Math.expm1(logRatio) * 100;

/** The launches a side stands for: repeats within one launch are one launch's worth of evidence. */
const launches = (s: SampleSide): number => (s.independent ? s.values.length : 1);

const positive = (xs: readonly number[]): boolean => xs.every((v) => v > 0 && Number.isFinite(v));

/** ln(run / baseline) of the geometric means; undefined when a value is not a positive number. */
function logRatio(q: Question): number | undefined {
  if (!positive(q.run.values) || !positive(q.baseline.values)) return undefined;
  return mean(q.run.values.map(Math.log)) - mean(q.baseline.values.map(Math.log));
}

/** The side's own spread: squared deviations of the logs and their degrees of freedom (none unless its repeats were launches). */
function ownSpread(s: SampleSide): { ss: number; df: number } {
  if (!s.independent || s.values.length < 2) return { ss: 0, df: 0 };
  const logs = s.values.map(Math.log);
  const m = mean(logs);
  return { ss: logs.reduce((a, x) => a + (x - m) ** 2, 0), df: logs.length - 1 };
}

interface Tested {
  d: number;
  se: number;
  /** The spread of one launch's log value this test assumed. */
  sigma: number;
  df: number;
  test: TestName;
  p: number;
}

/**
 * The test that fits the samples. With a spread known beyond the point itself (history, or other
 * points of the same pool in this comparison), a moderated t (Smyth 2004): the point's own
 * variance shrunk toward the pool's, degrees of freedom added. With only the two sides' repeats,
 * Welch's t. With neither, no test.
 */
function testOne(q: Question, prior: LogVariance): Tested | string {
  const { run, baseline } = q;
  const d = logRatio(q);
  if (d === undefined) return 'a value is not a positive number: changes are ratios';
  const a = ownSpread(run);
  const b = ownSpread(baseline);
  const na = launches(run);
  const nb = launches(baseline);
  if (prior.df > 0 || a.df > 0 !== b.df > 0) {
    const df = prior.df + a.df + b.df;
    if (df === 0) return 'no spread to test against';
    const s2 = (prior.s2 * prior.df + a.ss + b.ss) / df;
    const se = Math.sqrt(s2 * (1 / na + 1 / nb));
    return { d, se, sigma: Math.sqrt(s2), df, test: 'moderated-t', p: se === 0 ? (d === 0 ? 1 : 0) : twoSidedP(d / se, df) };
  }
  if (a.df > 0 && b.df > 0) {
    const va = a.ss / a.df / na;
    const vb = b.ss / b.df / nb;
    const se = Math.sqrt(va + vb);
    const df = welchDf(va, na, vb, nb);
    return {
      d,
      se,
      sigma: Math.sqrt((a.ss + b.ss) / (a.df + b.df)),
      df,
      test: 'welch',
      p: se === 0 ? (d === 0 ? 1 : 0) : twoSidedP(d / se, df),
    };
  }
  return 'one launch a side and no history of its spread: measure with --repeats 3 (fresh launches), or build official history';
}

/** The pool's spread without the question's own repeats, plus history: what the question is moderated toward. */
function priors(questions: readonly Question[]): LogVariance[] {
  const pools = new Map<string, { ss: number; df: number }>();
  const own = questions.map((q) => {
    const a = ownSpread(q.run);
    const b = ownSpread(q.baseline);
    const o = { ss: a.ss + b.ss, df: a.df + b.df };
    const p = pools.get(q.pool) ?? { ss: 0, df: 0 };
    pools.set(q.pool, { ss: p.ss + o.ss, df: p.df + o.df });
    return o;
  });
  return questions.map((q, i) => {
    const pool = pools.get(q.pool)!;
    const h = q.history ?? { s2: 0, df: 0 };
    const ss = pool.ss - own[i]!.ss + h.s2 * h.df;
    const df = pool.df - own[i]!.df + h.df;
    return { s2: df > 0 ? ss / df : 0, df };
  });
}

/** Every question answered, the false discovery rate controlled across all of them. */
export function answer(questions: readonly Question[], settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS): Answer[] {
  const prior = priors(questions);
  const tested = questions.map((q, i) => testOne(q, prior[i]!));
  const ps = tested.flatMap((t) => (typeof t === 'string' ? [] : [t.p]));
  const qs = benjaminiHochberg(ps);
  let k = 0;
  return tested.map((t, i) => {
    if (typeof t === 'string') {
      const d = logRatio(questions[i]!);
      return { ...untested(t), change_pct: d === undefined ? null : pct(d) };
    }
    return verdictOf(t, qs[k++]!, questions[i]!.goal, settings);
  });
}

function verdictOf(t: Tested, q: number, goal: Goal, settings: VerdictSettings): Answer {
  const half = studentQuantile(0.975, t.df) * t.se;
  const change = pct(t.d);
  const base = {
    change_pct: change,
    ci95_pct: [pct(t.d - half), pct(t.d + half)] as [number, number],
    test: t.test,
    df: t.df,
    p: t.p,
    q,
  };
  if (q <= settings.alpha && Math.abs(change) >= settings.minEffectPct) {
    const better = goal === 'max' ? t.d > 0 : t.d < 0;
    return { ...base, verdict: better ? 'improvement' : 'regression' };
  }
  const resolution = settings.minEffectPct * RESOLUTION_FACTOR;
  const widest = Math.max(Math.abs(base.ci95_pct[0]), Math.abs(base.ci95_pct[1]));
  if (widest <= resolution) return { ...base, verdict: 'no significant change' };
  return { ...base, verdict: 'inconclusive', note: settleNote(t, resolution) };
}

/** How many launches a side would narrow the interval to ±resolution, at the spread this test saw. */
function settleNote(t: Tested, resolution: number): string {
  const target = Math.log1p(resolution / 100);
  const n = Math.max(2, Math.ceil(2 * ((1.96 * t.sigma) / target) ** 2));
  return `the interval is wider than ±${resolution}%: about ${n} launches a side (--repeats ${n}) would narrow it`;
}
