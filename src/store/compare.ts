/**
 * A run against the official record: each of its points next to the latest official point of the
 * same config at the same isl, osl and conc (from another run), with the change in the figures
 * people judge a change by, and regressions beyond a threshold flagged.
 */
import { configLabel, goalOf } from '../contract/index.js';
import type { ComparedPoint, Comparison, MetricDelta, PointRow } from '../contract/index.js';
import type { Store } from './db.js';
import { benchmarks } from './queries.js';

export const COMPARED_METRICS = [
  'tput_per_gpu',
  'output_tput_per_gpu',
  'median_intvty',
  'median_ttft',
  'p99_ttft',
  'median_e2el',
] as const;

const pointKey = (r: PointRow): string => `${r.config_id}/${r.isl}/${r.osl}/${r.conc}`;

export async function compareRun(store: Store, runId: string, thresholdPct = 5): Promise<Comparison | undefined> {
  const points = await benchmarks(store, { run: runId });
  if (points.length === 0) {
    const known = await store.db.selectFrom('runs').select('id').where('run_id', '=', runId).executeTakeFirst();
    if (!known) return undefined;
  }
  const configIds = [...new Set(points.map((p) => p.config_id))];
  const baseline = new Map(
    (await benchmarks(store, { configIds, source: 'official', excludeRun: runId })).map((r) => [pointKey(r), r]),
  );
  const compared = points.map((p): ComparedPoint => {
    const base = baseline.get(pointKey(p));
    const metrics: Record<string, MetricDelta> = {};
    for (const m of COMPARED_METRICS) {
      const run = p.metrics[m] ?? null;
      const was = base?.metrics[m] ?? null;
      const delta = run !== null && was !== null ? run - was : null;
      const pct = delta !== null && was ? (delta / was) * 100 : null;
      const worse = pct === null ? false : goalOf(m) === 'max' ? pct < -thresholdPct : pct > thresholdPct;
      metrics[m] = { run, baseline: was, delta, delta_pct: pct, regression: worse };
    }
    const { run_id: _r, attempt: _a, official: _o, date: _d, isl, osl, conc, runner: _n, metrics: _m, ...config } = p;
    return {
      config,
      label: configLabel(config),
      isl,
      osl,
      conc,
      baseline_run_id: base?.run_id ?? null,
      baseline_date: base?.date ?? null,
      metrics,
      regression: Object.values(metrics).some((d) => d.regression),
    };
  });
  return {
    run_id: runId,
    threshold_pct: thresholdPct,
    points: compared,
    unmatched: compared.filter((p) => p.baseline_run_id === null).length,
    regressions: compared.filter((p) => p.regression).length,
  };
}

const fmt = (x: number | null, digits = 1): string =>
  x === null ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (d: MetricDelta): string =>
  d.delta_pct === null ? '' : ` (${d.delta_pct >= 0 ? '+' : ''}${d.delta_pct.toFixed(1)}%${d.regression ? ' ⚠' : ''})`;

/** The comparison as a markdown report (what `frontier compare` prints and a PR comment can carry). */
export function comparisonMarkdown(c: Comparison): string {
  const lines = [
    `## Run ${c.run_id} against the official results`,
    '',
    `${c.points.length} points; ${c.points.length - c.unmatched} with an official point to compare with; ` +
      `${c.regressions} regression${c.regressions === 1 ? '' : 's'} beyond ${c.threshold_pct}% (⚠).`,
    '',
    '| config | ISL/OSL | conc | tok/s/GPU | output tok/s/GPU | tok/s/user (median) | TTFT median (ms) | TTFT p99 (ms) | E2EL median (s) | official run |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const p of c.points) {
    const m = p.metrics;
    const ms = (d: MetricDelta): MetricDelta => ({ ...d, run: d.run === null ? null : d.run * 1000 });
    lines.push(
      `| ${p.regression ? '⚠ ' : ''}${p.label} | ${p.isl}/${p.osl} | ${p.conc} | ${fmt(m.tput_per_gpu!.run)}${pct(m.tput_per_gpu!)} | ` +
        `${fmt(m.output_tput_per_gpu!.run)}${pct(m.output_tput_per_gpu!)} | ${fmt(m.median_intvty!.run)}${pct(m.median_intvty!)} | ` +
        `${fmt(ms(m.median_ttft!).run)}${pct(m.median_ttft!)} | ${fmt(ms(m.p99_ttft!).run)}${pct(m.p99_ttft!)} | ` +
        `${fmt(m.median_e2el!.run, 2)}${pct(m.median_e2el!)} | ${p.baseline_run_id ? `${p.baseline_run_id} (${p.baseline_date})` : 'none'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
