/**
 * What the single-node and the multinode power steps share (the reference's `utils/aggregate_power.py`,
 * which `aggregate_power_multinode.py` imports from): the benchmark window and counts energy is
 * normalised by, per-device trapezoidal integration with linear interpolation at the window's
 * boundaries, and the patch of the aggregate's power keys.
 */
import { PyFloat, pyIsIntNotBool } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import { pyRound } from '../../pycompat/index.js';

export type PathKind = 'file' | 'empty-file' | 'dir' | 'missing';

/**
 * How a power step reads the files the reference would read (relative paths resolved where the
 * step runs): `fsTelemetry(cwd)` in real use, an in-memory tree in tests.
 */
export interface TelemetryFiles {
  kind(path: string): PathKind;
  /** The file's text (UTF-8; undecodable bytes replaced). Throws when it cannot be read. */
  read(path: string): string;
  /** The names in a directory, sorted; symbolic links and other non-files included. */
  list(path: string): { name: string; kind: PathKind | 'symlink' | 'other' }[];
  /**
   * `Path(path).resolve()`: absolute, symbolic links followed as far as the path exists. Absent,
   * paths are compared as written (the multinode step's "stays below its root" checks).
   */
  resolve?(path: string): string;
}

/** Stamped in every aggregate: the unprefixed `joules_per_*` keys mean whole-deployment energy. */
export const POWER_METRIC_SCHEMA_VERSION = 2;
export const INTEGRATION_METHOD = 'per_device_trapezoidal_with_linear_boundary_interpolation';
export { ROLE_POWER_KEYS, WHOLE_POWER_KEYS } from '../../contract/index.js';

/** A (unix seconds, watts) sample. */
export type PowerSample = readonly [time: number, watts: number];

/** Append a reason once, keeping the order reasons were found in. */
export function appendReason(reasons: string[], reason: string): void {
  if (!reasons.includes(reason)) reasons.push(reason);
}

/** The raw benchmark fields energy is normalised by (`BenchmarkData`). */
export interface BenchmarkData {
  start: number;
  end: number;
  /** The client's reported `duration`. */
  duration: number;
  completed: number;
  totalInputTokens: number;
  totalOutputTokens: number;
}

const isNumber = (v: unknown): boolean => (typeof v === 'number' && !Number.isNaN(v)) || v instanceof PyFloat;
const numberOf = (v: unknown): number => (v instanceof PyFloat ? v.value : (v as number));

/**
 * The benchmark window and counts of a raw result (parsed with pycompat `loads`), with the reasons
 * they cannot normalise energy (`_load_benchmark_data`); no window when it is unusable.
 */
export function loadBenchmarkData(raw: unknown): { benchmark?: BenchmarkData; reasons: string[] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { reasons: ['invalid_benchmark_result'] };
  const r = raw as Record<string, unknown>;
  const window = [r.benchmark_start_time_unix, r.benchmark_end_time_unix, r.duration];
  if (!window.every(isNumber)) return { reasons: ['invalid_benchmark_window'] };
  const [start, end, duration] = window.map(numberOf) as [number, number, number];
  if (![start, end, duration].every(Number.isFinite) || end <= start || duration <= 0) {
    return { reasons: ['invalid_benchmark_window'] };
  }
  const reasons: string[] = [];
  const integration = end - start;
  if (Math.abs(duration - integration) > Math.max(0.5, integration * 0.01)) appendReason(reasons, 'benchmark_duration_mismatch');
  const count = (key: string, reason: string): number => {
    const v = r[key];
    if (pyIsIntNotBool(v) && (v as number) > 0) return v as number;
    appendReason(reasons, reason);
    return 0;
  };
  const completed = count('completed', 'invalid_successful_query_count');
  const totalInputTokens = count('total_input_tokens', 'invalid_input_token_count');
  const totalOutputTokens = count('total_output_tokens', 'invalid_output_token_count');
  return { benchmark: { start, end, duration, completed, totalInputTokens, totalOutputTokens }, reasons };
}

/** The sidecar's `benchmark_window`. */
export function benchmarkWindowJson(b: BenchmarkData | undefined): PyJson {
  if (!b) return null;
  return new Map<string, PyJson>([
    ['start_time_unix', new PyFloat(b.start)],
    ['end_time_unix', new PyFloat(b.end)],
    ['reported_duration_s', new PyFloat(b.duration)],
    ['integration_duration_s', new PyFloat(b.end - b.start)],
    ['completed', b.completed],
    ['total_input_tokens', b.totalInputTokens],
    ['total_output_tokens', b.totalOutputTokens],
  ]);
}

/** Index of the first sample at or after `t` (bisect_left over the times). */
function bisectLeft(samples: readonly PowerSample[], t: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]![0] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Power at `t`, linearly interpolated between the samples around it (time-sorted samples). */
export function interpolatePower(samples: readonly PowerSample[], t: number): number {
  const right = bisectLeft(samples, t);
  if (right < samples.length && Math.abs(samples[right]![0] - t) <= 1e-9) return samples[right]![1];
  const left = right - 1;
  if (left < 0 || right >= samples.length) throw new Error('timestamp is not bracketed');
  const [t0, p0] = samples[left]!;
  const [t1, p1] = samples[right]!;
  return p0 + ((t - t0) / (t1 - t0)) * (p1 - p0);
}

/** Joules of one device over [start, end]: trapezoids between its samples, clipped at the boundaries by interpolation. */
export function integrateDevice(samples: readonly PowerSample[], start: number, end: number): number {
  const clipped: PowerSample[] = [[start, interpolatePower(samples, start)]];
  for (const s of samples) if (start < s[0] && s[0] < end) clipped.push(s);
  clipped.push([end, interpolatePower(samples, end)]);
  let energy = 0;
  for (let i = 1; i < clipped.length; i++) {
    const [t0, p0] = clipped[i - 1]!;
    const [t1, p1] = clipped[i]!;
    energy += ((t1 - t0) * (p0 + p1)) / 2;
  }
  return energy;
}

/**
 * Replace the aggregate's power keys with one verdict: stale metric keys removed, the schema
 * version and numeric `power_valid` set, and for a valid measurement each metric rounded as the
 * reference rounds it (3 places for watts and joules, 6 for ratios). Throws on a non-finite metric.
 */
export function patchAggregate(
  agg: Map<string, PyJson>,
  metricKeys: readonly string[],
  valid: boolean,
  metrics: ReadonlyMap<string, number>,
): void {
  for (const key of metricKeys) agg.delete(key);
  agg.set('power_metric_schema_version', POWER_METRIC_SCHEMA_VERSION);
  agg.set('power_valid', valid ? 1 : 0);
  agg.delete('power_invalid_reasons');
  if (!valid) return;
  for (const [key, value] of metrics) {
    if (!Number.isFinite(value)) throw new Error(`non-finite power metric: ${key}`);
    agg.set(key, new PyFloat(pyRound(value, key.endsWith('_w') || key.endsWith('_j') ? 3 : 6)));
  }
}

/** The sidecar's `metrics`: every finite metric rounded to 6 places. */
export function sidecarMetrics(metrics: ReadonlyMap<string, number>): Map<string, PyJson> {
  const out = new Map<string, PyJson>();
  for (const [key, value] of metrics) if (Number.isFinite(value)) out.set(key, new PyFloat(pyRound(value, 6)));
  return out;
}
