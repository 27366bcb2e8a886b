import { useMemo } from 'react';
import type { AvailabilityRow, PointRow, VariationRow } from '../../../src/contract/index.js';
import { query, useApi } from '../api.js';
import { Chart } from '../Chart.js';
import { Filters, scopeOf } from '../Filters.js';
import { html, htmlFormatter, htmlLines } from '../lib/html.js';
import { passesFilters } from '../lib/inference.js';
import { bandOf, noiseBand, trendSeries } from '../lib/trends.js';
import type { NoiseBand, TrendInterval, TrendSeries } from '../lib/trends.js';
import { seqOf } from '../lib/url-state.js';
import type { ViewState } from '../lib/url-state.js';
import type { Update } from '../navigation.js';

/** A line as drawn: its points, their intervals by date, and its noise band (none without an estimate). */
interface Line {
  series: TrendSeries;
  band: NoiseBand | undefined;
  intervals: Map<string, TrendInterval>;
}

interface AxisItem {
  seriesId: string;
  seriesName: string;
  value: [string, number];
}

/**
 * The axis tooltip: the date, then each series' throughput at the target, with its 95% interval
 * where its points had repeats and its noise band. ECharts' own styles its markup inline, which
 * the CSP refuses (docs/dashboard.md).
 */
function trendTooltip(lines: ReadonlyMap<string, Line>) {
  return htmlFormatter((at: AxisItem[]) => {
    const shown = at.filter((p) => lines.has(p.seriesId));
    return htmlLines(
      html`<b>${shown[0]?.value[0] ?? at[0]?.value[0] ?? ''}</b>`,
      ...shown.map((p) => {
        const line = lines.get(p.seriesId)!;
        const ci = line.intervals.get(p.value[0]);
        return html`${p.seriesName}: <b>${p.value[1].toFixed(0)}</b> tok/s/GPU${
            ci ? ` (n = ${ci.n}, 95% CI ${ci.lo.toFixed(0)}–${ci.hi.toFixed(0)})` : ' (one sample)'
          }${line.band ? `; noise ±${line.band.halfWidthPct.toFixed(1)}%` : ''}`;
      }),
    );
  });
}

interface RenderApi {
  value(dim: number): number;
  coord(point: [number, number]): [number, number];
}

/** Vertical whiskers with caps: a trend point's 95% interval. */
function intervalSeries(id: string, color: string, intervals: readonly TrendInterval[]): object {
  return {
    id,
    type: 'custom',
    data: intervals.map((i) => [i.date, i.lo, i.hi]),
    encode: { x: 0, y: [1, 2] },
    silent: true,
    z: 3,
    renderItem: (_params: unknown, api: RenderApi) => {
      const lo = api.coord([api.value(0), api.value(1)]);
      const hi = api.coord([api.value(0), api.value(2)]);
      const style = { stroke: color, lineWidth: 1.3 };
      const line = (a: [number, number], b: [number, number]) => ({
        type: 'line',
        shape: { x1: a[0], y1: a[1], x2: b[0], y2: b[1] },
        style,
      });
      return {
        type: 'group',
        children: [line(lo, hi), line([lo[0] - 4, lo[1]], [lo[0] + 4, lo[1]]), line([hi[0] - 4, hi[1]], [hi[0] + 4, hi[1]])],
      };
    },
  };
}

/**
 * A line's noise band, shaded: each date's item draws the stretch to the next date (a quadrilateral
 * between the two dates' ends), so the pieces join into one band; a line of one date gets a bar as
 * wide as a marker. Each item carries its next date's ends, as time dimensions ECharts parses.
 */
function bandSeries(id: string, name: string, color: string, band: readonly [string, number, number][]): object {
  const lone = band.length === 1;
  return {
    id,
    name,
    type: 'custom',
    dimensions: [{ name: 'date', type: 'time' }, 'low', 'high', { name: 'next', type: 'time' }, 'next low', 'next high'],
    data: band.map((b, i) => [...b, ...(band[i + 1] ?? b)]),
    encode: { x: [0, 3], y: [1, 2, 4, 5] },
    silent: true,
    z: 1,
    itemStyle: { color, opacity: 0.18 },
    legendIcon: 'rect',
    renderItem: (params: { dataIndex: number }, api: RenderApi) => {
      const style = { fill: color, opacity: 0.18 };
      const lo = api.coord([api.value(0), api.value(1)]);
      const hi = api.coord([api.value(0), api.value(2)]);
      if (lone) return { type: 'rect', shape: { x: lo[0] - 7, y: hi[1], width: 14, height: lo[1] - hi[1] }, style };
      if (params.dataIndex === band.length - 1) return null;
      const nextLo = api.coord([api.value(3), api.value(4)]);
      const nextHi = api.coord([api.value(3), api.value(5)]);
      return { type: 'polygon', shape: { points: [lo, nextLo, nextHi, hi] }, style };
    },
  };
}

