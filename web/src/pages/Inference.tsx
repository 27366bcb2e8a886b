import { useMemo, useRef } from 'react';
import { MEASURED_POWER_KEYS, metricDef } from '../../../src/contract/index.js';
import type {
  AvailabilityRow,
  Comparison,
  MetricDelta,
  PointRow,
  PowerSource,
  PredictedFrontierAnswer,
} from '../../../src/contract/index.js';
import { query, useApi, useApiEach } from '../api.js';
import { Chart, download } from '../Chart.js';
import type { ChartHandle } from '../Chart.js';
import { Filters, scopeOf } from '../Filters.js';
import { toCsv } from '../lib/csv.js';
import type { CsvColumn } from '../lib/csv.js';
import { htmlFormatter } from '../lib/html.js';
import { inferenceView } from '../lib/inference.js';
import { predictedNote, predictedPoints, predictedRequests, predictedTooltip } from '../lib/predicted.js';
import type { PredictedFailure, PredictedPoint, PredictedRequest } from '../lib/predicted.js';
import { pointTooltip } from '../lib/tooltip.js';
import type { PlottedPoint, Series } from '../lib/inference.js';
import { X_METRICS, Y_METRICS, axisName, energyAxisName, energySourceLabel, isEnergyAxis, measuredOnly } from '../lib/metrics.js';
import type { EnergyMode } from '../lib/metrics.js';
import { PRESETS, seqOf, tcoOf, toUrl } from '../lib/url-state.js';
import type { ViewState } from '../lib/url-state.js';
import { Link } from '../navigation.js';
import type { Update } from '../navigation.js';

/** The metrics the page reads (axes, tooltip, CSV): the rest of each row's ~45 stay on the server. */
const METRICS = [
  ...new Set([
    ...X_METRICS.map((m) => m.key),
    'tput_per_gpu',
    'output_tput_per_gpu',
    'input_tput_per_gpu',
    'median_ttft',
    'p99_ttft',
    'median_e2el',
    ...MEASURED_POWER_KEYS,
  ]),
].join(',');

const SYMBOL: Record<string, string> = { fp4: 'circle', fp8: 'rect', bf16: 'triangle', int4: 'diamond' };
/** An axis's name; an energy axis's says where its figures come from (measured, modelled, TCO figures). */
function axisLabel(key: string, view: ViewState, sources: ReadonlySet<PowerSource | null>): string {
  return isEnergyAxis(key) ? energyAxisName(key, view.energy, sources) : axisName(key);
}

/** A predicted frontier the API answered, as drawn, with the request it answers. */
interface PredictedLine {
  request: PredictedRequest;
  points: PredictedPoint[];
}

/** Dashed lines in their series' colour, with small hollow markers so that each point has a tooltip. */
function predictedChartSeries(lines: readonly PredictedLine[]): object[] {
  return lines.map(({ request, points }) => ({
    id: request.id,
    name: request.name,
    type: 'line',
    data: points.map((p) => [p.interactivity, p.tputPerGpu]),
    symbol: 'emptyCircle',
    symbolSize: 5,
    lineStyle: { color: request.color, width: 1.5, type: 'dashed' },
    itemStyle: { color: request.color },
    z: 1,
  }));
}

