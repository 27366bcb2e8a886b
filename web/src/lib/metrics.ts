/**
 * The dashboard's metrics: what each axis can show (labels, units and directions are the metric
 * catalog's, src/contract/metrics.ts), and the derived ones (cost per million tokens, tokens per
 * second per MW, joules per token) computed from a point's throughput and the TCO figures of its
 * hardware. Pure: tested without a browser.
 */
import { THROUGHPUT_METRIC, metricDef } from '../../../src/contract/index.js';
import type { MetricDef, PointRow, PowerSource } from '../../../src/contract/index.js';

/** $/GPU/hour and all-in kW per GPU for one kind of hardware. */
export interface Tco {
  costPerHour: number;
  powerKw: number;
}

/**
 * Defaults: the reference dashboard's 3-year rental price and all-in provisioned power per GPU
 * (SemiAnalysis, August 2025). Hardware without an entry has no cost or power figures until the
 * TCO page gives it some (never a silent zero).
 */
export const DEFAULT_TCO: Readonly<Record<string, Tco>> = {
  h100: { costPerHour: 1.3, powerKw: 1.73 },
  h200: { costPerHour: 1.6, powerKw: 1.73 },
  b200: { costPerHour: 2.9, powerKw: 2.17 },
  b300: { costPerHour: 3.48, powerKw: 2.17 },
  gb200: { costPerHour: 3.3, powerKw: 2.1 },
  gb300: { costPerHour: 3.96, powerKw: 2.1 },
  mi300x: { costPerHour: 1.55, powerKw: 1.79 },
  mi325x: { costPerHour: 1.8, powerKw: 2.18 },
  mi355x: { costPerHour: 2.1, powerKw: 2.65 },
};

type Kind = 'total' | 'output' | 'input';
const kinds: Kind[] = ['total', 'output', 'input'];
const prefix = (k: Kind) => (k === 'total' ? '' : `${k}_`);
function metric(key: string): MetricDef {
  const m = metricDef(key);
  if (!m) throw new Error(`the metric catalog has no "${key}"`);
  return m;
}

/** Energy per token of each role of a disaggregated deployment: measured only (TCO figures have no roles). */
export const ROLE_ENERGY_METRICS = ['prefill_joules_per_input_token', 'decode_joules_per_output_token'] as const;

/** What the y axis can show: throughput per GPU, the cost, power and energy derived from it, and per-role energy. */
export const Y_METRICS: readonly MetricDef[] = [
  ...kinds.map((k) => THROUGHPUT_METRIC[k]),
  ...kinds.map((k) => `${prefix(k)}cost_per_mtok`),
  ...kinds.map((k) => `${prefix(k)}tput_per_mw`),
  ...kinds.map((k) => `${prefix(k)}joules_per_tok`),
  ...ROLE_ENERGY_METRICS,
].map(metric);

/**
 * Where the energy axes (tokens/s per MW, J/token) come from: the points' measured GPU power, or
 * the TCO figures (all-in kW per GPU). One chart never mixes the two.
 */
export type EnergyMode = 'measured' | 'tco';

/** Whether an axis is an energy one, whose value depends on the energy mode. */
export function isEnergyAxis(key: string): boolean {
  const d = derivedOf(key);
  return (d !== undefined && d.what !== 'cost') || (ROLE_ENERGY_METRICS as readonly string[]).includes(key);
}

/** Per-role energy has no TCO figure: its axis is measured whatever the mode. */
export const measuredOnly = (key: string): boolean => (ROLE_ENERGY_METRICS as readonly string[]).includes(key);

/** The measured joules per token of each kind (the power step's keys). */
const MEASURED_JOULES: Record<Kind, string> = {
  total: 'joules_per_total_token',
  output: 'joules_per_output_token',
  input: 'joules_per_input_token',
};

/**
 * A point's value of a metric in an energy mode. Measured: tokens/s per MW = throughput per GPU ×
 * 10⁶ ÷ avg_power_w (the average power per GPU over the benchmark window); J/token = the
 * `joules_per_*` key; only for a point whose power is valid (fail closed, whatever its metrics
 * hold). TCO figures: `metricValue`. Undefined when it cannot be known.
 */
export function pointValue(row: PointRow, key: string, tco: Readonly<Record<string, Tco>>, mode: EnergyMode): number | undefined {
  const measured = isEnergyAxis(key) && (mode === 'measured' || measuredOnly(key));
  if (!measured) return metricValue(row.metrics, row.hardware, key, tco);
  if (row.power_valid !== true) return undefined;
  const finite = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  if (measuredOnly(key)) return finite(row.metrics[key]);
  const d = derivedOf(key)!;
  if (d.what === 'joules') return finite(row.metrics[MEASURED_JOULES[d.kind]]);
  const watts = finite(row.metrics.avg_power_w);
  const tput = finite(row.metrics[THROUGHPUT_METRIC[d.kind]]);
  return watts === undefined || tput === undefined ? undefined : (tput * 1e6) / watts;
}

