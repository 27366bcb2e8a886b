import { useMemo, useRef } from 'react';
import { MEASURED_POWER_KEYS, VERDICT_SYMBOL, changeText, metricDef } from '../../../src/contract/index.js';
import type {
  RunDetail,
  AvailabilityRow,
  ComparedPoint,
  Comparison,
  MetricDelta,
  PointRow,
  PowerSource,
  PredictedFrontierAnswer,
  VerdictName,
} from '../../../src/contract/index.js';
import { query, useApi, useApiEach } from '../api.js';
import type { Loaded } from '../api.js';
import { Chart, download } from '../Chart.js';
import type { ChartHandle } from '../Chart.js';
import { Filters, scopeOf } from '../Filters.js';
import { toCsv } from '../lib/csv.js';
import type { CsvColumn } from '../lib/csv.js';
import { htmlFormatter } from '../lib/html.js';
import { inferenceView, seriesName } from '../lib/inference.js';
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

/** A point's error bars: [x, y, x low, x high, y low, y high] (an axis without an interval has its value at both ends). */
type ErrorBar = [number, number, number, number, number, number];
const errorBar = (p: PlottedPoint): ErrorBar => [
  p.x,
  p.y,
  p.xInterval?.[0] ?? p.x,
  p.xInterval?.[1] ?? p.x,
  p.yInterval?.[0] ?? p.y,
  p.yInterval?.[1] ?? p.y,
];
/** Whether a point gets error bars: it was measured more than once and has an interval on an axis. */
const hasErrorBars = (p: PlottedPoint): boolean => p.xInterval !== undefined || p.yInterval !== undefined;

/** The whiskers' caps, px. */
const CAP = 4;

interface RenderApi {
  value(dim: number): number;
  coord(point: [number, number]): [number, number];
}

/** Each point's 95% intervals drawn as whiskers with caps, in its series' colour (a custom series: ECharts has no error bars). */
function errorBarSeries(id: string, color: string, bars: ErrorBar[]): object {
  return {
    id,
    type: 'custom',
    data: bars,
    // The whiskers' ends count in the axes' extents, so a bar is never cut off.
    encode: { x: [0, 2, 3], y: [1, 4, 5] },
    silent: true,
    z: 2,
    renderItem: (_params: unknown, api: RenderApi) => {
      const [x, y, xlo, xhi, ylo, yhi] = [0, 1, 2, 3, 4, 5].map((d) => api.value(d)) as ErrorBar;
      const style = { stroke: color, lineWidth: 1.3 };
      const line = (a: [number, number], b: [number, number]) => ({
        type: 'line',
        shape: { x1: a[0], y1: a[1], x2: b[0], y2: b[1] },
        style,
      });
      const children = [];
      if (ylo !== yhi) {
        const lo = api.coord([x, ylo]);
        const hi = api.coord([x, yhi]);
        children.push(
          line(lo, hi),
          line([lo[0] - CAP, lo[1]], [lo[0] + CAP, lo[1]]),
          line([hi[0] - CAP, hi[1]], [hi[0] + CAP, hi[1]]),
        );
      }
      if (xlo !== xhi) {
        const lo = api.coord([xlo, y]);
        const hi = api.coord([xhi, y]);
        children.push(
          line(lo, hi),
          line([lo[0], lo[1] - CAP], [lo[0], lo[1] + CAP]),
          line([hi[0], hi[1] - CAP], [hi[0], hi[1] + CAP]),
        );
      }
      return { type: 'group', children };
    },
  };
}

