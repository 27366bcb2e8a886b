/**
 * Trends: each series' throughput at one interactivity, run after run. For every date a series was
 * measured, its frontier of throughput per GPU against median interactivity is read at the target
 * with monotone interpolation; a date whose frontier does not reach the target gives no point.
 */
import { paretoFront, seriesKey } from '../../../src/contract/index.js';
import type { PointRow } from '../../../src/contract/index.js';
import { seriesColor } from './colors.js';
import { seriesName } from './inference.js';
import { monotoneAt } from './interpolate.js';

export interface TrendSeries {
  key: string;
  name: string;
  color: string;
  /** [date, throughput per GPU at the target], oldest first. */
  points: [string, number][];
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
    for (const [date, group] of [...dates].sort(([a], [b]) => a.localeCompare(b))) {
      const xs = group.map((r) => r.metrics.median_intvty ?? NaN);
      const ys = group.map((r) => r.metrics[y] ?? NaN);
      const front = paretoFront(xs, ys, { x: 'max', y: 'max' });
      const v = monotoneAt(
        front.map((i) => xs[i]!),
        front.map((i) => ys[i]!),
        target,
      );
      if (v !== undefined) points.push([date, Math.max(0, v)]);
    }
    const first = [...dates.values()][0]![0]!;
    out.push({ key, name: seriesName(first), color: seriesColor(first.hardware, first.framework, first.precision), points });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
