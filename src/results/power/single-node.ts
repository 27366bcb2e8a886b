/**
 * The single-node power step: a port of the reference's `utils/aggregate_power.py` (InferenceX).
 * GPU board power sampled by nvidia-smi or amd-smi during the benchmark is validated and integrated
 * per device over the client's measurement window (trapezoids, linear interpolation at the
 * boundaries), normalised by the benchmark's counts, patched into the aggregate and explained in a
 * validation sidecar whose bytes (`json.dumps(indent=2)`) are the reference's.
 */
import { PyFloat, PyJsonSyntaxError, byCodePoint, dumps, loads, pyFixed, pyFloat, pyPath, pyRepr } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';
import { pyMean, pyRound } from '../../pycompat/index.js';
import {
  INTEGRATION_METHOD,
  WHOLE_POWER_KEYS,
  appendReason,
  benchmarkWindowJson,
  integrateDevice,
  loadBenchmarkData,
  patchAggregate,
  sidecarMetrics,
} from './common.js';
import type { BenchmarkData, PowerSample, TelemetryFiles } from './common.js';
import { CsvError, cell, dictReader, pyStrip } from './csv.js';
import { gpuIdProblem, maxPlausiblePowerW, plausibilityJson } from './plausibility.js';
import type { NodeBounds, RejectedRow } from './plausibility.js';
import { parsePower, parseTimestamp, parseUtcOffset } from './timestamps.js';
import type { NaiveOffset } from './timestamps.js';

export const DEFAULT_MAX_SAMPLE_GAP_S = 3.0;
export const ACCUMULATOR_TOLERANCE = 0.05;

const POWER_COL = /power/i;
const POWER_EXCLUDE = /limit|cap|max|min/i;
const TIMESTAMP_COL = /time/i;
const GPU_INDEX_COL = /^(index|gpu|gpu_id|gpu_index|card|device)$/i;

/** An unexpected failure the reference would raise out of `run` (process_result records it as `aggregation_internal_error`). */
export class PowerInternalError extends Error {
  constructor(
    message: string,
    readonly pythonType: string,
  ) {
    super(message);
  }
}

/** `_detect_columns`: the first header naming a time, a power reading (not a limit/cap/max/min), a GPU identity. */
export function detectColumns(header: readonly string[]): { timestamp?: string; power?: string; gpu?: string } {
  return {
    timestamp: header.find((c) => TIMESTAMP_COL.test(c)),
    power: header.find((c) => POWER_COL.test(c) && !POWER_EXCLUDE.test(c)),
    gpu: header.find((c) => GPU_INDEX_COL.test(pyStrip(c))),
  };
}

/** `_gpu_sort_key` order: decimal ids by value first, then the rest by code point; ties keep their order. */
export function sortGpuIds(ids: Iterable<string>): string[] {
  const key = (id: string): [0, bigint] | [1, string] => {
    if (/^\p{Nd}+$/u.test(id)) return [0, BigInt(id.replace(/\p{Nd}/gu, (d) => String(digitValue(d))))];
    // str.isdigit() also holds for superscripts, circled digits and the like, which int() refuses: the reference raises.
    if (ISDIGIT.test(id)) throw new PowerInternalError(`invalid literal for int() with base 10: ${pyRepr(id)}`, 'ValueError');
    return [1, id];
  };
  const keyed = [...ids].map((id, i) => ({ id, i, k: key(id) }));
  keyed.sort((a, b) => {
    if (a.k[0] !== b.k[0]) return a.k[0] - b.k[0];
    const x = a.k[1];
    const y = b.k[1];
    const order = typeof x === 'string' ? byCodePoint(x, y as string) : x < (y as bigint) ? -1 : x > (y as bigint) ? 1 : 0;
    return order || a.i - b.i;
  });
  return keyed.map((e) => e.id);
}

