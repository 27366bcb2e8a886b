/**
 * A run against the official record, with a verdict per point that tells a regression from noise,
 * and the comparison as the markdown report `frontier compare` prints and the PR comment carries.
 */
import { MEASURED_ENERGY_METRICS, VERDICT_SYMBOL, changeText, configLabel, goalOf } from '../contract/index.js';
import type { ComparedPoint, Comparison, MetricDelta, PointRow, PowerSide, VerdictName } from '../contract/index.js';
import type { Store } from './db.js';
import { benchmarks } from './queries.js';
import { officialHistory, variationOf } from './variation.js';
import type { VariationIndex } from './variation.js';
import { DEFAULT_VERDICT_SETTINGS, RESOLUTION_FACTOR, answer, untested } from './verdict.js';
import type { Answer, Question, SampleSide, VerdictSettings } from './verdict.js';

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

/** The metrics a point's verdict is read from when none of its metrics regressed or improved: the frontier's two axes. */
const HEADLINE_METRICS = ['tput_per_gpu', 'median_intvty'];

const NO_VERDICTS = (): Record<VerdictName, number> => ({
  regression: 0,
  improvement: 0,
  'no significant change': 0,
  inconclusive: 0,
});

/** One side's samples of a metric: its repeats' values, or its one value; independent when its repeats were launches. */
function sideOf(p: PointRow, metric: string): SampleSide | undefined {
  const s = p.stats[metric];
  if (s && s.values.length > 1) return { values: s.values, independent: p.repeat_scope === 'launch' };
  const v = p.metrics[metric];
  return v === undefined ? undefined : { values: [v], independent: true };
}

/**
 * A run against the official record: each of its points next to the latest official point of the
 * same config at the same isl, osl and conc (from another run), each metric's change with its 95%
 * interval and verdict (store/verdict.ts), the spread known from official history taken into account.
 */
export async function compareRun(
  store: Store,
  runId: string,
  settings: VerdictSettings = DEFAULT_VERDICT_SETTINGS,
): Promise<Comparison | undefined> {
  const points = await benchmarks(store, { run: runId });
  if (points.length === 0) {
    const known = await store.db.selectFrom('runs').select('id').where('run_id', '=', runId).executeTakeFirst();
    if (!known) return undefined;
  }
  const configIds = [...new Set(points.map((p) => p.config_id))];
  const baseline = new Map(
    (await benchmarks(store, { configIds, source: 'official', excludeRun: runId })).map((r) => [pointKey(r), r]),
  );
  const metrics = [...COMPARED_METRICS, ...COMPARED_ENERGY_METRICS];
  const variation = variationOf(await officialHistory(store, points, metrics, runId), metrics);
  const cells = points.map((p) => deltasOf(p, baseline.get(pointKey(p)), variation));
  const questions = cells.flatMap((c) => c.questions);
  const answers = answer(
    questions.map((q) => q.question),
    settings,
  );
  questions.forEach((q, i) => Object.assign(q.delta, answerFields(answers[i]!)));
  const compared = points.map((p, i) => comparedPoint(p, baseline.get(pointKey(p)), cells[i]!.metrics));
  const verdicts = NO_VERDICTS();
  for (const c of compared) if (c.baseline_run_id !== null) verdicts[c.verdict]++;
  return {
    run_id: runId,
    method: {
      tests:
        "Welch's t where both sides are repeated launches and nothing else is known, else a moderated t (the spread pooled over the hardware × framework and official history)",
      fdr: 'benjamini-hochberg',
      alpha: settings.alpha,
      min_effect_pct: settings.minEffectPct,
      resolution_pct: settings.minEffectPct * RESOLUTION_FACTOR,
    },
    points: compared,
    unmatched: compared.filter((p) => p.baseline_run_id === null).length,
    verdicts,
    regressions: verdicts.regression,
  };
}

const answerFields = (a: Answer): Omit<MetricDelta, 'run' | 'baseline' | 'n_run' | 'n_baseline' | 'delta'> => ({
  delta_pct: a.change_pct,
  ci95_pct: a.ci95_pct,
  test: a.test,
  df: a.df,
  p: a.p,
  q: a.q,
  verdict: a.verdict,
  note: a.note,
});

interface Cell {
  metrics: Record<string, MetricDelta>;
  questions: { question: Question; delta: MetricDelta }[];
}

/** A point's metrics against its baseline's, and the questions to put to the verdict (the ones both sides have). */
function deltasOf(p: PointRow, base: PointRow | undefined, variation: VariationIndex): Cell {
  const metrics: Record<string, MetricDelta> = {};
  const questions: Cell['questions'] = [];
  const bothValid = p.power_valid === true && base?.power_valid === true;
  for (const m of [...COMPARED_METRICS, ...COMPARED_ENERGY_METRICS]) {
    const energy = (COMPARED_ENERGY_METRICS as readonly string[]).includes(m);
    if (energy && !(m in p.metrics) && !(base !== undefined && m in base.metrics)) continue;
    const runSide = energy && p.power_valid !== true ? undefined : sideOf(p, m);
    const baseSide = base === undefined || (energy && !bothValid) ? undefined : sideOf(base, m);
    const run = runSide ? p.metrics[m]! : null;
    const was = baseSide ? base!.metrics[m]! : null;
    const delta: MetricDelta = {
      run,
      baseline: was,
      n_run: runSide?.values.length ?? 0,
      n_baseline: baseSide?.values.length ?? 0,
      delta: run !== null && was !== null ? run - was : null,
      ...answerFields(untested(base === undefined ? 'no official point to compare with' : 'not measured on both sides')),
    };
    metrics[m] = delta;
    if (runSide && baseSide)
      questions.push({
        delta,
        question: {
          run: runSide,
          baseline: baseSide,
          goal: goalOf(m),
          pool: `${p.hardware}|${p.framework}|${m}`,
          history: variation.of(p, m),
        },
      });
  }
  return { metrics, questions };
}

