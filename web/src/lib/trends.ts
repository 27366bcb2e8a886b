/**
 * Trends: each series' throughput at one interactivity, run after run. For every date a series was
 * measured, its frontier of throughput per GPU against median interactivity is read at the target
 * with monotone interpolation; a date whose frontier does not reach the target gives no point.
 * Around each line, the noise band run-to-run variation calls for, and at a date whose frontier
 * points either side of the target were measured more than once, their 95% interval read the same way.
 */
import { paretoFront, seriesKey } from '../../../src/contract/index.js';
import type { PointRow, VariationRow } from '../../../src/contract/index.js';
import { seriesColor } from './colors.js';
import { seriesName } from './inference.js';
import { monotoneAt } from './interpolate.js';

/** A trend point's 95% interval: read off the frontier of its points' interval ends; n, the fewest repeats of the points either side. */
export interface TrendInterval {
  date: string;
  lo: number;
  hi: number;
  n: number;
}

export interface TrendSeries {
  key: string;
  name: string;
  color: string;
  hardware: string;
  framework: string;
  /** Every config the series' points came from (on any date). */
  configIds: number[];
  /** [date, throughput per GPU at the target], oldest first. */
  points: [string, number][];
  intervals: TrendInterval[];
}

/** The frontier points on either side of x (one when x is a point's own), as indices into xs (x ascending). */
function bracket(xs: readonly number[], x: number): number[] {
  const hi = xs.findIndex((v) => v >= x);
  if (hi < 0) return [];
  return xs[hi] === x || hi === 0 ? [hi] : [hi - 1, hi];
}

export function trendSeries(rows: readonly PointRow[], target: number, y = 'tput_per_gpu'): TrendSeries[] {
  const bySeries = new Map<string, Map<string, PointRow[]>>();
  for (const r of rows) {
    const key = seriesKey(r);
    const dates = bySeries.get(key) ?? new Map<string, PointRow[]>();
    bySeries.set(key, dates);
    dates.set(r.date, [...(dates.get(r.date) ?? []), r]);
  }
  const out: TrendSeries[] = [];
  for (const [key, dates] of bySeries) {
    const points: [string, number][] = [];
    const intervals: TrendInterval[] = [];
    for (const [date, group] of [...dates].sort(([a], [b]) => a.localeCompare(b))) {
      const xs = group.map((r) => r.metrics.median_intvty ?? NaN);
      const ys = group.map((r) => r.metrics[y] ?? NaN);
      const front = paretoFront(xs, ys, { x: 'max', y: 'max' });
      const fx = front.map((i) => xs[i]!);
      const v = monotoneAt(
        fx,
        front.map((i) => ys[i]!),
        target,
      );
      if (v === undefined) continue;
      points.push([date, Math.max(0, v)]);
      const near = bracket(fx, target).map((k) => group[front[k]!]!);
      const repeated = near.filter((r) => r.n > 1 && r.stats[y]?.ci95);
      if (repeated.length === 0) continue;
      const end = (e: 0 | 1) =>
        monotoneAt(
          fx,
          front.map((i) => group[i]!.stats[y]?.ci95?.[e] ?? ys[i]!),
          target,
        );
      const lo = end(0);
      const hi = end(1);
      if (lo !== undefined && hi !== undefined)
        intervals.push({
          date,
          lo: Math.max(0, Math.min(lo, hi)),
          hi: Math.max(lo, hi),
          n: Math.min(...repeated.map((r) => r.n)),
        });
    }
    const all = [...dates.values()].flat();
    const first = all[0]!;
    out.push({
      key,
      name: seriesName(first),
      color: seriesColor(first.hardware, first.framework, first.precision),
      hardware: first.hardware,
      framework: first.framework,
      configIds: [...new Set(all.map((r) => r.config_id))].sort((a, b) => a - b),
      points,
      intervals,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The run-to-run noise a trend is drawn with: ± 1.96 · cv around it, and what the estimate rests on. */
export interface NoiseBand {
  cv: number;
  samples: number;
  groups: number;
  df: number;
  /** `config`: the series' configs' own history (each has an estimate); `pooled`: its hardware × framework's. */
  scope: 'config' | 'pooled';
  /** How far the band reaches above the line, %: 100 · (e^(1.96·cv) − 1). */
  halfWidthPct: number;
  label: string;
}

/** z of a two-sided 95% interval. */
const Z95 = 1.96;

/**
 * A series' noise band from the variation rows (`/api/v1/variation`) of its metric: its configs'
 * own estimates pooled (weighted by their degrees of freedom) when every config of the series has
 * one, else its hardware × framework's pooled estimate; none when there is neither.
 */
export function noiseBand(s: TrendSeries, rows: readonly VariationRow[], metric = 'tput_per_gpu'): NoiseBand | undefined {
  const of = rows.filter((r) => r.metric === metric && r.hardware === s.hardware && r.framework === s.framework);
  const own = s.configIds.map((id) => of.find((r) => r.scope === 'config' && r.config_id === id));
  let est: Omit<NoiseBand, 'halfWidthPct' | 'label'> | undefined;
  if (own.length > 0 && own.every((r) => r !== undefined)) {
    const df = own.reduce((a, r) => a + r.df, 0);
    est = {
      cv: Math.sqrt(own.reduce((a, r) => a + r.df * r.cv ** 2, 0) / df),
      samples: own.reduce((a, r) => a + r.samples, 0),
      groups: own.reduce((a, r) => a + r.groups, 0),
      df,
      scope: 'config',
    };
  } else {
    const pooled = of.find((r) => r.scope === 'pooled');
    if (pooled) est = { cv: pooled.cv, samples: pooled.samples, groups: pooled.groups, df: pooled.df, scope: 'pooled' };
  }
  if (!est) return undefined;
  const halfWidthPct = 100 * (Math.exp(Z95 * est.cv) - 1);
  const source =
    est.scope === 'pooled'
      ? `pooled over ${s.hardware.toUpperCase()} ${s.framework}`
      : s.configIds.length === 1
        ? 'this config’s history'
        : `its ${s.configIds.length} configs’ history`;
  return {
    ...est,
    halfWidthPct,
    label: `±${halfWidthPct.toFixed(1)}% (1.96·cv, cv ${(100 * est.cv).toFixed(1)}%): ${est.samples} samples of ${est.groups} point${est.groups === 1 ? '' : 's'}, ${source}`,
  };
}

/** The band's ends around each point of a trend: [date, low, high] at value · e^(∓1.96·cv). */
export function bandOf(s: TrendSeries, band: NoiseBand): [string, number, number][] {
  const k = Math.exp(Z95 * band.cv);
  return s.points.map(([date, v]) => [date, v / k, v * k]);
}
