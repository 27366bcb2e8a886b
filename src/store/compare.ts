/**
 * A run against the official record: each of its points next to the latest official point of the
 * same config at the same isl, osl and conc (from another run), with the change in the figures
 * people judge a change by, and regressions beyond a threshold flagged.
 */
import { MEASURED_ENERGY_METRICS, configLabel, goalOf } from '../contract/index.js';
import type { ComparedPoint, Comparison, MetricDelta, PointRow, PowerSide } from '../contract/index.js';
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

/**
 * The measured energy metrics, compared like the rest but only where both points' power is valid
 * (a point's metrics hold them only then, see store/power.ts; checked again here).
 */
export const COMPARED_ENERGY_METRICS = MEASURED_ENERGY_METRICS;

const powerSide = (r: PointRow | undefined): PowerSide | null =>
  r === undefined || r.power_valid === null ? null : { valid: r.power_valid, source: r.power_source };

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
    const bothValid = p.power_valid === true && base?.power_valid === true;
    for (const m of [...COMPARED_METRICS, ...COMPARED_ENERGY_METRICS]) {
      const energy = (COMPARED_ENERGY_METRICS as readonly string[]).includes(m);
      if (energy && !(m in p.metrics) && !(base !== undefined && m in base.metrics)) continue;
      const run = (energy && p.power_valid !== true ? null : p.metrics[m]) ?? null;
      const was = (energy && !bothValid ? null : base?.metrics[m]) ?? null;
      const delta = run !== null && was !== null ? run - was : null;
      const pct = delta !== null && was ? (delta / was) * 100 : null;
      const worse = pct === null ? false : goalOf(m) === 'max' ? pct < -thresholdPct : pct > thresholdPct;
      metrics[m] = { run, baseline: was, delta, delta_pct: pct, regression: worse };
    }
    const {
      run_id: _r,
      attempt: _a,
      official: _o,
      date: _d,
      isl,
      osl,
      conc,
      runner: _n,
      metrics: _m,
      power_valid: _pv,
      power_schema_version: _ps,
      power_reasons: _pr,
      power_source: _src,
      ...config
    } = p;
    return {
      config,
      label: configLabel(config),
      isl,
      osl,
      conc,
      baseline_run_id: base?.run_id ?? null,
      baseline_date: base?.date ?? null,
      metrics,
      power: { run: powerSide(p), baseline: powerSide(base) },
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

/** The short names of the compared energy metrics in the report. */
const ENERGY_NAMES: Record<string, string> = {
  joules_per_total_token: 'J/token',
  joules_per_output_token: 'J/output token',
  joules_per_input_token: 'J/input token',
  joules_per_successful_query: 'J/request',
  prefill_joules_per_input_token: 'prefill J/input token',
  decode_joules_per_output_token: 'decode J/output token',
};

/** How a point's energy figure is labelled: measured, or modelled by the simulated engine. */
const energySource = (p: ComparedPoint): string => (p.power.run?.source === 'modelled' ? ' (modelled)' : '');

/** The comparison as a markdown report (what `frontier compare` prints and a PR comment can carry). */
export function comparisonMarkdown(c: Comparison): string {
  // Measured energy gets a column only when some point has it on both sides.
  const energy = c.points.some((p) => p.metrics.joules_per_total_token?.delta != null);
  const lines = [
    `## Run ${c.run_id} against the official results`,
    '',
    `${c.points.length} points; ${c.points.length - c.unmatched} with an official point to compare with; ` +
      `${c.regressions} regression${c.regressions === 1 ? '' : 's'} beyond ${c.threshold_pct}% (⚠).` +
      (energy ? ' Energy is compared only where both points have valid measured power.' : ''),
    '',
    '| config | ISL/OSL | conc | tok/s/GPU | output tok/s/GPU | tok/s/user (median) | TTFT median (ms) | TTFT p99 (ms) | E2EL median (s) |' +
      `${energy ? ' J/token (measured) |' : ''} official run |`,
    `|---|---|---:|---:|---:|---:|---:|---:|---:|${energy ? '---:|' : ''}---|`,
  ];
  const energyRegressions: string[] = [];
  for (const p of c.points) {
    const m = p.metrics;
    const ms = (d: MetricDelta): MetricDelta => ({ ...d, run: d.run === null ? null : d.run * 1000 });
    const j = m.joules_per_total_token;
    const energyCell = !energy ? '' : j && j.delta !== null ? ` ${fmt(j.run, 4)}${pct(j)}${energySource(p)} |` : ' – |';
    lines.push(
      `| ${p.regression ? '⚠ ' : ''}${p.label} | ${p.isl}/${p.osl} | ${p.conc} | ${fmt(m.tput_per_gpu!.run)}${pct(m.tput_per_gpu!)} | ` +
        `${fmt(m.output_tput_per_gpu!.run)}${pct(m.output_tput_per_gpu!)} | ${fmt(m.median_intvty!.run)}${pct(m.median_intvty!)} | ` +
        `${fmt(ms(m.median_ttft!).run)}${pct(m.median_ttft!)} | ${fmt(ms(m.p99_ttft!).run)}${pct(m.p99_ttft!)} | ` +
        `${fmt(m.median_e2el!.run, 2)}${pct(m.median_e2el!)} |${energyCell} ${p.baseline_run_id ? `${p.baseline_run_id} (${p.baseline_date})` : 'none'} |`,
    );
    for (const key of COMPARED_ENERGY_METRICS) {
      const d = m[key];
      if (d?.regression)
        energyRegressions.push(
          `- ⚠ ${p.label} ${p.isl}/${p.osl} conc ${p.conc}: ${ENERGY_NAMES[key]} ${fmt(d.baseline, 4)} → ${fmt(d.run, 4)}${pct(d)}${energySource(p)}`,
        );
    }
  }
  if (energyRegressions.length > 0) lines.push('', 'Energy regressions:', '', ...energyRegressions);
  return `${lines.join('\n')}\n`;
}