/** A point's verdict from its metrics': any regression, else any improvement, else what the headline metrics say. */
function pointVerdict(metrics: Record<string, MetricDelta>): VerdictName {
  const all = Object.values(metrics);
  if (all.some((d) => d.verdict === 'regression')) return 'regression';
  if (all.some((d) => d.verdict === 'improvement')) return 'improvement';
  const headline = HEADLINE_METRICS.map((m) => metrics[m]).filter((d) => d !== undefined);
  return headline.length > 0 && headline.every((d) => d.verdict === 'no significant change')
    ? 'no significant change'
    : 'inconclusive';
}

function comparedPoint(p: PointRow, base: PointRow | undefined, metrics: Record<string, MetricDelta>): ComparedPoint {
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
    n: _count,
    repeat_scope: _scope,
    stats: _stats,
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
    verdict: base === undefined ? 'inconclusive' : pointVerdict(metrics),
  };
}

const fmt = (x: number | null, digits = 1): string =>
  x === null ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A point's verdict in the report: its symbol and its name. */
const verdictMark = (v: VerdictName): string => `${VERDICT_SYMBOL[v]} ${v}`;

/** A metric's change with its interval and mark (`−3.1% [−5.0, −1.2] ▼`). */
const change = (d: MetricDelta): string =>
  d.delta_pct === null ? '' : ` ${changeText(d)}${d.verdict === 'no significant change' ? '' : ` ${VERDICT_SYMBOL[d.verdict]}`}`;

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

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What the report's head says: the counts per verdict, and how they were reached. */
function summaryLines(c: Comparison, energy: boolean): string[] {
  const v = c.verdicts;
  const m = c.method;
  return [
    `${plural(c.points.length, 'point')}; ${c.points.length - c.unmatched} with an official point to compare with: ` +
      `**${plural(v.regression, 'regression')}**, ${plural(v.improvement, 'improvement')}, ` +
      `${v['no significant change']} with no significant change, ${v.inconclusive} inconclusive.`,
    '',
    `Each change is the run against the official point with its 95% confidence interval; ` +
      `a regression is significant at a false discovery rate of ${m.alpha * 100}% (Benjamini–Hochberg over every metric) ` +
      `and at least ${m.min_effect_pct}%; a point whose interval reaches beyond ±${m.resolution_pct}% is inconclusive. ` +
      `n is samples (run/official); tests: ${m.tests}.` +
      (energy ? ' Energy is compared only where both points have valid measured power.' : ''),
  ];
}

/** The comparison as a markdown report (what `frontier compare` prints and a PR comment can carry). */
export function comparisonMarkdown(c: Comparison): string {
  // Measured energy gets a column only when some point has it on both sides.
  const energy = c.points.some((p) => p.metrics.joules_per_total_token?.delta != null);
  const lines = [
    `## Run ${c.run_id} against the official results`,
    '',
    ...summaryLines(c, energy),
    '',
    '| verdict | config | ISL/OSL | conc | n | tok/s/GPU | output tok/s/GPU | tok/s/user (median) | TTFT median (ms) | TTFT p99 (ms) | E2EL median (s) |' +
      `${energy ? ' J/token (measured) |' : ''} official run |`,
    `|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|${energy ? '---:|' : ''}---|`,
  ];
  const energyRegressions: string[] = [];
  const unsettled: string[] = [];
  for (const p of c.points) {
    const m = p.metrics;
    const cell = (d: MetricDelta | undefined, digits = 1, scale = 1): string =>
      d ? `${fmt(d.run === null ? null : d.run * scale, digits)}${change(d)}` : '–';
    const t = m.tput_per_gpu;
    const n = t ? `${t.n_run}/${t.n_baseline}` : '–';
    const j = m.joules_per_total_token;
    const energyCell = !energy ? '' : j && j.delta !== null ? ` ${cell(j, 4)}${energySource(p)} |` : ' – |';
    lines.push(
      `| ${p.baseline_run_id ? verdictMark(p.verdict) : '–'} | ${p.label} | ${p.isl}/${p.osl} | ${p.conc} | ${n} | ${cell(t)} | ` +
        `${cell(m.output_tput_per_gpu)} | ${cell(m.median_intvty)} | ${cell(m.median_ttft, 1, 1000)} | ${cell(m.p99_ttft, 1, 1000)} | ` +
        `${cell(m.median_e2el, 2)} |${energyCell} ${p.baseline_run_id ? `${p.baseline_run_id} (${p.baseline_date})` : 'none'} |`,
    );
    for (const key of COMPARED_ENERGY_METRICS) {
      const d = m[key];
      if (d?.verdict === 'regression')
        energyRegressions.push(
          `- ▼ ${p.label} ${p.isl}/${p.osl} conc ${p.conc}: ${ENERGY_NAMES[key]} ${fmt(d.baseline, 4)} → ${fmt(d.run, 4)}${change(d)}${energySource(p)}`,
        );
    }
    if (p.baseline_run_id && p.verdict === 'inconclusive' && t?.note)
      unsettled.push(`- ${p.label} ${p.isl}/${p.osl} conc ${p.conc}: ${t.note}`);
  }
  if (energyRegressions.length > 0) lines.push('', 'Energy regressions:', '', ...energyRegressions);
  if (unsettled.length > 0) lines.push('', 'Inconclusive, and what would settle it (throughput per GPU):', '', ...unsettled);
  return `${lines.join('\n')}\n`;
}
