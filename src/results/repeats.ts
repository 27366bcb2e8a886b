/**
 * A point measured several times (`frontier run --repeats N`): its repeats' aggregates into the
 * one `agg_<RF>.json` InferenceX reads. Every key keeps its name and meaning; a measurement is the
 * mean of the repeats' values, and one key is added, `repeats`, with each measurement's n, mean,
 * sample standard deviation, 95% confidence interval of the mean (Student's t) and its values.
 */
import type { RepeatScope } from '../contract/index.js';
import { PyFloat, dumps, loads } from '../pycompat/index.js';
import { mean, meanInterval, sampleStd } from '../util/stats.js';

/** Keys of an aggregate that describe a point rather than measure it. */
const DESCRIBING_KEYS = new Set([
  'conc',
  'isl',
  'osl',
  'tp',
  'pp',
  'ep',
  'dcp_size',
  'pcp_size',
  'num_prefill_gpu',
  'num_decode_gpu',
  'power_metric_schema_version',
  'power_valid',
  'n_eff',
]);

/** Whether an aggregate's numeric key is a measurement (not the point's identity or topology). */
export const isMeasurementKey = (key: string): boolean => !DESCRIBING_KEYS.has(key) && !/^(prefill|decode)_/.test(key);

/** One measurement over the repeats, as the `repeats` key holds it. */
export interface RepeatedMetric {
  n: number;
  mean: number;
  std: number | null;
  ci95: [number, number] | null;
  values: number[];
}

/** The `repeats` key of a repeated point's aggregate. */
export interface RepeatsBlock {
  n: number;
  scope: RepeatScope;
  metrics: Record<string, RepeatedMetric>;
}

export function repeatedMetric(values: number[]): RepeatedMetric {
  return { n: values.length, mean: mean(values), std: sampleStd(values), ci95: meanInterval(values), values };
}

const numberOf = (v: unknown): number | undefined =>
  v instanceof PyFloat ? v.value : typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/**
 * The repeats' aggregates (each as process_result wrote it) as one: the first repeat's keys in its
 * order; a measurement every repeat has, the mean of theirs; one that only some have (measured
 * energy where some repeat's power is not valid) left out; `power_valid` 1 only when every repeat's is.
 */
export function combineRepeats(aggregates: readonly string[], scope: RepeatScope): string {
  if (aggregates.length === 0) throw new Error('combineRepeats: no aggregate to combine');
  const parsed = aggregates.map((text) => loads(text) as Record<string, unknown>);
  const first = parsed[0]!;
  const out: Record<string, unknown> = {};
  const metrics: Record<string, RepeatedMetric> = {};
  for (const [key, value] of Object.entries(first)) {
    if (key === 'power_valid') {
      out[key] = parsed.every((a) => numberOf(a[key]) === 1) ? 1 : 0;
      continue;
    }
    const here = numberOf(value);
    if (here === undefined || !isMeasurementKey(key)) {
      out[key] = value;
      continue;
    }
    const values = parsed.map((a) => numberOf(a[key]));
    if (values.some((v) => v === undefined)) continue;
    const stats = repeatedMetric(values as number[]);
    metrics[key] = stats;
    out[key] = values.every((v) => v === here) ? value : new PyFloat(stats.mean);
  }
  const block: RepeatsBlock = { n: parsed.length, scope, metrics };
  out.repeats = block;
  return dumps(out, { indent: 2 });
}
