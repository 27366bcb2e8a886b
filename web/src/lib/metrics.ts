/**
 * The dashboard's metrics: what each axis can show (labels, units and directions are the metric
 * catalog's, src/contract/metrics.ts), and the derived ones (cost per million tokens, tokens per
 * second per MW, joules per token) computed from a point's throughput and the TCO figures of its
 * hardware. Pure: tested without a browser.
 */
import { THROUGHPUT_METRIC, metricDef } from '../../../src/contract/index.js';
import type { MetricDef } from '../../../src/contract/index.js';

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

/** What the y axis can show: throughput per GPU, and the cost, power and energy derived from it. */
export const Y_METRICS: readonly MetricDef[] = [
  ...kinds.map((k) => THROUGHPUT_METRIC[k]),
  ...kinds.map((k) => `${prefix(k)}cost_per_mtok`),
  ...kinds.map((k) => `${prefix(k)}tput_per_mw`),
  ...kinds.map((k) => `${prefix(k)}joules_per_tok`),
].map(metric);

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