function chartOption(
  series: Series[],
  view: ViewState,
  sources: ReadonlySet<PowerSource | null>,
  predicted: readonly PredictedLine[],
) {
  const xName = axisLabel(view.x, view, sources);
  const yName = axisLabel(view.y, view, sources);
  const visible = (s: Series) => (view.optimal ? s.frontier : s.points);
  const all = series.flatMap(visible);
  const lookup = new Map<string, PlottedPoint[]>();
  const out: object[] = [];
  for (const s of series) {
    const pts = visible(s);
    lookup.set(`${s.key}:points`, pts);
    out.push({
      id: `${s.key}:points`,
      name: s.name,
      type: 'scatter',
      symbol: s.overlay ? 'diamond' : (SYMBOL[s.precision] ?? 'circle'),
      symbolSize: s.overlay ? 11 : 8,
      itemStyle: s.overlay ? { color: '#fff', borderColor: s.color, borderWidth: 2.5 } : { color: s.color },
      data: pts.map((p) => [p.x, p.y]),
      large: all.length > 4000,
      z: s.overlay ? 4 : 3,
    });
    out.push({
      id: `${s.key}:frontier`,
      name: s.name,
      type: 'line',
      data: s.frontier.map((p) => [p.x, p.y]),
      showSymbol: false,
      smooth: 0.3,
      smoothMonotone: 'x',
      lineStyle: { color: s.color, width: 2, type: s.overlay ? 'dashed' : 'solid' },
      itemStyle: { color: s.color },
      silent: true,
      z: 2,
    });
  }
  out.push(...predictedChartSeries(predicted));
  const predictedById = new Map(predicted.map((l) => [l.request.id, l]));
  return {
    animation: false,
    grid: { left: 70, right: 24, top: 64, bottom: 56 },
    legend: {
      type: 'scroll',
      top: 4,
      selectedMode: false,
      data: [...series.map((s) => s.name), ...predicted.map((l) => l.request.name)],
    },
    tooltip: {
      trigger: 'item',
      enterable: true,
      confine: true,
      formatter: htmlFormatter((p: { seriesId: string; dataIndex: number }) => {
        const pt = lookup.get(p.seriesId)?.[p.dataIndex];
        if (pt) return pointTooltip(pt, view.x, view.y, xName, yName);
        const line = predictedById.get(p.seriesId);
        const predictedPoint = line?.points[p.dataIndex];
        return line && predictedPoint ? predictedTooltip(line.request.name, predictedPoint) : undefined;
      }),
    },
    xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 32, scale: true },
    yAxis: { type: 'value', name: yName, nameLocation: 'end', nameTextStyle: { align: 'left' }, scale: true },
    series: out,
  };
}

/** A CSV header: the metric's key and its unit from the catalog, `median_ttft (s)`. */
const withUnit = (key: string): string => `${key} (${metricDef(key)?.unit ?? ''})`;
const measured = (key: string): CsvColumn<PlottedPoint> => ({ header: withUnit(key), value: (p) => p.row.metrics[key] });

const CSV_COLUMNS = (view: ViewState): CsvColumn<PlottedPoint>[] => [
  { header: 'series', value: (p) => `${p.row.hardware} ${p.row.framework} ${p.row.precision}` },
  { header: 'config', value: (p) => p.label },
  { header: 'topology', value: (p) => p.topology },
  { header: 'hardware', value: (p) => p.row.hardware },
  { header: 'framework', value: (p) => p.row.framework },
  { header: 'precision', value: (p) => p.row.precision },
  { header: 'spec_decoding', value: (p) => p.row.spec_method },
  { header: 'disagg', value: (p) => p.row.disagg },
  { header: 'isl (tokens)', value: (p) => p.row.isl },
  { header: 'osl (tokens)', value: (p) => p.row.osl },
  { header: 'conc', value: (p) => p.row.conc },
  { header: withUnit(view.x), value: (p) => p.x },
  { header: withUnit(view.y), value: (p) => p.y },
  ...['tput_per_gpu', 'output_tput_per_gpu', 'median_intvty', 'median_ttft', 'p99_ttft', 'median_e2el'].map(measured),
  { header: 'power_valid', value: (p) => p.row.power_valid ?? '' },
  { header: 'power_source', value: (p) => p.row.power_source ?? '' },
  { header: 'avg_power_w (W)', value: (p) => (p.row.power_valid ? p.row.metrics.avg_power_w : undefined) },
  ...['joules_per_total_token', 'joules_per_output_token', 'joules_per_input_token'].map((key): CsvColumn<PlottedPoint> => ({
    header: withUnit(key),
    value: (p) => (p.row.power_valid ? p.row.metrics[key] : undefined),
  })),
  { header: 'on_frontier', value: (p) => p.onFrontier },
  { header: 'official', value: (p) => p.row.official },
  { header: 'run_id', value: (p) => p.row.run_id },
  { header: 'date', value: (p) => p.row.date },
  { header: 'image', value: (p) => p.row.image },
];

const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
/** A change with its 95% interval, as the comparison gives it: `−3.1% [−5.0, −1.2]`. */
const pct = (d: MetricDelta | undefined) =>
  d?.delta_pct === null || d === undefined
    ? '–'
    : `${signed(d.delta_pct)}%${d.ci95_pct ? ` [${signed(d.ci95_pct[0])}, ${signed(d.ci95_pct[1])}]` : ''}`;