const ND = /\p{Nd}/u;
/** Characters `str.isdigit()` accepts that are not decimal digits (Python 3.11's Unicode data). */
const DIGIT_ONLY =
  '\\u{b2}-\\u{b3}\\u{b9}\\u{1369}-\\u{1371}\\u{19da}\\u{2070}\\u{2074}-\\u{2079}\\u{2080}-\\u{2089}\\u{2460}-\\u{2468}' +
  '\\u{2474}-\\u{247c}\\u{2488}-\\u{2490}\\u{24ea}\\u{24f5}-\\u{24fd}\\u{24ff}\\u{2776}-\\u{277e}\\u{2780}-\\u{2788}' +
  '\\u{278a}-\\u{2792}\\u{10a40}-\\u{10a43}\\u{10e60}-\\u{10e68}\\u{11052}-\\u{1105a}\\u{1f100}-\\u{1f10a}';
const ISDIGIT = new RegExp(`^[\\p{Nd}${DIGIT_ONLY}]+$`, 'u');
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  let start = cp;
  while (ND.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** What `integrate_power` found: the verdict, per-device evidence and (when every device integrated) the totals. */
export interface PowerIntegration {
  valid: boolean;
  reasons: string[];
  expectedGpus: number | null;
  observedGpuIds: string[];
  sampleCounts: Map<string, number>;
  maxGaps: Map<string, number>;
  energies: Map<string, number>;
  deviceIssues: Map<string, string[]>;
  avgPowerW?: number;
  avgTotalGpuPowerW?: number;
  totalGpuEnergyJ?: number;
  /** Frontier only: the node's bounds and the first row each of them refused, when they refused any. */
  plausibility?: { node: NodeBounds; rejected: RejectedRow[] };
}

export function emptyIntegration(expectedGpus: number | null, reasons: string[]): PowerIntegration {
  return {
    valid: false,
    reasons: [...reasons],
    expectedGpus,
    observedGpuIds: [],
    sampleCounts: new Map(),
    maxGaps: new Map(),
    energies: new Map(),
    deviceIssues: new Map(),
  };
}

/** `Path(p).with_name(f"{Path(p).stem}{suffix}")`. */
export function stemSibling(path: string, suffix: string): string {
  const p = pyPath(path);
  const slash = p.lastIndexOf('/');
  const dir = slash >= 0 ? p.slice(0, slash + 1) : '';
  const name = p.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 && dot < name.length - 1 ? name.slice(0, dot) : name;
  return `${dir}${stem}${suffix}`;
}

/**
 * Frontier's extension: `<csv stem>_timezone_offset.txt` beside the CSV (`date +%z`) says at which
 * UTC offset its naive timestamps were written. Absent: local time, as the reference.
 */
export function naiveOffsetFor(files: TelemetryFiles, csvPath: string): { offset: NaiveOffset; invalid: boolean } {
  const path = stemSibling(csvPath, '_timezone_offset.txt');
  if (files.kind(path) === 'missing' || files.kind(path) === 'dir') return { offset: undefined, invalid: false };
  let text: string;
  try {
    text = files.read(path);
  } catch {
    return { offset: undefined, invalid: true };
  }
  const offset = parseUtcOffset(text.trim());
  return offset === undefined ? { offset: undefined, invalid: true } : { offset, invalid: false };
}

/** What the reference catches as `(OSError, csv.Error)`: a file that cannot be read, or CSV it cannot parse. */
const isReadError = (e: unknown): boolean =>
  e instanceof CsvError || (e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string');

const isFile = (files: TelemetryFiles, path: string): boolean => ['file', 'empty-file'].includes(files.kind(path));

export interface IntegrateOptions {
  start: number;
  end: number;
  expectedGpus?: number | null;
  maxSampleGapS?: number;
  /** Naive timestamps' offset; default: found with `naiveOffsetFor`. */
  naive?: NaiveOffset;
  /** The node sampled (Frontier only): readings and GPU ids outside its bounds invalidate power. */
  node?: NodeBounds;
}

/** The plausibility reason of one reading, if it breaks the node's bounds. */
function implausibility(node: NodeBounds, gpu: string, power: number): string | undefined {
  if (power > maxPlausiblePowerW(node)) return 'power_sample_above_board_limit';
  return gpuIdProblem(gpu, node);
}

/**
 * `integrate_power`: validate and integrate per-device power over [start, end]. A valid stream
 * has parseable timestamps and power, GPU identities, the expected GPU count, samples bracketing
 * both boundaries for every device and no in-window gap above `maxSampleGapS`.
 */
export function integratePower(files: TelemetryFiles, csvPath: string, options: IntegrateOptions): PowerIntegration {
  const { start, end } = options;
  const expectedGpus = options.expectedGpus ?? null;
  const maxGap = options.maxSampleGapS ?? DEFAULT_MAX_SAMPLE_GAP_S;
  const reasons: string[] = [];
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) {
    return emptyIntegration(expectedGpus, ['invalid_benchmark_window']);
  }
  if (expectedGpus !== null && expectedGpus <= 0) appendReason(reasons, 'invalid_expected_gpu_count');
  if (!Number.isFinite(maxGap) || maxGap <= 0) return emptyIntegration(expectedGpus, ['invalid_max_sample_gap']);
  const kind = files.kind(csvPath);
  if (kind !== 'file' && kind !== 'empty-file') {
    appendReason(reasons, 'telemetry_file_missing');
    return emptyIntegration(expectedGpus, reasons);
  }
  if (kind === 'empty-file') {
    appendReason(reasons, 'telemetry_file_empty');
    return emptyIntegration(expectedGpus, reasons);
  }
  let naive = options.naive;
  if (!('naive' in options)) {
    const found = naiveOffsetFor(files, csvPath);
    if (found.invalid) appendReason(reasons, 'telemetry_timezone_offset_invalid');
    naive = found.offset;
  }

  // Readings grouped by GPU and exact timestamp: duplicate-timestamp readings are averaged.
  const raw = new Map<string, Map<number, number[]>>();
  let sawMissingIdentity = false;
  const rejected: RejectedRow[] = [];
  try {
    const { header, rows } = dictReader(files.read(csvPath));
    const cols = detectColumns(header);
    let missing = false;
    if (!cols.timestamp) {
      appendReason(reasons, 'timestamp_column_missing');
      missing = true;
    }
    if (!cols.power) {
      appendReason(reasons, 'power_column_missing');
      missing = true;
    }
    if (!cols.gpu) {
      appendReason(reasons, 'gpu_identity_column_missing');
      missing = true;
    }
    if (missing) return emptyIntegration(expectedGpus, reasons);
    for (const [index, row] of rows.entries()) {
      const t = parseTimestamp(cell(row, cols.timestamp!), naive);
      if (t === undefined || !Number.isFinite(t)) {
        appendReason(reasons, 'invalid_timestamp_sample');
        continue;
      }
      // A corrupt row whose parseable time proves it outside the window (with margin) is skipped.
      if (t < start - maxGap || t > end + maxGap) continue;
      const power = parsePower(cell(row, cols.power!));
      const gpu = cell(row, cols.gpu!);
      if (power === undefined || !Number.isFinite(power) || power < 0) {
        appendReason(reasons, 'invalid_power_sample');
        continue;
      }
      if (!gpu) {
        sawMissingIdentity = true;
        continue;
      }
      const implausible = options.node && implausibility(options.node, gpu, power);
      if (implausible) {
        if (!reasons.includes(implausible)) rejected.push({ reason: implausible, row: index + 1, gpu, powerW: power });
        appendReason(reasons, implausible);
        continue;
      }
      let byTime = raw.get(gpu);
      if (!byTime) raw.set(gpu, (byTime = new Map()));
      const values = byTime.get(t);
      if (values) values.push(power);
      else byTime.set(t, [power]);
    }
  } catch (e) {
    if (!isReadError(e)) throw e;
    appendReason(reasons, 'telemetry_file_unreadable');
    return emptyIntegration(expectedGpus, reasons);
  }

  if (sawMissingIdentity) appendReason(reasons, 'gpu_identity_missing');
  // Only when a row was refused: the sidecar of plausible telemetry stays the reference's, byte for byte.
  const plausibility = options.node && rejected.length ? { plausibility: { node: options.node, rejected } } : {};
  if (raw.size === 0) {
    appendReason(reasons, 'no_usable_power_samples');
    return { ...emptyIntegration(expectedGpus, reasons), ...plausibility };
  }
  const observedGpuIds = sortGpuIds(raw.keys());
  if (expectedGpus !== null && expectedGpus > 0 && observedGpuIds.length !== expectedGpus) {
    appendReason(reasons, 'expected_gpu_count_mismatch');
  }

  const sampleCounts = new Map<string, number>();
  const maxGaps = new Map<string, number>();
  const energies = new Map<string, number>();
  const deviceIssues = new Map<string, string[]>();
  for (const gpu of observedGpuIds) {
    const samples: PowerSample[] = [...raw.get(gpu)!]
      .map(([t, values]): PowerSample => [t, pyMean(values).value])
      .sort((a, b) => a[0] - b[0]);
    sampleCounts.set(gpu, samples.length);
    const issues: string[] = [];
    if (samples.length < 2) {
      issues.push('insufficient_power_samples');
      appendReason(reasons, 'insufficient_power_samples');
    } else if (samples[0]![0] > start || samples[samples.length - 1]![0] < end) {
      issues.push('benchmark_window_not_bracketed');
      appendReason(reasons, 'benchmark_window_not_bracketed');
    } else {
      // The samples that touch the window: the last at or before start through the first at or after end.
      let left = 0;
      while (left + 1 < samples.length && samples[left + 1]![0] <= start) left++;
      let right = 0;
      while (right < samples.length && samples[right]![0] < end) right++;
      let gap = 0;
      for (let i = left + 1; i <= Math.min(right, samples.length - 1); i++) {
        const g = samples[i]![0] - samples[i - 1]![0];
        if (g > gap) gap = g;
      }
      maxGaps.set(gpu, gap);
      if (gap > maxGap) {
        issues.push('sampling_gap_exceeded');
        appendReason(reasons, 'sampling_gap_exceeded');
      }
      energies.set(gpu, integrateDevice(samples, start, end));
    }
    if (issues.length) deviceIssues.set(gpu, issues);
  }

  const result: PowerIntegration = {
    valid: reasons.length === 0,
    reasons,
    expectedGpus,
    observedGpuIds,
    sampleCounts,
    maxGaps,
    energies,
    deviceIssues,
    ...plausibility,
  };
  if (energies.size === observedGpuIds.length) {
    let total = 0;
    for (const e of energies.values()) total += e;
    result.totalGpuEnergyJ = total;
    result.avgTotalGpuPowerW = total / (end - start);
    result.avgPowerW = result.avgTotalGpuPowerW / observedGpuIds.length;
  }
  return result;
}

/** `_read_energy_snapshot`: GPU id → accumulator joules of one `amd-smi metric -E --csv` snapshot; undefined when unusable. */
function readEnergySnapshot(files: TelemetryFiles, path: string): Map<string, number> | undefined {
  const { header, rows } = dictReader(files.read(path));
  if (!header.includes('gpu') || !header.includes('total_energy_consumption')) return undefined;
  const energy = new Map<string, number>();
  for (const row of rows) {
    const gpu = cell(row, 'gpu');
    if (!gpu) continue;
    let joules: number;
    try {
      joules = pyFloat(cell(row, 'total_energy_consumption'), 'total_energy_consumption');
    } catch {
      continue;
    }
    if (Number.isFinite(joules)) energy.set(gpu, joules);
  }
  return energy.size ? energy : undefined;
}

/** `_stream_samples_by_gpu`: every parseable sample per GPU, time-sorted (ties by power). */
function streamSamplesByGpu(files: TelemetryFiles, csvPath: string, naive: NaiveOffset): Map<string, PowerSample[]> {
  const samples = new Map<string, PowerSample[]>();
  const { header, rows } = dictReader(files.read(csvPath));
  const cols = detectColumns(header);
  if (!cols.timestamp || !cols.power || !cols.gpu) return samples;
  for (const row of rows) {
    const t = parseTimestamp(cell(row, cols.timestamp), naive);
    const power = parsePower(cell(row, cols.power));
    const gpu = cell(row, cols.gpu);
    if (t === undefined || power === undefined || !gpu) continue;
    if (!Number.isFinite(t) || !Number.isFinite(power)) continue;
    let list = samples.get(gpu);
    if (!list) samples.set(gpu, (list = []));
    list.push([t, power]);
  }
  for (const list of samples.values()) list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return samples;
}

/** `_trapezoid`: consecutive samples integrated, no clipping. */
function trapezoid(samples: readonly PowerSample[]): number {
  let sum = 0;
  for (let i = 1; i < samples.length; i++) {
    const [t0, p0] = samples[i - 1]!;
    const [t1, p1] = samples[i]!;
    sum += ((t1 - t0) * (p0 + p1)) / 2;
  }
  return sum;
}

/**
 * `cross_check_accumulator`: the hardware energy-accumulator delta (`<stem>_energy_start.csv`,
 * `<stem>_energy_end.csv`) against the whole stream's integral. Advisory: it never changes
 * validity. Null when neither snapshot exists. Throws (`CsvError`, read errors) as the reference.
 */
export function crossCheckAccumulator(files: TelemetryFiles, csvPath: string, naive?: NaiveOffset): Map<string, PyJson> | null {
  const startPath = stemSibling(csvPath, '_energy_start.csv');
  const endPath = stemSibling(csvPath, '_energy_end.csv');
  const hasStart = isFile(files, startPath);
  const hasEnd = isFile(files, endPath);
  const unavailable = (reason: string): Map<string, PyJson> =>
    new Map<string, PyJson>([
      ['available', false],
      ['reason', reason],
    ]);
  if (!hasStart && !hasEnd) return null;
  if (!hasStart) return unavailable('missing_start_snapshot');
  if (!hasEnd) return unavailable('missing_end_snapshot');
  const startEnergy = readEnergySnapshot(files, startPath);
  if (!startEnergy) return unavailable('unparseable_start_snapshot');
  const endEnergy = readEnergySnapshot(files, endPath);
  if (!endEnergy) return unavailable('unparseable_end_snapshot');

  const matched = sortGpuIds([...startEnergy.keys()].filter((g) => endEnergy.has(g)));
  const deltas = new Map<string, number>(matched.map((g) => [g, endEnergy.get(g)! - startEnergy.get(g)!]));
  const unmatched = sortGpuIds([
    ...[...startEnergy.keys()].filter((g) => !endEnergy.has(g)),
    ...[...endEnergy.keys()].filter((g) => !startEnergy.has(g)),
  ]);
  const negative = [...deltas].filter(([, d]) => d < 0).map(([g]) => g);

  const stream = streamSamplesByGpu(files, csvPath, naive);
  const integrated = sortGpuIds([...stream.keys()].filter((g) => deltas.has(g)));
  let integratedJ = 0;
  for (const g of integrated) integratedJ += trapezoid(stream.get(g)!);
  const boundaries = integrated.flatMap((g) => {
    const s = stream.get(g)!;
    return [s[0]![0], s[s.length - 1]![0]];
  });
  let span = 0;
  if (boundaries.length) {
    let lo = boundaries[0]!;
    let hi = boundaries[0]!;
    for (const b of boundaries) {
      if (b < lo) lo = b;
      if (b > hi) hi = b;
    }
    span = hi - lo;
  }
  let delta = 0;
  for (const d of deltas.values()) delta += d;
  let relativeError: number | null = null;
  let within = false;
  if (delta > 0) {
    relativeError = Math.abs(delta - integratedJ) / delta;
    within = negative.length === 0 && relativeError <= ACCUMULATOR_TOLERANCE;
  }
  const floats = (m: Map<string, number>): Map<string, PyJson> => new Map([...m].map(([k, v]) => [k, new PyFloat(v)]));
  return new Map<string, PyJson>([
    ['available', true],
    ['accumulator_delta_j', new PyFloat(delta)],
    ['integrated_stream_j', new PyFloat(integratedJ)],
    ['relative_error', relativeError === null ? null : new PyFloat(relativeError)],
    ['within_tolerance', within],
    ['tolerance', new PyFloat(ACCUMULATOR_TOLERANCE)],
    ['per_gpu_delta_j', floats(deltas)],
    ['integrated_gpu_ids', integrated],
    ['unmatched_gpus', unmatched],
    ['negative_delta_gpus', negative],
    ['stream_span_s', new PyFloat(span)],
  ]);
}

/**
 * `aggregate_power`: the legacy arithmetic mean of per-sample per-GPU power inside the window and
 * the GPU count, kept for the reference's compatibility API; never used for energy.
 */
export function aggregatePowerLegacy(
  files: TelemetryFiles,
  csvPath: string,
  start: number,
  end: number,
  naive: NaiveOffset = undefined,
): [avgPowerW: number, numGpus: number] | undefined {
  if (files.kind(csvPath) !== 'file') return undefined;
  if (end <= start) return undefined;
  const total = new Map<number, number>();
  const rowCount = new Map<number, number>();
  const gpusAt = new Map<number, Set<string>>();
  const gpuKeys = new Set<string>();
  let cols: ReturnType<typeof detectColumns>;
  try {
    const { header, rows } = dictReader(files.read(csvPath));
    cols = detectColumns(header);
    if (!cols.timestamp || !cols.power) return undefined;
    for (const row of rows) {
      const t = parseTimestamp(cell(row, cols.timestamp), naive);
      const power = parsePower(cell(row, cols.power));
      if (t === undefined || power === undefined) continue;
      if (t < start || t > end) continue;
      const bucket = Math.round(t * 1000) / 1000; // round(ts, 3): ties are immaterial at ms resolution
      total.set(bucket, (total.get(bucket) ?? 0) + power);
      rowCount.set(bucket, (rowCount.get(bucket) ?? 0) + 1);
      if (cols.gpu) {
        const gpu = cell(row, cols.gpu);
        if (gpu) {
          let set = gpusAt.get(bucket);
          if (!set) gpusAt.set(bucket, (set = new Set()));
          set.add(gpu);
          gpuKeys.add(gpu);
        }
      }
    }
  } catch (e) {
    if (isReadError(e)) return undefined;
    throw e;
  }
  if (total.size === 0) return undefined;
  if (cols.gpu && gpuKeys.size) {
    const perGpu = [...total].map(([t, sum]) => sum / Math.max(gpusAt.get(t)?.size ?? 0, 1));
    return [pyMean(perGpu).value, gpuKeys.size];
  }
  const perGpu = [...total].map(([t, sum]) => sum / rowCount.get(t)!);
  return [pyMean(perGpu).value, Math.max(...rowCount.values())];
}

/** `patch_agg_result` (legacy): the three pre-integration power keys, rounded, added to an aggregate. */
export function patchAggResultLegacy(agg: Map<string, PyJson>, avgPowerW: number, jPerOutput: number, jPerTotal: number): void {
  agg.set('avg_power_w', new PyFloat(pyRound(avgPowerW, 3)));
  agg.set('joules_per_output_token', new PyFloat(pyRound(jPerOutput, 6)));
  agg.set('joules_per_total_token', new PyFloat(pyRound(jPerTotal, 6)));
}

/** `_derived_metrics`: whole-deployment metrics of a valid measurement, in the reference's order. */
export function derivedMetrics(integration: PowerIntegration, b: BenchmarkData): Map<string, number> {
  const energy = integration.totalGpuEnergyJ;
  if (integration.avgPowerW === undefined || integration.avgTotalGpuPowerW === undefined || energy === undefined) {
    throw new PowerInternalError('valid power integration has incomplete power metrics', 'ValueError');
  }
  return new Map([
    ['avg_power_w', integration.avgPowerW],
    ['avg_total_gpu_power_w', integration.avgTotalGpuPowerW],
    ['total_gpu_energy_j', energy],
    ['joules_per_successful_query', energy / b.completed],
    ['joules_per_input_token', energy / b.totalInputTokens],
    ['joules_per_output_token', energy / b.totalOutputTokens],
    ['joules_per_total_token', energy / (b.totalInputTokens + b.totalOutputTokens)],
  ]);
}

/** `_validation_payload`: the sidecar, in the reference's key order and number types. */
export function validationPayload(p: {
  csvPath: string;
  benchResultPath: string;
  benchmark: BenchmarkData | undefined;
  integration: PowerIntegration;
  valid: boolean;
  reasons: string[];
  metrics: ReadonlyMap<string, number>;
  accumulatorCheck: Map<string, PyJson> | null;
}): Map<string, PyJson> {
  const i = p.integration;
  const floats = (m: Map<string, number>): Map<string, PyJson> => new Map([...m].map(([k, v]) => [k, new PyFloat(v)]));
  return new Map<string, PyJson>([
    ['schema_version', 1],
    ['power_valid', p.valid],
    ['reasons', [...p.reasons]],
    ['telemetry_source', pyPath(p.csvPath)],
    ['benchmark_result', pyPath(p.benchResultPath)],
    ['benchmark_window', benchmarkWindowJson(p.benchmark)],
    ['integration_method', INTEGRATION_METHOD],
    ['expected_gpu_count', i.expectedGpus],
    ['observed_gpu_count', i.observedGpuIds.length],
    ['observed_gpu_ids', [...i.observedGpuIds]],
    ['per_gpu_sample_counts', new Map<string, PyJson>(i.sampleCounts)],
    ['per_gpu_max_sample_gap_s', floats(i.maxGaps)],
    ['per_gpu_energy_j', floats(i.energies)],
    ['device_issues', new Map<string, PyJson>([...i.deviceIssues].map(([k, v]) => [k, [...v]]))],
    ['accumulator_check', p.accumulatorCheck],
    ['metrics', sidecarMetrics(p.metrics)],
    ...(i.plausibility
      ? [['plausibility', plausibilityJson(i.plausibility.node, i.plausibility.rejected)] as [string, PyJson]]
      : []),
  ]);
}

/** The aggregate as the step finds it: parsed, missing, or unreadable (with the error text). */
export type AggInput = { kind: 'parsed'; agg: Map<string, PyJson> } | { kind: 'missing' } | { kind: 'unreadable'; error: string };

/** The raw benchmark result as the step finds it: parsed JSON, or unreadable / not JSON. */
export type BenchInput = { kind: 'parsed'; raw: unknown } | { kind: 'unreadable' };

export interface SingleNodeInput {
  /** The telemetry CSV (`--csv`), as given: the sidecar names it with `str(Path)`. */
  csvPath: string;
  /** The raw result's path (`--bench-result`), as given. */
  benchResultPath: string;
  bench: BenchInput;
  /** The aggregate path (for messages) and content. */
  aggPath: string;
  agg: AggInput;
  /** `--expected-num-gpus`; null when not given (the library's default). */
  expectedGpus: number | null;
  /** The node sampled (Frontier only; absent: the reference's checks alone). */
  node?: NodeBounds;
  /** Where the sidecar goes (for messages). */
  validationPath: string;
  requirePower: boolean;
}

export interface SingleNodeResult {
  /** The patched aggregate to write back; undefined when it is not to be written (missing or unwritable). */
  agg?: Map<string, PyJson>;
  validation: Map<string, PyJson>;
  valid: boolean;
  reasons: string[];
  stdout: string[];
  stderr: string[];
  exitCode: 0 | 1;
  /**
   * The result had writing the aggregate back failed (`aggregate_result_unwritable`), for a
   * caller that writes files and meets an error there: `error` is the message the reference prints.
   */
  onAggWriteError(error: string): SingleNodeResult;
  /** The result had writing the sidecar failed: its message and exit status. */
  onValidationWriteError(error: string): { stderr: string[]; exitCode: 0 | 1 };
}

/**
 * `run`: the whole single-node step on what it reads. Pure: the caller writes `agg` then
 * `validation` (`fsRunSingleNode` does, atomically, as the reference).
 */
export function runSingleNode(input: SingleNodeInput, files: TelemetryFiles): SingleNodeResult {
  const failCode: 0 | 1 = input.requirePower ? 1 : 0;
  const loaded =
    input.bench.kind === 'parsed'
      ? loadBenchmarkData(input.bench.raw)
      : { benchmark: undefined, reasons: ['invalid_benchmark_result'] };
  const { benchmark } = loaded;
  const integration = benchmark
    ? integratePower(files, input.csvPath, {
        start: benchmark.start,
        end: benchmark.end,
        expectedGpus: input.expectedGpus,
        ...(input.node ? { node: input.node } : {}),
      })
    : emptyIntegration(input.expectedGpus, loaded.reasons);
  const baseReasons = [...loaded.reasons];
  for (const r of integration.reasons) appendReason(baseReasons, r);
  const baseValid = baseReasons.length === 0;
  const baseMetrics = baseValid && benchmark ? derivedMetrics(integration, benchmark) : new Map<string, number>();

  // The accumulator cross-check runs after the aggregate patch; its read errors are advisory.
  const naive = naiveOffsetFor(files, input.csvPath).offset;
  let accumulatorCheck: Map<string, PyJson> | null;
  try {
    accumulatorCheck = crossCheckAccumulator(files, input.csvPath, naive);
  } catch (e) {
    if (!isReadError(e)) throw e;
    accumulatorCheck = new Map<string, PyJson>([
      ['available', false],
      ['reason', 'cross_check_error'],
    ]);
  }

  const finish = (
    reasons: string[],
    valid: boolean,
    metrics: Map<string, number>,
    agg: Map<string, PyJson> | undefined,
    stderr: string[],
  ): SingleNodeResult => {
    const validation = validationPayload({
      csvPath: input.csvPath,
      benchResultPath: input.benchResultPath,
      benchmark,
      integration,
      valid,
      reasons,
      metrics,
      accumulatorCheck,
    });
    const out: string[] = [];
    const err = [...stderr];
    let exitCode: 0 | 1 = 0;
    if (!valid) {
      err.push(`[aggregate_power] Power validation failed: ${reasons.join(', ')} (details: ${pyPath(input.validationPath)})`);
      exitCode = failCode;
    } else {
      out.push(
        `[aggregate_power] avg_power_w=${pyFixed(metrics.get('avg_power_w')!, 2)} ` +
          `avg_total_gpu_power_w=${pyFixed(metrics.get('avg_total_gpu_power_w')!, 2)} ` +
          `total_gpu_energy_j=${pyFixed(metrics.get('total_gpu_energy_j')!, 2)} ` +
          `(n=${integration.observedGpuIds.length}) -> ${pyPath(input.aggPath)}`,
      );
    }
    const unwritable = (error: string): SingleNodeResult => {
      const r = [...reasons];
      appendReason(r, 'aggregate_result_unwritable');
      return finish(r, false, new Map(), undefined, [
        ...stderr,
        `[aggregate_power] Failed to patch ${pyPath(input.aggPath)}: ${error}`,
      ]);
    };
    return {
      agg,
      validation,
      valid,
      reasons,
      stdout: out,
      stderr: err,
      exitCode,
      onAggWriteError: unwritable,
      onValidationWriteError: (error) => ({
        stderr: [...stderr, `[aggregate_power] Failed to write validation artifact ${pyPath(input.validationPath)}: ${error}`],
        exitCode: failCode,
      }),
    };
  };

  if (input.agg.kind === 'missing') {
    const reasons = [...baseReasons];
    appendReason(reasons, 'aggregate_result_missing');
    return finish(reasons, false, new Map(), undefined, []);
  }
  const failPatch = (error: string): SingleNodeResult => {
    const reasons = [...baseReasons];
    appendReason(reasons, 'aggregate_result_unwritable');
    return finish(reasons, false, new Map(), undefined, [`[aggregate_power] Failed to patch ${pyPath(input.aggPath)}: ${error}`]);
  };
  if (input.agg.kind === 'unreadable') return failPatch(input.agg.error);
  const agg = input.agg.agg;
  const before = new Map(agg);
  try {
    patchAggregate(agg, WHOLE_POWER_KEYS, baseValid, baseMetrics);
  } catch (e) {
    // A non-finite metric: the reference writes nothing and marks the aggregate unwritable.
    agg.clear();
    for (const [k, v] of before) agg.set(k, v);
    return failPatch((e as Error).message);
  }
  return finish(baseReasons, baseValid, baseMetrics, agg, []);
}

/**
 * Parse an aggregate file's text as the reference does (`json.loads`), or say why it cannot be
 * patched. JSON that is not an object is refused (a `UserError`): the reference crashes on it
 * (`TypeError` in `data.pop`) before writing anything.
 */
export function aggInputFromText(text: string | undefined, readError?: string, shown = 'the aggregate'): AggInput {
  if (text === undefined) return readError === undefined ? { kind: 'missing' } : { kind: 'unreadable', error: readError };
  let value: unknown;
  try {
    value = loads(text);
  } catch (e) {
    return { kind: 'unreadable', error: e instanceof PyJsonSyntaxError ? e.describe(text) : (e as Error).message };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof PyFloat) {
    throw new UserError(`${shown}: the aggregate is not a JSON object, so its power keys cannot be patched (nothing written)`);
  }
  return { kind: 'parsed', agg: new Map(Object.entries(value as Record<string, PyJson>)) };
}

/** The sidecar's and aggregate's bytes as the reference writes them. */
export const jsonText = (value: PyJson): string => dumps(value, { indent: 2 });

export { CsvError };
