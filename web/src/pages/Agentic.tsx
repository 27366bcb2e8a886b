import { useEffect, useMemo, useState } from 'react';
import { configLabel } from '../../../src/contract/index.js';
import type { AgenticPointDetail, AgenticPointRow } from '../../../src/contract/index.js';
import { fetchJson, query, useApi } from '../api.js';
import { Chart } from '../Chart.js';
import { agenticSeries, contextBuckets, contextLabel, offloadLabel } from '../lib/agentic.js';
import type { AgenticSeries } from '../lib/agentic.js';
import { html, htmlFormatter, htmlLines } from '../lib/html.js';
import type { Html } from '../lib/html.js';
import type { ViewState } from '../lib/url-state.js';
import { Link } from '../navigation.js';
import type { Update } from '../navigation.js';

const GRID = { left: 70, right: 24, top: 64, bottom: 56 };
const legend = (series: { name: string }[]) => ({ type: 'scroll', top: 4, selectedMode: false, data: series.map((s) => s.name) });
const fixed = (v: number | null | undefined, digits: number) => (v === null || v === undefined ? '–' : v.toFixed(digits));
const percent = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)}%`);

function pointTooltip(r: AgenticPointRow): Html {
  return htmlLines(
    html`<b>${configLabel(r)}</b> · ${offloadLabel(r)}`,
    html`conc ${r.conc} · ${fixed(r.tput_per_gpu, 1)} tok/s/GPU · ${fixed(r.median_intvty, 1)} tok/s/user (median)`,
    html`TTFT median ${fixed(r.median_ttft, 3)} s, p90 ${fixed(r.p90_ttft, 3)} s, p95 ${fixed(r.p95_ttft, 3)} s`,
    html`cache hits: GPU ${percent(r.gpu_cache_hit_rate)}, CPU/offload ${percent(r.cpu_cache_hit_rate)}, theoretical
    ${percent(r.theoretical_cache_hit_rate)}`,
    html`${r.num_requests_successful} of ${r.num_requests_total} requests (${r.num_errors} failed)`,
    html`run ${r.run_id}${r.official ? '' : ' (unofficial)'} · ${r.date} · ${r.image}`,
  );
}

/** Throughput per GPU against interactivity: one point per concurrency, a line through each configuration's. */
function throughputOption(series: AgenticSeries[]) {
  return {
    animation: false,
    grid: GRID,
    legend: legend(series),
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: htmlFormatter((p: { seriesIndex: number; dataIndex: number }) => {
        const r = series[p.seriesIndex]?.points[p.dataIndex];
        return r && pointTooltip(r);
      }),
    },
    xAxis: { type: 'value', name: 'Interactivity, median (tok/s/user)', nameLocation: 'middle', nameGap: 32, scale: true },
    yAxis: {
      type: 'value',
      name: 'Throughput per GPU (tok/s/GPU)',
      nameLocation: 'end',
      nameTextStyle: { align: 'left' },
      scale: true,
    },
    series: series.map((s) => ({
      name: s.name,
      type: 'line',
      data: s.points.map((r) => [r.median_intvty, r.tput_per_gpu]),
      symbol: s.overlay ? 'diamond' : 'circle',
      symbolSize: s.overlay ? 11 : 8,
      itemStyle: s.overlay ? { color: '#fff', borderColor: s.color, borderWidth: 2.5 } : { color: s.color },
      lineStyle: { color: s.color, width: 2, type: s.overlay ? 'dashed' : 'solid' },
      label: {
        show: true,
        position: 'top',
        fontSize: 10,
        formatter: (p: { dataIndex: number }) => `c${s.points[p.dataIndex]?.conc}`,
      },
      z: s.overlay ? 4 : 3,
    })),
  };
}

/** Median TTFT per input-length bucket, one line per configuration at the chosen concurrency. */
function ttftOption(details: { series: AgenticSeries; detail: AgenticPointDetail }[]) {
  const buckets = contextBuckets(details.map((d) => d.detail.ttft_by_context ?? []));
  return {
    animation: false,
    grid: GRID,
    legend: legend(details.map((d) => d.series)),
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: htmlFormatter((p: { seriesIndex: number; dataIndex: number }) => {
        const d = details[p.seriesIndex];
        const b = d?.detail.ttft_by_context?.find((x) => x.min_tokens === buckets[p.dataIndex]?.min_tokens);
        if (!d || !b) return undefined;
        return htmlLines(
          html`<b>${d.series.name}</b>`,
          html`conc ${d.detail.conc} · input ${contextLabel(b)} tokens · ${b.count} requests`,
          html`TTFT mean ${b.mean.toFixed(3)} s · p50 ${b.p50.toFixed(3)} s · p90 ${b.p90.toFixed(3)} s · p99 ${b.p99.toFixed(3)}
          s`,
        );
      }),
    },
    xAxis: {
      type: 'category',
      name: 'Input length (tokens)',
      nameLocation: 'middle',
      nameGap: 32,
      data: buckets.map(contextLabel),
    },
    yAxis: { type: 'log', name: 'TTFT, median (s)', nameLocation: 'end', nameTextStyle: { align: 'left' } },
    series: details.map(({ series: s, detail }) => ({
      name: s.name,
      type: 'line',
      data: buckets.map((b) => detail.ttft_by_context?.find((x) => x.min_tokens === b.min_tokens)?.p50 ?? null),
      connectNulls: false,
      symbol: s.overlay ? 'diamond' : 'circle',
      symbolSize: s.overlay ? 11 : 8,
      itemStyle: s.overlay ? { color: '#fff', borderColor: s.color, borderWidth: 2.5 } : { color: s.color },
      lineStyle: { color: s.color, width: 2, type: s.overlay ? 'dashed' : 'solid' },
    })),
  };
}

const CACHE_KINDS = [
  { key: 'gpu_cache_hit_rate', label: 'GPU', line: 'solid' },
  { key: 'cpu_cache_hit_rate', label: 'CPU/offload', line: 'dashed' },
  { key: 'theoretical_cache_hit_rate', label: 'theoretical', line: 'dotted' },
] as const;

/** Prefix-cache hit rates per concurrency: GPU (solid), CPU/offload tier (dashed), the trace's theoretical (dotted). */
function cacheOption(series: AgenticSeries[]) {
  const lines = series.flatMap((s) =>
    CACHE_KINDS.filter((k) => s.points.some((r) => r[k.key] !== null)).map((k) => ({ s, k, name: `${s.name} · ${k.label}` })),
  );
  const concs = [...new Set(series.flatMap((s) => s.points.map((r) => r.conc)))].sort((a, b) => a - b);
  return {
    animation: false,
    grid: GRID,
    legend: legend(lines),
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: htmlFormatter(
        (p: { seriesName: string; value: [number, number] }) =>
          html`<b>${p.seriesName}</b><br />conc ${p.value[0]}: ${percent(p.value[1])}`,
      ),
    },
    xAxis: {
      type: 'log',
      logBase: 2,
      name: 'Concurrency',
      nameLocation: 'middle',
      nameGap: 32,
      min: concs[0],
      max: concs[concs.length - 1],
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      name: 'Prefix-cache hit rate',
      nameLocation: 'end',
      nameTextStyle: { align: 'left' },
      axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` },
    },
    series: lines.map(({ s, k, name }) => ({
      name,
      type: 'line',
      data: s.points.filter((r) => r[k.key] !== null).map((r) => [r.conc, r[k.key]]),
      symbol: s.overlay ? 'diamond' : 'circle',
      itemStyle: { color: s.color },
      lineStyle: { color: s.color, width: 2, type: k.line },
    })),
  };
}