export function Inference({ view, update }: { view: ViewState; update: Update }) {
  const availability = useApi<AvailabilityRow[]>('/api/v1/availability');
  const scope = scopeOf(availability.data, view);
  const seq = seqOf(scope.seq);
  const base = scope.model && seq ? { model: scope.model, isl: seq.isl, osl: seq.osl } : undefined;
  const points = useApi<PointRow[]>(
    base ? `/api/v1/benchmarks?${query({ ...base, date: view.date, metrics: METRICS })}` : undefined,
  );
  const overlay = useApi<PointRow[]>(
    base && view.run ? `/api/v1/benchmarks?${query({ ...base, run: view.run, metrics: METRICS })}` : undefined,
  );
  const comparison = useApi<Comparison>(view.run ? `/api/v1/compare?${query({ run: view.run })}` : undefined);
  const chart = useRef<ChartHandle>(null);
  const tco = tcoOf(view);

  const official = useMemo(() => inferenceView(points.data ?? [], view, tco), [points.data, view]);
  const run = useMemo(() => inferenceView(overlay.data ?? [], view, tco, true), [overlay.data, view]);
  const series = [...official.series, ...run.series];
  const sources = new Set([...official.sources, ...run.sources]);
  const predictedAsked = useMemo(
    () => (view.predicted ? predictedRequests(official.series, view) : []),
    [official, view.predicted],
  );
  const predictedAnswers = useApiEach<PredictedFrontierAnswer>(predictedAsked.map((r) => r.path));
  const predictedLines: PredictedLine[] = [];
  const predictedFailures: PredictedFailure[] = [];
  for (const request of predictedAsked) {
    const answer = predictedAnswers.get(request.path);
    if (answer?.data) predictedLines.push({ request, points: predictedPoints(answer.data) });
    else if (answer?.error) predictedFailures.push({ request, error: answer.error });
  }
  const predictedSettled = predictedAsked.every((r) => predictedAnswers.get(r.path)?.loading === false);
  const option = useMemo(
    () => chartOption(series, view, sources, predictedLines),
    [official, run, predictedAnswers, predictedAsked],
  );
  const note = predictedNote(view, predictedFailures);
  const visible = [...official.visible, ...run.visible];
  const missing = [...official.missing, ...run.missing];
  const unmeasured = official.unmeasured + run.unmeasured;
  const energyAxis = isEnergyAxis(view.x) || isEnergyAxis(view.y);
  const roleAxis = measuredOnly(view.x) || measuredOnly(view.y);
  const mode: EnergyMode = roleAxis ? 'measured' : view.energy;

  // Everything this view asks for has answered (tests and the performance measure wait for it).
  const done = (l: { data: unknown; error: string | undefined }) => l.data !== undefined || l.error !== undefined;
  const settled =
    done(availability) &&
    (!base || done(points)) &&
    (!base || !view.run || (done(overlay) && done(comparison))) &&
    predictedSettled;

  const exportCsv = () =>
    download(`frontier-${scope.model}-${scope.seq}-${view.y}-vs-${view.x}.csv`, toCsv(CSV_COLUMNS(view), visible), 'text/csv');
  const exportPng = () => {
    const png = chart.current?.png();
    if (png) download(`frontier-${scope.model}-${scope.seq}.png`, png);
  };

  return (
    <section>
      <h1>
        Inference: {isEnergyAxis(view.y) ? energyAxisName(view.y, mode, sources, false) : metricDef(view.y)?.label} against{' '}
        {metricDef(view.x)?.label.toLowerCase()}
      </h1>
      {view.run && (
        <p className="banner unofficial" data-testid="overlay-banner">
          Unofficial run <b>{view.run}</b> drawn over the official results (◆ hollow diamonds, dashed frontiers).{' '}
          <Link view={view} to={{ run: undefined }} update={update}>
            Hide it
          </Link>
        </p>
      )}
      <Filters view={view} update={update} scope={scope} />
      <div className="controls">
        <label>
          Y
          <select
            name="y"
            value={view.y}
            onChange={(e) =>
              update({ y: e.target.value, ...(measuredOnly(e.target.value) ? { energy: 'measured' as const } : {}) })
            }
          >
            {Y_METRICS.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label.replace(/ \((all-in|measured)\)$/, '')} ({m.unit})
              </option>
            ))}
          </select>
        </label>
        <label title="Where tokens/s per MW and J/token come from: the points' measured GPU power, or the TCO figures (kW per GPU)">
          Energy
          <select
            name="energy"
            value={mode}
            disabled={roleAxis}
            onChange={(e) => update({ energy: e.target.value as EnergyMode })}
          >
            <option value="tco">from TCO figures</option>
            <option value="measured">measured</option>
          </select>
        </label>
        <label>
          X
          <select name="x" value={view.x} onChange={(e) => update({ x: e.target.value })}>
            {X_METRICS.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label} ({m.unit})
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" name="optimal" checked={view.optimal} onChange={(e) => update({ optimal: e.target.checked })} />{' '}
          Hide non-optimal points
        </label>
        <label
          className="inline"
          title="The topology planner's predicted frontier from the calibrated simulator, per hardware × engine × precision: a dashed line"
        >
          <input
            type="checkbox"
            name="predicted"
            checked={view.predicted}
            onChange={(e) => update({ predicted: e.target.checked })}
          />{' '}
          Predicted frontier
        </label>
        <button type="button" onClick={exportPng}>
          Export PNG
        </button>
        <button type="button" onClick={exportCsv} data-testid="export-csv">
          Export CSV
        </button>
      </div>
      <p className="presets">
        Presets:{' '}
        {PRESETS.map((p) => (
          <a key={p.id} href={`/inference?preset=${p.id}`} title={p.title}>
            {p.id}
          </a>
        ))}{' '}
        · <a href={toUrl(view)}>link to this view</a>
      </p>
      {(points.error || availability.error) && <p className="error">{points.error ?? availability.error}</p>}
      {availability.data && availability.data.length === 0 && (
        <p className="empty">No official results yet: `frontier ingest RUN_DIR --official` loads some.</p>
      )}
      {missing.length > 0 && (
        <p className="note" data-testid="missing-tco">
          {missing.map((m) => `${m.count} point${m.count === 1 ? '' : 's'} on ${m.hardware}`).join(', ')} not shown: no cost or
          power figures for that hardware;{' '}
          <Link view={view} to={{ page: 'tco' }} update={update}>
            set them on the TCO page
          </Link>
          .
        </p>
      )}
      {energyAxis && (
        <p className="note" data-testid="energy-source" data-mode={mode}>
          Energy: {energySourceLabel(mode, sources)}
          {mode === 'tco'
            ? ' (all-in kW per GPU, not measured).'
            : sources.has('modelled')
              ? ': the simulated engine’s power model, over the benchmark window.'
              : ': GPU board power over the benchmark window (the power step).'}
        </p>
      )}
      {energyAxis && mode === 'measured' && unmeasured > 0 && (
        <p className="note" data-testid="unmeasured" data-count={unmeasured}>
          {unmeasured} point{unmeasured === 1 ? '' : 's'} not shown: no valid measured power
          {roleAxis ? ' for this role' : ''}
          {roleAxis ? '.' : '; choose “from TCO figures” to see them with the TCO figures.'}
        </p>
      )}
      {note && (
        <p className="note" data-testid="predicted-note">
          {note}
        </p>
      )}
      <Chart
        ref={chart}
        option={option}
        height={520}
        testId="inference-chart"
        data={{
          points: official.visible.length,
          frontiers: official.series.filter((s) => s.frontier.length > 1).length,
          series: official.series.length,
          'overlay-points': run.visible.length,
          predicted: predictedLines.length,
          'y-axis': axisLabel(view.y, view, sources),
          loading: settled ? 0 : 1,
        }}
      />
      {view.run && comparison.data && (
        <div className="table-wrap">
          <h2>
            Run {view.run} against the official results: {comparison.data.regressions} significant regression
            {comparison.data.regressions === 1 ? '' : 's'}, {comparison.data.verdicts.inconclusive} inconclusive,{' '}
            {comparison.data.unmatched} point{comparison.data.unmatched === 1 ? '' : 's'} without an official one
          </h2>
          <table data-testid="deltas">
            <thead>
              <tr>
                <th>verdict</th>
                <th>config</th>
                <th>conc</th>
                <th>tok/s/GPU</th>
                <th>Δ</th>
                <th>tok/s/user</th>
                <th>Δ</th>
                <th>TTFT p99 Δ</th>
                <th>J/token Δ (measured)</th>
                <th>official run</th>
              </tr>
            </thead>
            <tbody>
              {comparison.data.points.map((p, i) => (
                <tr key={i} className={p.verdict === 'regression' ? 'regression' : ''}>
                  <td>{p.baseline_run_id ? p.verdict : '–'}</td>
                  <td>{p.label}</td>
                  <td>{p.conc}</td>
                  <td>{p.metrics.tput_per_gpu?.run?.toFixed(1)}</td>
                  <td>{pct(p.metrics.tput_per_gpu)}</td>
                  <td>{p.metrics.median_intvty?.run?.toFixed(1)}</td>
                  <td>{pct(p.metrics.median_intvty)}</td>
                  <td>{pct(p.metrics.p99_ttft)}</td>
                  <td>{pct(p.metrics.joules_per_total_token)}</td>
                  <td>{p.baseline_run_id ?? 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