/** The band's legend entry: what it is and what it rests on, in short. */
const bandName = (l: Line) => `${l.series.name} noise ±${l.band!.halfWidthPct.toFixed(1)}% (${l.band!.samples} samples)`;

export function Trends({ view, update }: { view: ViewState; update: Update }) {
  const availability = useApi<AvailabilityRow[]>('/api/v1/availability');
  const scope = scopeOf(availability.data, view);
  const seq = seqOf(scope.seq);
  const history = useApi<PointRow[]>(
    scope.model && seq
      ? `/api/v1/history?${query({ model: scope.model, isl: seq.isl, osl: seq.osl, metrics: 'median_intvty,tput_per_gpu' })}`
      : undefined,
  );
  const variation = useApi<VariationRow[]>(
    scope.model ? `/api/v1/variation?${query({ model: scope.model, metrics: 'tput_per_gpu' })}` : undefined,
  );
  const lines = useMemo(
    () =>
      trendSeries(
        (history.data ?? []).filter((r) => passesFilters(r, view)),
        view.target,
      ).map((series): Line => ({
        series,
        band: noiseBand(series, variation.data ?? []),
        intervals: new Map(series.intervals.map((i) => [i.date, i])),
      })),
    [history.data, variation.data, view],
  );
  const drawn = lines.filter((l) => l.series.points.length > 0);
  const banded = drawn.filter((l) => l.band !== undefined);
  const option = useMemo(() => {
    const out: object[] = [];
    for (const l of lines) {
      const { key, name, color, points } = l.series;
      out.push({ id: key, type: 'line', name, data: points, color, symbolSize: 7, z: 3 });
      if (l.band && points.length > 0) out.push(bandSeries(`${key}:band`, bandName(l), color, bandOf(l.series, l.band)));
      if (l.series.intervals.length > 0) out.push(intervalSeries(`${key}:intervals`, color, l.series.intervals));
    }
    return {
      animation: false,
      grid: { left: 70, right: 24, top: 40, bottom: 50 },
      legend: {
        type: 'scroll',
        top: 0,
        selectedMode: false,
        data: [...lines.map((l) => l.series.name), ...banded.map(bandName)],
      },
      tooltip: { trigger: 'axis', confine: true, formatter: trendTooltip(new Map(lines.map((l) => [l.series.key, l]))) },
      xAxis: { type: 'time', name: 'run date', nameLocation: 'middle', nameGap: 30 },
      yAxis: { type: 'value', name: `tok/s/GPU at ${view.target} tok/s/user`, scale: true },
      series: out,
    };
  }, [lines, view.target]);
  const points = drawn.reduce((n, l) => n + l.series.points.length, 0);
  const intervals = drawn.reduce((n, l) => n + l.series.intervals.length, 0);
  const done = (l: { data: unknown; error: string | undefined }) => l.data !== undefined || l.error !== undefined;
  return (
    <section>
      <h1>Trends: throughput per GPU at {view.target} tok/s/user, run after run</h1>
      <Filters view={view} update={update} scope={scope} dates={false} />
      <div className="controls">
        <label>
          Interactivity (tok/s/user)
          <input
            type="number"
            name="target"
            min={1}
            step={1}
            value={view.target}
            onChange={(e) => Number(e.target.value) > 0 && update({ target: Number(e.target.value) }, { replace: true })}
          />
        </label>
      </div>
      <p className="note">
        Each point reads a series’ frontier (throughput per GPU against median interactivity) at the target, by monotone
        interpolation between measured points; a run whose frontier does not reach the target has no point. The shaded band around
        a line is the run-to-run noise official history shows (± 1.96 · cv): a step that stays inside it is not told apart from
        noise. A whisker is a point’s 95% interval where the points either side of the target were measured more than once.
      </p>
      <Chart
        option={option}
        height={460}
        testId="trends-chart"
        data={{
          lines: drawn.length,
          points,
          bands: banded.length,
          intervals,
          loading: availability.data !== undefined && (!seq || done(history)) && (!scope.model || done(variation)) ? 0 : 1,
        }}
      />
      {drawn.length > 0 && (
        <ul className="note" data-testid="noise-bands">
          {drawn.map((l) => (
            <li key={l.series.key} data-band={l.band ? l.band.scope : 'none'}>
              {l.series.name}:{' '}
              {l.band
                ? `noise band ${l.band.label}`
                : 'no noise band: official history has no point of its configs measured more than once'}
              {l.series.intervals.length > 0
                ? `; ${l.series.intervals.length} point${l.series.intervals.length === 1 ? '' : 's'} with a 95% interval from repeats`
                : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