/** The details of these points (each with its TTFT by context length), once all have answered. */
function useDetails(ids: number[]): { data: AgenticPointDetail[] | undefined; error: string | undefined } {
  const key = ids.join(',');
  const [state, setState] = useState<{ key: string; data?: AgenticPointDetail[]; error?: string }>({ key: '' });
  useEffect(() => {
    let live = true;
    Promise.all(ids.map((id) => fetchJson<AgenticPointDetail>(`/api/v1/agentic/${id}`))).then(
      (data) => live && setState({ key, data }),
      (e: Error) => live && setState({ key, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? { data: state.data, error: state.error } : { data: undefined, error: undefined };
}

const sameSlot = (a: AgenticPointRow, b: AgenticPointRow) =>
  a.config_id === b.config_id &&
  a.kv_offloading === b.kv_offloading &&
  a.kv_offload_backend === b.kv_offload_backend &&
  a.allocated_cpu_dram_gb === b.allocated_cpu_dram_gb &&
  a.conc === b.conc;
const change = (run: number | null, base: number | null | undefined) =>
  run === null || base === null || base === undefined || base === 0
    ? '–'
    : `${run >= base ? '+' : ''}${(((run - base) / base) * 100).toFixed(1)}%`;

export function Agentic({ view, update }: { view: ViewState; update: Update }) {
  const all = useApi<AgenticPointRow[]>(`/api/v1/agentic?${query({ date: view.date })}`);
  const models = [...new Set((all.data ?? []).map((r) => r.model_prefix))].sort();
  const model = view.model && models.includes(view.model) ? view.model : models[0];
  const overlay = useApi<AgenticPointRow[]>(view.run ? `/api/v1/agentic?${query({ run: view.run })}` : undefined);
  const rows = useMemo(() => (all.data ?? []).filter((r) => r.model_prefix === model), [all.data, model]);
  const runRows = useMemo(() => (overlay.data ?? []).filter((r) => r.model_prefix === model), [overlay.data, model]);
  const series = useMemo(() => [...agenticSeries(rows), ...agenticSeries(runRows, true)], [rows, runRows]);

  const concs = [...new Set(series.flatMap((s) => s.points.map((r) => r.conc)))].sort((a, b) => a - b);
  const [chosenConc, setConc] = useState<number | undefined>(undefined);
  const conc = chosenConc !== undefined && concs.includes(chosenConc) ? chosenConc : concs[concs.length - 1];
  const atConc = series.flatMap((s) => s.points.filter((r) => r.conc === conc).map((r) => ({ series: s, row: r })));
  const details = useDetails(atConc.map((a) => a.row.point_id));
  const withTables = (details.data ?? [])
    .map((detail, i) => ({ series: atConc[i]!.series, detail }))
    .filter((d) => d.detail.ttft_by_context !== null);

  const throughput = useMemo(() => throughputOption(series), [series]);
  const ttft = useMemo(() => ttftOption(withTables), [details.data]);
  const cache = useMemo(() => cacheOption(series), [series]);

  const done = (l: { data: unknown; error: string | undefined }) => l.data !== undefined || l.error !== undefined;
  const settled = done(all) && (!view.run || done(overlay));
  const deltas = runRows.map((r) => ({ r, base: rows.find((b) => sameSlot(b, r) && b.run_id !== r.run_id) }));

  return (
    <section>
      <h1>Agentic coding: throughput per GPU against interactivity</h1>
      {view.run && (
        <p className="banner unofficial" data-testid="overlay-banner">
          Unofficial run <b>{view.run}</b> drawn over the official results (◆ hollow diamonds, dashed lines).{' '}
          <Link view={view} to={{ run: undefined }} update={update}>
            Hide it
          </Link>
        </p>
      )}
      <div className="controls">
        <label>
          Model
          <select name="model" value={model ?? ''} onChange={(e) => update({ model: e.target.value })}>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          TTFT at concurrency
          <select name="conc" value={conc ?? ''} onChange={(e) => setConc(Number(e.target.value))}>
            {concs.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
      </div>
      {(all.error || overlay.error || details.error) && <p className="error">{all.error ?? overlay.error ?? details.error}</p>}
      {all.data && all.data.length === 0 && (
        <p className="empty">
          No official agentic results yet: `frontier ingest RUN_DIR --official` loads a run with bmk_agentic_* points.
        </p>
      )}
      <Chart
        option={throughput}
        height={460}
        testId="agentic-chart"
        data={{
          points: rows.length,
          series: series.filter((s) => !s.overlay).length,
          'overlay-points': runRows.length,
          loading: settled ? 0 : 1,
        }}
      />
      <h2>TTFT by context length{conc !== undefined ? ` at concurrency ${conc}` : ''}</h2>
      {details.data && withTables.length === 0 && (
        <p className="note">
          No per-request records were kept for these points (profile_export.jsonl), so there is no TTFT by context length.
        </p>
      )}
      <Chart
        option={ttft}
        height={360}
        testId="agentic-ttft-chart"
        data={{ lines: withTables.length, loading: details.data || details.error ? 0 : 1 }}
      />
      <h2>Prefix-cache hit rate per concurrency</h2>
      <Chart
        option={cache}
        height={360}
        testId="agentic-cache-chart"
        data={{ lines: cache.series.length, loading: settled ? 0 : 1 }}
      />
      {view.run && overlay.data && (
        <div className="table-wrap">
          <h2>Run {view.run} against the official agentic points</h2>
          <table data-testid="agentic-deltas">
            <thead>
              <tr>
                <th>config</th>
                <th>conc</th>
                <th>tok/s/GPU</th>
                <th>Δ</th>
                <th>TTFT median (s)</th>
                <th>Δ</th>
                <th>GPU cache hits</th>
                <th>official run</th>
              </tr>
            </thead>
            <tbody>
              {deltas.map(({ r, base }) => (
                <tr key={r.point_id}>
                  <td>
                    {configLabel(r)} · {offloadLabel(r)}
                  </td>
                  <td>{r.conc}</td>
                  <td>{fixed(r.tput_per_gpu, 1)}</td>
                  <td>{change(r.tput_per_gpu, base?.tput_per_gpu)}</td>
                  <td>{fixed(r.median_ttft, 3)}</td>
                  <td>{change(r.median_ttft, base?.median_ttft)}</td>
                  <td>{percent(r.gpu_cache_hit_rate)}</td>
                  <td>{base?.run_id ?? 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
