import { useMemo } from 'react';
import { configLabel } from '../../../src/contract/index.js';
import type { EvalRow } from '../../../src/contract/index.js';
import { query, useApi } from '../api.js';
import { Chart } from '../Chart.js';
import { Filters } from '../Filters.js';
import type { Scope } from '../Filters.js';
import { html, htmlFormatter, htmlLines } from '../lib/html.js';
import { passesFilters } from '../lib/inference.js';
import type { ViewState } from '../lib/url-state.js';
import type { Update } from '../navigation.js';

const FAIL = '#c0392b';
const PASS = '#2e7d32';

function option(rows: EvalRow[]) {
  const labels = rows.map((r) => `${configLabel(r)} · conc ${r.conc}${r.official ? '' : ' (unofficial)'}`);
  const thresholds = [...new Set(rows.map((r) => r.threshold).filter((t): t is number => t !== null))];
  return {
    animation: false,
    grid: { left: 16, right: 40, top: 24, bottom: 40, containLabel: true },
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: htmlFormatter((p: { dataIndex: number }) => {
        const r = rows[p.dataIndex];
        if (!r) return undefined;
        return htmlLines(
          html`<b>${labels[p.dataIndex]!}</b>`,
          html`${r.task}: ${(r.score * 100).toFixed(2)}% ± ${((r.score_se ?? 0) * 100).toFixed(2)}%`,
          html`threshold ${r.threshold === null ? '–' : `${(r.threshold * 100).toFixed(0)}%`}:
            <b>${r.passed === false ? 'FAIL' : r.passed ? 'pass' : '–'}</b>`,
          html`${r.n_eff ?? '?'} questions · run ${r.run_id} · ${r.date}`,
        );
      }),
    },
    xAxis: {
      type: 'value',
      min: 0,
      max: 1,
      name: 'score (exact match)',
      nameLocation: 'middle',
      nameGap: 26,
      axisLabel: { formatter: (v: number) => `${v * 100}%` },
    },
    yAxis: { type: 'category', data: labels, inverse: true, axisLabel: { width: 380, overflow: 'truncate' } },
    series: [
      {
        type: 'bar',
        data: rows.map((r) => ({
          value: r.score,
          itemStyle: { color: r.passed === false ? FAIL : PASS, opacity: r.official ? 1 : 0.6 },
        })),
        barMaxWidth: 22,
        label: {
          show: true,
          position: 'right',
          formatter: (p: { dataIndex: number }) => (rows[p.dataIndex]?.passed === false ? 'FAIL' : ''),
          color: FAIL,
          fontWeight: 'bold',
        },
        markLine: thresholds.length
          ? {
              symbol: 'none',
              silent: true,
              lineStyle: { color: '#333', type: 'dashed' },
              label: { formatter: (p: { value: number }) => `threshold ${(p.value * 100).toFixed(0)}%` },
              data: thresholds.map((t) => ({ xAxis: t })),
            }
          : undefined,
      },
      {
        // Standard-error bars: score ± SE, clamped to [0, 1].
        type: 'custom',
        silent: true,
        renderItem: (
          _: unknown,
          api: { value: (i: number) => number; coord: (p: number[]) => number[]; size: (p: number[]) => number[] },
        ) => {
          const lo = api.coord([api.value(0), api.value(2)]);
          const hi = api.coord([api.value(1), api.value(2)]);
          const h = api.size([0, 1])[1]! * 0.25;
          const style = { stroke: '#222', lineWidth: 1.5 };
          return {
            type: 'group',
            children: [
              { type: 'line', shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style },
              { type: 'line', shape: { x1: lo[0], y1: lo[1]! - h, x2: lo[0], y2: lo[1]! + h }, style },
              { type: 'line', shape: { x1: hi[0], y1: hi[1]! - h, x2: hi[0], y2: hi[1]! + h }, style },
            ],
          };
        },
        data: rows.map((r, i) => [Math.max(0, r.score - (r.score_se ?? 0)), Math.min(1, r.score + (r.score_se ?? 0)), i]),
        z: 5,
      },
    ],
  };
}

export function Evaluation({ view, update }: { view: ViewState; update: Update }) {
  // Evals are per model and config (their sequence is the eval's own): the choices come from the eval rows.
  const all = useApi<EvalRow[]>(`/api/v1/evaluations?${query({ date: view.date })}`);
  const models = [...new Set((all.data ?? []).map((r) => r.model_prefix))].sort();
  const model = view.model && models.includes(view.model) ? view.model : models[0];
  const run = useApi<EvalRow[]>(model && view.run ? `/api/v1/evaluations?${query({ model, run: view.run })}` : undefined);
  const ofModel = [...(all.data ?? []).filter((r) => r.model_prefix === model), ...(run.data ?? [])];
  const values = (f: (r: EvalRow) => string) => [...new Set(ofModel.map(f))].sort();
  const scope: Scope = {
    models,
    model,
    seqs: [],
    seq: undefined,
    dates: [],
    values: {
      hw: values((r) => r.hardware),
      fw: values((r) => r.framework),
      prec: values((r) => r.precision),
      spec: values((r) => r.spec_method),
    },
  };
  const rows = useMemo(() => ofModel.filter((r) => passesFilters(r, view)), [all.data, run.data, view]);
  // One chart per task: each has its own scale of difficulty and its own threshold.
  const tasks = useMemo(() => [...new Set(rows.map((r) => r.task))].sort(), [rows]);
  const options = useMemo(() => new Map(tasks.map((t) => [t, option(rows.filter((r) => r.task === t))])), [rows, tasks]);
  const failed = rows.filter((r) => r.passed === false).length;
  const loading = all.data !== undefined && (!model || !view.run || run.data !== undefined || run.error !== undefined) ? 0 : 1;
  return (
    <section>
      <h1>Evaluation: accuracy per task and config</h1>
      <Filters view={view} update={update} scope={scope} dates={false} />
      <p className="note">
        {rows.length} result{rows.length === 1 ? '' : 's'} in {tasks.length} task{tasks.length === 1 ? '' : 's'}; bars are scores
        with ± one standard error; the dashed line is the threshold each run was held to.{' '}
        {failed > 0 ? <b className="fail">{failed} below threshold.</b> : 'All at or above threshold.'}
      </p>
      {tasks.map((task) => {
        const ofTask = rows.filter((r) => r.task === task);
        return (
          <div key={task}>
            <h2>{task}</h2>
            <Chart
              option={options.get(task)!}
              height={Math.max(220, 70 + ofTask.length * 34)}
              testId={`eval-chart-${task}`}
              data={{ bars: ofTask.length, failed: ofTask.filter((r) => r.passed === false).length, loading }}
            />
          </div>
        );
      })}
    </section>
  );
}
