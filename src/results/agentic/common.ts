/**
 * The shared helpers of the reference aggregation (aggregation_common.py): percentiles and
 * summary statistics, lenient number reading, rates, and reading metrics out of AIPerf's
 * server_metrics_export.json. Python floats travel as `PyFloat` so that `json.dump` text (and the
 * int/float distinction `round_floats` keeps) comes out the same.
 */
import { PyFloat, PythonError, byCodePoint, isDict, pyFloat, pyInt, pyStr } from '../../pycompat/index.js';
import { pyMean, pyPstdev, pyRound } from '../../pycompat/index.js';
import { percentile } from '../../util/percentile.js';
import type { ServerMetricEntry, ServerMetricSeries, ServerMetricsIndex } from './types.js';

/** A value of the aggregate as Python holds it: int (number), float (PyFloat), str, bool, None, list, dict. */
export type PyValue = null | boolean | number | string | PyFloat | PyValue[] | Map<string, PyValue> | { [key: string]: PyValue };

/** The reference's own Python percentile: its last bit, not numpy's (`PercentileOptions.lerp`). */
export const REFERENCE_PERCENTILE = { lerp: 'python' } as const;

/** A Python float, or None. */
export const pf = (x: number | null): PyFloat | null => (x === null ? null : new PyFloat(x));

/**
 * `{mean_X, p50_X, p75_X, p90_X, p95_X, std_X}` of the values (empty for none). `ints`: the values
 * were Python ints, so an exact mean stays an int (statistics.mean).
 */
export function statsFor(prefix: string, values: readonly number[], ints = false): Record<string, PyValue> {
  if (values.length === 0) return {};
  const mean = pyMean(values, ints);
  return {
    [`mean_${prefix}`]: mean.isInt ? mean.value : new PyFloat(mean.value),
    [`p50_${prefix}`]: new PyFloat(percentile(values, 50, REFERENCE_PERCENTILE)),
    [`p75_${prefix}`]: new PyFloat(percentile(values, 75, REFERENCE_PERCENTILE)),
    [`p90_${prefix}`]: new PyFloat(percentile(values, 90, REFERENCE_PERCENTILE)),
    [`p95_${prefix}`]: new PyFloat(percentile(values, 95, REFERENCE_PERCENTILE)),
    [`std_${prefix}`]: new PyFloat(values.length > 1 ? pyPstdev(values) : 0),
  };
}

/** Python's `float(value)`, or null where it raises. */
export function toFloat(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  try {
    return pyFloat(value, 'value');
  } catch (e) {
    if (e instanceof PythonError) return null;
    throw e;
  }
}

/** Python's `int(value)`, or null where it raises. */
export function toInt(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  try {
    return pyInt(value, 'value');
  } catch (e) {
    if (e instanceof PythonError) return null;
    throw e;
  }
}

/** numerator / denominator, null when either is missing or the denominator is not positive. */
export function rate(numerator: number | null, denominator: number | null): number | null {
  if (numerator === null || denominator === null || !(denominator > 0)) return null;
  return numerator / denominator;
}

/** Gauges may be exported as 0..1 or 0..100: above 1.5 is read as a percentage. */
export const normalizeFraction = (value: number | null): number | null =>
  value === null ? null : value > 1.5 ? value / 100 : value;

/** `round_floats`: every finite float to 5 places; one that lands on an integer of 1 or more becomes an int. */
export function roundFloats(value: PyValue): PyValue {
  if (value instanceof PyFloat) {
    if (!Number.isFinite(value.value)) return value;
    const rounded = pyRound(value.value, 5);
    return Math.abs(rounded) >= 1 && Number.isInteger(rounded) ? rounded : new PyFloat(rounded);
  }
  if (Array.isArray(value)) return value.map(roundFloats);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, roundFloats(v)]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, PyValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = roundFloats(v);
    return out;
  }
  return value;
}

/** The `metrics` dict of a server_metrics_export.json, or {} when it has none. */
export function indexServerMetrics(serverMetrics: unknown): ServerMetricsIndex {
  if (!isDict(serverMetrics)) return {};
  const metrics = serverMetrics.metrics;
  return isDict(metrics) ? (metrics as ServerMetricsIndex) : {};
}

export type SeriesFilter = (series: ServerMetricSeries) => boolean;

