/**
 * What the inference chart draws, from the API's points and the view: the points that pass the
 * filters, grouped into series (hardware × engine × precision × spec decoding × disagg, each its
 * newest sweep), each point's x and y (measured or derived), and each series' Pareto frontier in
 * the direction the two metrics call for. Pure, so the chart, the CSV and the tests agree.
 */
import { configLabel, configTopology, latestSeries, metricDef, paretoFront, topologyLabel } from '../../../src/contract/index.js';
import type { PointRow, PowerSource } from '../../../src/contract/index.js';
import { seriesColor } from './colors.js';
import { isEnergyAxis, measuredOnly, pointInterval, pointValue } from './metrics.js';
import type { Interval, Tco } from './metrics.js';
import { tiesWithinNoise } from './noise.js';
import type { ViewState } from './url-state.js';

export interface PlottedPoint {
  row: PointRow;
  x: number;
  y: number;
  label: string;
  topology: string;
  onFrontier: boolean;
  /** The 95% intervals over the point's repeats on each axis; undefined when it was measured once. */
  xInterval: Interval | undefined;
  yInterval: Interval | undefined;
  /** The points that beat it, each only within noise (lib/noise.ts); empty unless it is tied within noise. */
  tiedWith: PlottedPoint[];
}

export interface Series {
  key: string;
  name: string;
  color: string;
  precision: string;
  /** A run drawn over the official results. */
  overlay: boolean;
  /** Every point of the series with both coordinates (the frontier's first). */
  points: PlottedPoint[];
  /** The frontier, x ascending. */
  frontier: PlottedPoint[];
}

export interface InferenceView {
  series: Series[];
  /** The points drawn (all, or only the frontier's with hide-non-optimal). */
  visible: PlottedPoint[];
  /** Points that pass the filters but lack a coordinate (no TCO figures for their hardware, …). */
  missing: { hardware: string; count: number }[];
  /** On a measured energy axis: points left out for want of valid measured power. */
  unmeasured: number;
  /** On a measured energy axis: where the drawn points' power came from. */
  sources: Set<PowerSource | null>;
}

export function passesFilters(
  r: Pick<PointRow, 'hardware' | 'framework' | 'precision' | 'spec_method' | 'disagg'>,
  s: ViewState,
): boolean {
  if (s.hw.length > 0 && !s.hw.includes(r.hardware)) return false;
  if (s.fw.length > 0 && !s.fw.includes(r.framework)) return false;
  if (s.prec.length > 0 && !s.prec.includes(r.precision)) return false;
  if (s.spec.length > 0 && !s.spec.includes(r.spec_method)) return false;
  if (s.disagg !== 'all' && r.disagg !== (s.disagg === 'disagg')) return false;
  return true;
}

export function seriesName(r: Pick<PointRow, 'hardware' | 'framework' | 'precision' | 'spec_method' | 'disagg'>): string {
  return `${r.hardware.toUpperCase()} ${r.framework} ${r.precision}${r.spec_method !== 'none' ? ` ${r.spec_method}` : ''}${r.disagg ? ' disagg' : ''}`;
}

export function inferenceView(
  rows: readonly PointRow[],
  s: ViewState,
  tco: Readonly<Record<string, Tco>>,
  overlay = false,
): InferenceView {
  const goals = { x: metricDef(s.x)?.goal ?? 'max', y: metricDef(s.y)?.goal ?? 'max' };
  const missing = new Map<string, number>();
  const measuredAxis = (k: string) => isEnergyAxis(k) && (s.energy === 'measured' || measuredOnly(k));
  const measured = measuredAxis(s.x) || measuredAxis(s.y);
  let unmeasured = 0;
  const sources = new Set<PowerSource | null>();
  const series: Series[] = [];
  for (const [key, group] of latestSeries(rows.filter((r) => passesFilters(r, s)))) {
    const points: PlottedPoint[] = [];
    for (const row of group) {
      const x = pointValue(row, s.x, tco, s.energy);
      const y = pointValue(row, s.y, tco, s.energy);
      if (x === undefined || y === undefined) {
        // On a measured axis a point is left out for want of valid power, not of TCO figures.
        if ((measuredAxis(s.x) && x === undefined) || (measuredAxis(s.y) && y === undefined)) unmeasured++;
        else missing.set(row.hardware, (missing.get(row.hardware) ?? 0) + 1);
        continue;
      }
      if (measured) sources.add(row.power_source);
      points.push({
        row,
        x,
        y,
        label: configLabel(row),
        topology: topologyLabel(configTopology(row)),
        onFrontier: false,
        xInterval: pointInterval(row, s.x, tco, s.energy),
        yInterval: pointInterval(row, s.y, tco, s.energy),
        tiedWith: [],
      });
    }
    if (points.length === 0) continue;
    const front = paretoFront(
      points.map((p) => p.x),
      points.map((p) => p.y),
      goals,
    );
    for (const i of front) points[i]!.onFrontier = true;
    const first = points[0]!.row;
    series.push({
      key: overlay ? `run:${key}` : key,
      name: `${seriesName(first)}${overlay ? ` · run ${first.run_id}` : ''}`,
      color: seriesColor(first.hardware, first.framework, first.precision),
      precision: first.precision,
      overlay,
      points,
      frontier: front.map((i) => points[i]!),
    });
  }
  series.sort((a, b) => a.name.localeCompare(b.name));
  const visible = series.flatMap((x) => (s.optimal ? x.frontier : x.points));
  // Tied within noise: beaten by any point of any series of this view, each only within noise.
  const all = series.flatMap((x) => x.points);
  const index = new Map(all.map((p, i) => [p, i]));
  for (const [i, by] of tiesWithinNoise(
    all,
    visible.map((p) => index.get(p)!),
    goals,
  ))
    all[i]!.tiedWith = by.map((j) => all[j]!);
  return { series, visible, missing: [...missing].map(([hardware, count]) => ({ hardware, count })), unmeasured, sources };
}