/** Whether a point can be drawn on a measured energy axis: it has valid power. */
export const hasMeasuredPower = (row: PointRow): boolean => row.power_valid === true;

/** The words that say where an energy axis's figures come from. */
export function energySourceLabel(mode: EnergyMode, sources: ReadonlySet<PowerSource | null>): string {
  if (mode === 'tco') return 'from TCO figures';
  const measured = sources.has('measured');
  const modelled = sources.has('modelled');
  if (modelled && !measured) return 'modelled (simulated engine)';
  if (modelled) return 'measured, and modelled (simulated engine)';
  return 'measured';
}

/** An energy axis's name with where its figures come from: "Energy per total token (J/tok), measured". */
export function energyAxisName(key: string, mode: EnergyMode, sources: ReadonlySet<PowerSource | null>, unit = true): string {
  const m = metricDef(key);
  if (!m) return key;
  const label = m.label.replace(/ \((all-in|measured)\)$/, '');
  return `${label}${unit ? ` (${m.unit})` : ''}, ${energySourceLabel(measuredOnly(key) ? 'measured' : mode, sources)}`;
}

/** What the x axis can show: interactivity and latencies. */
export const X_METRICS: readonly MetricDef[] = [
  'median_intvty',
  'p90_intvty',
  'p99_intvty',
  'median_ttft',
  'p99_ttft',
  'median_e2el',
  'p99_e2el',
].map(metric);

/** "Interactivity, median (tok/s/user)". */
export function axisName(key: string): string {
  const m = metricDef(key);
  return m ? `${m.label} (${m.unit})` : key;
}

/** Which derived metric a key names, and of which throughput. */
function derivedOf(key: string): { kind: Kind; what: 'cost' | 'mw' | 'joules' } | undefined {
  const m = /^(?:(output|input)_)?(cost_per_mtok|tput_per_mw|joules_per_tok)$/.exec(key);
  if (!m) return undefined;
  return {
    kind: (m[1] as Kind | undefined) ?? 'total',
    what: m[2] === 'cost_per_mtok' ? 'cost' : m[2] === 'tput_per_mw' ? 'mw' : 'joules',
  };
}

/**
 * A point's value of a metric: measured ones from its metrics, derived ones from its throughput
 * and its hardware's TCO figures. Undefined when it cannot be known (no TCO figures for the
 * hardware, a zero throughput, a metric the point lacks).
 */
export function metricValue(
  metrics: Readonly<Record<string, number>>,
  hardware: string,
  key: string,
  tco: Readonly<Record<string, Tco>>,
): number | undefined {
  const derived = derivedOf(key);
  if (!derived) {
    const v = metrics[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  }
  const tput = metrics[THROUGHPUT_METRIC[derived.kind]];
  const t = tco[hardware];
  if (!t || tput === undefined || !(tput > 0)) return undefined;
  if (derived.what === 'cost') return t.costPerHour / ((tput * 3600) / 1e6);
  if (derived.what === 'mw') return (tput * 1000) / t.powerKw;
  return (t.powerKw * 1000) / tput;
}

/** A closed interval of a metric's values, low end first. */
export type Interval = readonly [number, number];

/**
 * A point's 95% confidence interval on an axis, over its repeats (`stats[key].ci95`); undefined
 * for a point measured once or a metric without repeats. A derived metric (cost per million
 * tokens, tokens/s per MW, J/token) takes it from what it is derived from: the value computed at
 * each end of the throughput's interval (or of the measured joules'), which maps the interval
 * through the same formula (cost and J/token fall as throughput rises, so the ends swap).
 */
export function pointInterval(
  row: PointRow,
  key: string,
  tco: Readonly<Record<string, Tco>>,
  mode: EnergyMode,
): Interval | undefined {
  if (row.n <= 1) return undefined;
  const d = derivedOf(key);
  const sources = [key, ...(d ? [THROUGHPUT_METRIC[d.kind], MEASURED_JOULES[d.kind]] : [])].filter(
    (k) => row.stats[k]?.ci95 && k in row.metrics,
  );
  if (sources.length === 0) return undefined;
  const at = (end: 0 | 1) =>
    pointValue(
      { ...row, metrics: { ...row.metrics, ...Object.fromEntries(sources.map((k) => [k, row.stats[k]!.ci95![end]])) } },
      key,
      tco,
      mode,
    );
  const a = at(0);
  const b = at(1);
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b)) return undefined;
  return a <= b ? [a, b] : [b, a];
}