/** The legend's and the dashed rings' name for points tied within noise. */
const TIED_NAME = 'tied within noise';
/** A dashed ring: the marker shows through it. */
const TIED_STYLE = { color: 'rgba(0,0,0,0)', borderColor: '#1b1f24', borderWidth: 1.5, borderType: 'dashed' };

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
    const bars = pts.filter(hasErrorBars).map(errorBar);
    if (bars.length > 0) out.push(errorBarSeries(`${s.key}:errors`, s.color, bars));
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
  // Points tied within noise: a dashed ring around the marker, one legend entry for all of them.
  const tied = all.filter((p) => p.tiedWith.length > 0);
  lookup.set('tied', tied);
  if (tied.length > 0)
    out.push({
      id: 'tied',
      name: TIED_NAME,
      type: 'scatter',
      symbol: 'circle',
      symbolSize: 20,
      itemStyle: TIED_STYLE,
      data: tied.map((p) => [p.x, p.y]),
      z: 5,
    });
  out.push(...predictedChartSeries(predicted));
  const predictedById = new Map(predicted.map((l) => [l.request.id, l]));
  return {
    animation: false,
    grid: { left: 70, right: 24, top: 64, bottom: 56 },
    legend: {
      type: 'scroll',
      top: 4,
      selectedMode: false,
      data: [
        ...series.map((s) => s.name),
        ...(tied.length > 0 ? [{ name: TIED_NAME, icon: 'circle', itemStyle: TIED_STYLE }] : []),
        ...predicted.map((l) => l.request.name),
      ],
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
/** The header of one end of an axis's 95% interval: `tput_per_gpu_ci95_low (tok/s/GPU)`. */
const ciHeader = (key: string, end: 'low' | 'high'): string => `${key}_ci95_${end} (${metricDef(key)?.unit ?? ''})`;
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
  { header: 'n', value: (p) => p.row.n },
  { header: ciHeader(view.x, 'low'), value: (p) => p.xInterval?.[0] },
  { header: ciHeader(view.x, 'high'), value: (p) => p.xInterval?.[1] },
  { header: ciHeader(view.y, 'low'), value: (p) => p.yInterval?.[0] },
  { header: ciHeader(view.y, 'high'), value: (p) => p.yInterval?.[1] },
  { header: 'tied_within_noise', value: (p) => p.tiedWith.length > 0 },
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

/** How each verdict is marked: a symbol and the words, never the colour alone. */
const verdictClass = (v: VerdictName) => `verdict-${v.replace(/ /g, '-')}`;

/** Why a point is inconclusive: its headline metrics' notes first, then any other metric's. */
function pointNote(p: ComparedPoint): string | undefined {
  if (p.baseline_run_id === null) return 'no official point of this config and conc to compare with';
  if (p.verdict !== 'inconclusive') return undefined;
  const ordered = [p.metrics.tput_per_gpu, p.metrics.median_intvty, ...Object.values(p.metrics)];
  const notes = [...new Set(ordered.flatMap((d) => (d?.verdict === 'inconclusive' && d.note ? [d.note] : [])))];
  return notes.length > 0 ? notes.join('; ') : undefined;
}

/** A cell's test details for its title: the samples, the test, p and q, and a note. */
function deltaTitle(d: MetricDelta | undefined): string | undefined {
  if (!d || d.delta_pct === null) return d?.note;
  const test = d.test
    ? `${d.test}${d.df !== null ? `, df ${d.df.toFixed(1)}` : ''}, p ${d.p?.toPrecision(2)}, q ${d.q?.toPrecision(2)}`
    : 'not tested';
  return `${d.verdict}: n ${d.n_run} run / ${d.n_baseline} official; ${test}${d.note ? `; ${d.note}` : ''}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The run's points against the official ones: a verdict badge per point, each change with its interval, how they were judged. */
function CompareTable({ runId, comparison: c }: { runId: string; comparison: Comparison }) {
  const v = c.verdicts;
  const m = c.method;
  const cell = (d: MetricDelta | undefined) => (
    <td title={deltaTitle(d)} className={d && d.delta_pct !== null ? verdictClass(d.verdict) : undefined}>
      {pct(d)}
      {d && d.delta_pct !== null && d.verdict !== 'no significant change' ? ` ${VERDICT_SYMBOL[d.verdict]}` : ''}
    </td>
  );
  return (
    <div className="table-wrap">
      <h2>
        Run {runId} against the official results: {plural(v.regression, 'significant regression')},{' '}
        {plural(v.improvement, 'significant improvement')}, {v['no significant change']} with no significant change,{' '}
        {v.inconclusive} inconclusive, {plural(c.unmatched, 'point')} without an official one
      </h2>
      <p className="note" data-testid="compare-method">
        Each change is the run against the official point with its 95% confidence interval. Significant: at a false discovery rate
        α = {m.alpha} ({m.fdr === 'benjamini-hochberg' ? 'Benjamini–Hochberg' : m.fdr}, over every metric of every point) and at
        least {m.min_effect_pct}%; a change whose interval reaches beyond ±{m.resolution_pct}% is inconclusive. Tests: {m.tests}.
        Hover a verdict or a change for its test, p and q, and what would settle an inconclusive one.
      </p>
      <table data-testid="deltas">
        <thead>
          <tr>
            <th>verdict</th>
            <th>config</th>
            <th>conc</th>
            <th title="samples: run / official">n</th>
            <th>tok/s/GPU</th>
            <th>Δ [95% CI]</th>
            <th>tok/s/user</th>
            <th>Δ [95% CI]</th>
            <th>TTFT p99 Δ</th>
            <th>J/token Δ (measured)</th>
            <th>official run</th>
          </tr>
        </thead>
        <tbody>
          {c.points.map((p, i) => {
            const note = pointNote(p);
            const t = p.metrics.tput_per_gpu;
            return (
              <tr key={i} className={`${p.verdict === 'regression' ? 'regression ' : ''}${verdictClass(p.verdict)}`}>
                <td>
                  {p.baseline_run_id ? (
                    <span className={`badge ${verdictClass(p.verdict)}`} title={note} data-verdict={p.verdict}>
                      {VERDICT_SYMBOL[p.verdict]} {p.verdict}
                    </span>
                  ) : (
                    <span className="badge" title={note}>
                      – no baseline
                    </span>
                  )}
                </td>
                <td>{p.label}</td>
                <td>{p.conc}</td>
                <td>{t ? `${t.n_run}/${t.n_baseline}` : '–'}</td>
                <td>{t?.run?.toFixed(1)}</td>
                {cell(t)}
                <td>{p.metrics.median_intvty?.run?.toFixed(1)}</td>
                {cell(p.metrics.median_intvty)}
                {cell(p.metrics.p99_ttft)}
                {cell(p.metrics.joules_per_total_token)}
                <td>{p.baseline_run_id ?? 'none'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A staged run's banner: whose pull request it comes from, that it is not official, and how to hide it. */
function StagedBanner({ runId, run, view, update }: { runId: string; run: Loaded<RunDetail>; view: ViewState; update: Update }) {
  const r = run.data;
  return (
    <p className="banner staged" data-testid="staged-banner">
      <b>Staged, not official:</b> run <b>{runId}</b>
      {r && r.staged_pr > 0 && (
        <>
          {' '}
          from PR #{r.staged_pr}, staged by @{r.staged_by} on {r.staged_at.slice(0, 10)}
        </>
      )}
      {r && r.staged_pr === 0 && <> (not a staged run: {r.official ? 'official' : 'unofficial'})</>}
      {run.error && <> ({run.error})</>}, drawn over the official results (◆ hollow diamonds, dashed frontiers). It is in no
      official or unofficial view until its pull request merges.{' '}
      <Link view={view} to={{ staged: undefined }} update={update}>
        Hide it
      </Link>
    </p>
  );
}

/** A change with its 95% interval, as the comparison gives it: `−3.1% [−5.0, −1.2]`. */
const pct = (d: MetricDelta | undefined) => (d === undefined || d.delta_pct === null ? '–' : changeText(d));

export function Inference({ view, update }: { view: ViewState; update: Update }) {
  const availability = useApi<AvailabilityRow[]>('/api/v1/availability');
  const scope = scopeOf(availability.data, view);
  const seq = seqOf(scope.seq);
  const base = scope.model && seq ? { model: scope.model, isl: seq.isl, osl: seq.osl } : undefined;
  const points = useApi<PointRow[]>(
    base ? `/api/v1/benchmarks?${query({ ...base, date: view.date, metrics: METRICS })}` : undefined,
  );
  // The run drawn over the official results: a staged one (/stage-results) or any other.
  const overlayRun = view.staged ?? view.run;
  const overlay = useApi<PointRow[]>(
    base && overlayRun ? `/api/v1/benchmarks?${query({ ...base, run: overlayRun, metrics: METRICS })}` : undefined,
  );
  const comparison = useApi<Comparison>(overlayRun ? `/api/v1/compare?${query({ run: overlayRun })}` : undefined);
  const stagedRun = useApi<RunDetail>(view.staged ? `/api/v1/runs/${encodeURIComponent(view.staged)}` : undefined);
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
  const withBars = visible.filter(hasErrorBars);
  const tiedPoints = visible.filter((p) => p.tiedWith.length > 0);
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
    (!base || !overlayRun || (done(overlay) && done(comparison))) &&
    (!view.staged || done(stagedRun)) &&
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
      {view.staged && <StagedBanner runId={view.staged} run={stagedRun} view={view} update={update} />}
      {view.run && !view.staged && (
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
          'error-bars': withBars.length,
          tied: tiedPoints.length,
          'y-axis': axisLabel(view.y, view, sources),
          loading: settled ? 0 : 1,
        }}
      />
      {withBars.length > 0 && (
        <p className="note" data-testid="error-bars-note">
          Error bars: the 95% confidence interval of the mean of a point measured more than once ({withBars.length} point
          {withBars.length === 1 ? '' : 's'} here; n in the tooltip), on both axes; a point measured once has none.
        </p>
      )}
      {tiedPoints.length > 0 && (
        <div className="note" data-testid="tied-note">
          <p>
            ◌ Tied within noise (a dashed ring): beaten, but only by points whose 95% interval on the y axis (
            {metricDef(view.y)?.label ?? view.y}) overlaps its own, so which is better is not settled.
          </p>
          <ul>
            {tiedPoints.map((p, i) => (
              <li key={i}>
                {seriesName(p.row)} {p.topology} conc {p.row.conc}: beaten only within noise by{' '}
                {p.tiedWith.map((q) => `${seriesName(q.row)} ${q.topology} conc ${q.row.conc}`).join(', ')}
              </li>
            ))}
          </ul>
        </div>
      )}
      {overlayRun && comparison.data && <CompareTable runId={overlayRun} comparison={comparison.data} />}
    </section>
  );
}
