/**
 * The Pareto frontier of a series of points, named by objective (maximise or minimise each axis)
 * rather than by the shape of the curve (the reference's `upper_left` is "maximise x and y").
 * One module for the API and the dashboard, so both draw the same frontier.
 */
import type { PointRow } from './api.js';
import type { Goal } from './metrics.js';

/**
 * Indices of the points on the frontier, ordered by x ascending: the points that no other point
 * beats or equals on both axes while beating it on one. Of points with the same x only the best y
 * can be on it; non-finite coordinates are never on it.
 */
export function paretoFront(xs: readonly number[], ys: readonly number[], goals: { x: Goal; y: Goal }): number[] {
  const sx = goals.x === 'max' ? -1 : 1;
  const sy = goals.y === 'max' ? -1 : 1;
  // Best x first; among equal x, best y first. Then a point is on the front when its y beats every y before it.
  const order = xs
    .map((_, i) => i)
    .filter((i) => Number.isFinite(xs[i]) && Number.isFinite(ys[i]))
    .sort((a, b) => sx * (xs[a]! - xs[b]!) || sy * (ys[a]! - ys[b]!));
  const front: number[] = [];
  let best = Infinity;
  for (const i of order) {
    const y = sy * ys[i]!;
    if (y < best) {
      best = y;
      front.push(i);
    }
  }
  return front.sort((a, b) => xs[a]! - xs[b]!);
}

/** What a point needs to be placed in a series. */
export type SeriesPoint = Pick<
  PointRow,
  'hardware' | 'framework' | 'precision' | 'spec_method' | 'disagg' | 'isl' | 'osl' | 'date'
>;

/** The series a point belongs to: one line per hardware × framework × precision × spec decoding × disagg, per sequence. */
export function seriesKey(p: SeriesPoint): string {
  return `${p.hardware}/${p.framework}/${p.precision}/${p.spec_method}/${p.disagg ? 'disagg' : 'agg'}/${p.isl}x${p.osl}`;
}

/**
 * Points grouped into series, each keeping only the points of its most recent date: a curve is one
 * sweep's snapshot, so an older sweep's configs (another parallelism, an older image) do not mix in.
 */
export function latestSeries<T extends SeriesPoint>(points: readonly T[]): Map<string, T[]> {
  const series = new Map<string, T[]>();
  for (const p of points) {
    const key = seriesKey(p);
    const list = series.get(key);
    if (list) list.push(p);
    else series.set(key, [p]);
  }
  for (const [key, list] of series) {
    const newest = list.reduce((d, p) => (p.date > d ? p.date : d), '');
    series.set(
      key,
      list.filter((p) => p.date === newest),
    );
  }
  return series;
}

/** One series (latestSeries) on metrics x and y: its points, their coordinates, and the indices of its frontier. */
export interface SeriesFrontier<T> {
  key: string;
  /** What its points share: hardware, engine, precision, spec decoding, disagg, sequence and date. */
  identity: SeriesPoint;
  points: T[];
  xs: number[];
  ys: number[];
  frontier: number[];
}

/** Each series' latest points on the metrics `x` and `y`, with its frontier: what the API's /pareto and the MCP server answer. */
export function seriesFrontiers<T extends SeriesPoint & Pick<PointRow, 'metrics'>>(
  points: readonly T[],
  x: string,
  y: string,
  goals: { x: Goal; y: Goal },
): SeriesFrontier<T>[] {
  return [...latestSeries(points)].map(([key, list]) => {
    const xs = list.map((p) => p.metrics[x] ?? NaN);
    const ys = list.map((p) => p.metrics[y] ?? NaN);
    const { hardware, framework, precision, spec_method, disagg, isl, osl, date } = list[0]!;
    const identity = { hardware, framework, precision, spec_method, disagg, isl, osl, date };
    return { key, identity, points: list, xs, ys, frontier: paretoFront(xs, ys, goals) };
  });
}
