import { useMemo } from 'react';
import type { AvailabilityRow, PointRow } from '../../../src/contract/index.js';
import { query, useApi } from '../api.js';
import { Chart } from '../Chart.js';
import { Filters, scopeOf } from '../Filters.js';
import { html, htmlFormatter, htmlLines } from '../lib/html.js';
import { passesFilters } from '../lib/inference.js';
import { trendSeries } from '../lib/trends.js';
import { seqOf } from '../lib/url-state.js';
import type { ViewState } from '../lib/url-state.js';
import type { Update } from '../navigation.js';

/**
 * The axis tooltip: the date, then each series' throughput at the target. ECharts' own styles its
 * markup inline, which the CSP refuses (docs/dashboard.md).
 */
const trendTooltip = htmlFormatter((at: { seriesName: string; value: [string, number] }[]) =>
  htmlLines(
    html`<b>${at[0]?.value[0] ?? ''}</b>`,
    ...at.map((p) => html`${p.seriesName}: <b>${p.value[1].toFixed(0)}</b> tok/s/GPU`),
  ),
);

export function Trends({ view, update }: { view: ViewState; update: Update }) {
  const availability = useApi<AvailabilityRow[]>('/api/v1/availability');
  const scope = scopeOf(availability.data, view);
  const seq = seqOf(scope.seq);
  const history = useApi<PointRow[]>(
    scope.model && seq
      ? `/api/v1/history?${query({ model: scope.model, isl: seq.isl, osl: seq.osl, metrics: 'median_intvty,tput_per_gpu' })}`
      : undefined,
  );
  const lines = useMemo(
    () =>
      trendSeries(
        (history.data ?? []).filter((r) => passesFilters(r, view)),
        view.target,
      ),
    [history.data, view],
  );
  const option = useMemo(
    () => ({
      animation: false,
      grid: { left: 70, right: 24, top: 40, bottom: 50 },
      legend: { type: 'scroll', top: 0, selectedMode: false },
      tooltip: { trigger: 'axis', confine: true, formatter: trendTooltip },
      xAxis: { type: 'time', name: 'run date', nameLocation: 'middle', nameGap: 30 },
      yAxis: { type: 'value', name: `tok/s/GPU at ${view.target} tok/s/user`, scale: true },
      series: lines.map((l) => ({ type: 'line', name: l.name, data: l.points, color: l.color, symbolSize: 7 })),
    }),
    [lines, view.target],
  );
  const points = lines.reduce((n, l) => n + l.points.length, 0);
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
        interpolation between measured points; a run whose frontier does not reach the target has no point.
      </p>
      <Chart
        option={option}
        height={460}
        testId="trends-chart"
        data={{
          lines: lines.filter((l) => l.points.length > 0).length,
          points,
          loading: availability.data !== undefined && (!seq || history.data !== undefined || history.error !== undefined) ? 0 : 1,
        }}
      />
    </section>
  );
}