/** Every series (dicts only) of the named metrics, in name order given. */
export function metricSeries(metrics: ServerMetricsIndex, names: string | readonly string[]): ServerMetricSeries[] {
  const out: ServerMetricSeries[] = [];
  for (const name of typeof names === 'string' ? [names] : names) {
    const entry: unknown = Object.hasOwn(metrics, name) ? metrics[name] : undefined;
    if (!isDict(entry)) continue;
    const series: unknown = (entry as unknown as ServerMetricEntry).series;
    if (!Array.isArray(series)) continue;
    for (const s of series as unknown[]) if (isDict(s)) out.push(s as unknown as ServerMetricSeries);
  }
  return out;
}

export const COUNTER_KEYS = ['total', 'sum', 'max', 'avg'] as const;
export const GAUGE_KEYS = ['max', 'avg', 'total'] as const;

/** The first of the preferred stats that reads as a number. */
export function seriesStat(series: ServerMetricSeries, keys: readonly string[] = COUNTER_KEYS): number | null {
  const stats: unknown = series.stats;
  if (!isDict(stats)) return null;
  for (const key of keys) {
    const value = toFloat(Object.hasOwn(stats, key) ? stats[key] : undefined);
    if (value !== null) return value;
  }
  return null;
}

/** The sum over series of each one's stat; null when none has one. */
export function sumStat(
  metrics: ServerMetricsIndex,
  names: string | readonly string[],
  options: { keys?: readonly string[]; filter?: SeriesFilter } = {},
): number | null {
  let total = 0;
  let found = false;
  for (const series of metricSeries(metrics, names)) {
    if (options.filter && !options.filter(series)) continue;
    const value = seriesStat(series, options.keys ?? COUNTER_KEYS);
    if (value === null) continue;
    total += value;
    found = true;
  }
  return found ? total : null;
}

/** One stat per series, combined by max (default), mean or sum; null when none has one. */
export function gaugeStat(
  metrics: ServerMetricsIndex,
  names: string | readonly string[],
  options: { keys?: readonly string[]; combine?: 'max' | 'avg' | 'sum'; filter?: SeriesFilter } = {},
): number | null {
  const values: number[] = [];
  for (const series of metricSeries(metrics, names)) {
    if (options.filter && !options.filter(series)) continue;
    const value = seriesStat(series, options.keys ?? GAUGE_KEYS);
    if (value !== null) values.push(value);
  }
  if (values.length === 0) return null;
  if (options.combine === 'avg') return pyMean(values).value;
  if (options.combine === 'sum') return values.reduce((a, b) => a + b, 0);
  return pyMax(values);
}

/** Python's max(): the first of equal values, NaN compared as Python compares it (never greater). */
function pyMax(values: readonly number[]): number {
  let best = values[0]!;
  for (const v of values.slice(1)) if (v > best) best = v;
  return best;
}

/** A series' label as str, or null when it has none. */
export function labelValue(series: ServerMetricSeries, key: string): string | null {
  const labels: unknown = series.labels;
  if (!isDict(labels)) return null;
  const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
  if (value === null || value === undefined) return null;
  return pyStr(value);
}

export const labelEquals =
  (key: string, value: string): SeriesFilter =>
  (series) =>
    labelValue(series, key) === value;

/** The stat summed per value of the first of `labelKeys` a series has, in first-seen order. */
export function sumByLabel(
  metrics: ServerMetricsIndex,
  names: string | readonly string[],
  labelKeys: string | readonly string[],
  keys: readonly string[] = COUNTER_KEYS,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const series of metricSeries(metrics, names)) {
    const labels: unknown = series.labels;
    if (!isDict(labels)) continue;
    let label: string | null = null;
    for (const key of typeof labelKeys === 'string' ? [labelKeys] : labelKeys) {
      const raw = Object.hasOwn(labels, key) ? labels[key] : undefined;
      if (raw !== null && raw !== undefined) {
        label = pyStr(raw);
        break;
      }
    }
    if (label === null) continue;
    const value = seriesStat(series, keys);
    if (value === null) continue;
    out.set(label, (out.get(label) ?? 0) + value);
  }
  return out;
}

/** A Map of floats as the Python dict of floats it stands for. */
export const floatMap = (m: Map<string, number>): Map<string, PyValue> => new Map([...m].map(([k, v]) => [k, new PyFloat(v)]));

/** `sorted()` of strings: code-point order. */
export const byCodePointSort = (values: readonly string[]): string[] => [...values].sort(byCodePoint);
