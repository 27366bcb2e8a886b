/**
 * The power step `process_result.py` runs after writing the aggregate (the reference's
 * `utils/aggregate_power.py` for single-node points, `utils/aggregate_power_multinode.py` for
 * multinode ones), for the case without usable telemetry: it marks the aggregate `power_valid: 0`
 * and explains why in the `power_validation_<RESULT_FILENAME>.json` sidecar. Integrating real
 * telemetry is not implemented: a point that has it is refused rather than misreported.
 */
import { PyFloat, pyIsIntNotBool, pyPath } from '../pycompat/index.js';
import type { PyJson } from '../pycompat/index.js';
import { ResultsError } from './errors.js';
import type { Env, PointIdentity } from './identity.js';

export const POWER_METRIC_SCHEMA_VERSION = 2;
const INTEGRATION_METHOD = 'per_device_trapezoidal_with_linear_boundary_interpolation';
const WHOLE_METRIC_KEYS = [
  'avg_power_w',
  'avg_total_gpu_power_w',
  'total_gpu_energy_j',
  'joules_per_successful_query',
  'joules_per_input_token',
  'joules_per_output_token',
  'joules_per_total_token',
];
const ROLE_METRIC_KEYS = [
  'prefill_gpu_energy_j',
  'decode_gpu_energy_j',
  'prefill_avg_power_w',
  'decode_avg_power_w',
  'prefill_joules_per_input_token',
  'decode_joules_per_output_token',
];

/** The environment of the power step. */
export interface PowerSettings {
  /** `GPU_METRICS_CSV`: single-node telemetry, tried before `gpu_metrics.csv` and `/workspace/gpu_metrics.csv`. */
  gpuMetricsCsv?: string;
  /** `POWER_ARTIFACT_DIR`: multinode telemetry (default `LOGS/power`). */
  powerArtifactDir?: string;
  /** `POWER_PRODUCER_SHA`: the srt-slurm commit multinode telemetry must come from. */
  powerProducerSha?: string;
  /** `POWER_RESULT_ROOT`: where the power package's window `result_path`s resolve (default `LOGS`). */
  powerResultRoot?: string;
  /** `REQUIRE_POWER` is 1, true or yes: invalid power fails the point (exit 1) after both files are written. */
  requirePower: boolean;
}

export function powerSettingsFromEnv(env: Env): PowerSettings {
  return {
    gpuMetricsCsv: env.GPU_METRICS_CSV,
    powerArtifactDir: env.POWER_ARTIFACT_DIR,
    powerProducerSha: env.POWER_PRODUCER_SHA,
    powerResultRoot: env.POWER_RESULT_ROOT,
    requirePower: ['1', 'true', 'yes'].includes((env.REQUIRE_POWER ?? '').toLowerCase()),
  };
}

export type PathKind = 'file' | 'empty-file' | 'dir' | 'missing';
/** What is at a path the reference would look at (relative paths: from where it runs). */
export type TelemetryProbe = (path: string) => PathKind;
/** No telemetry anywhere, as on a machine that ran no GPU monitor. */
export const NO_TELEMETRY: TelemetryProbe = (path) => (path === '.' || path === '/' ? 'dir' : 'missing');

export interface PowerOutcome {
  validation: Map<string, PyJson>;
  /** The line the reference prints on stderr. */
  notice: string;
  /** 1 when REQUIRE_POWER asks for valid power, else 0. */
  exitCode: 0 | 1;
}

interface BenchmarkData {
  start: number;
  end: number;
  duration: number;
  completed: number;
  totalInputTokens: number;
  totalOutputTokens: number;
}

const append = (reasons: string[], reason: string): void => {
  if (!reasons.includes(reason)) reasons.push(reason);
};
const isNumber = (v: unknown): boolean => typeof v === 'number' || v instanceof PyFloat;
const numberOf = (v: unknown): number => (v instanceof PyFloat ? v.value : (v as number));

/** The benchmark window and counts, with the reasons they cannot normalise energy (`_load_benchmark_data`). */
function loadBenchmarkData(raw: Record<string, unknown>): { benchmark?: BenchmarkData; reasons: string[] } {
  const window = [raw.benchmark_start_time_unix, raw.benchmark_end_time_unix, raw.duration];
  if (!window.every(isNumber)) return { reasons: ['invalid_benchmark_window'] };
  const [start, end, duration] = window.map(numberOf) as [number, number, number];
  if (![start, end, duration].every(Number.isFinite) || end <= start || duration <= 0) {
    return { reasons: ['invalid_benchmark_window'] };
  }
  const reasons: string[] = [];
  const integration = end - start;
  if (Math.abs(duration - integration) > Math.max(0.5, integration * 0.01)) append(reasons, 'benchmark_duration_mismatch');
  const count = (key: string, reason: string): number => {
    const v = raw[key];
    if (pyIsIntNotBool(v) && v > 0) return v;
    append(reasons, reason);
    return 0;
  };
  const completed = count('completed', 'invalid_successful_query_count');
  const totalInputTokens = count('total_input_tokens', 'invalid_input_token_count');
  const totalOutputTokens = count('total_output_tokens', 'invalid_output_token_count');
  return { benchmark: { start, end, duration, completed, totalInputTokens, totalOutputTokens }, reasons };
}

function windowJson(b: BenchmarkData | undefined): PyJson {
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

function unsupported(path: string): never {
  throw new ResultsError(
    `${path}: power telemetry is present, but Frontier cannot integrate it yet (the reference's aggregate_power step)`,
    undefined,
    'process this point with the reference utils/process_result.py, or move the telemetry aside to record power_valid 0',
  );
}

/** Remove stale energy keys and append the power flags, as the reference patches the aggregate. */
function patchAggregate(agg: Map<string, PyJson>, metricKeys: string[]): void {
  for (const key of metricKeys) agg.delete(key);
  agg.set('power_metric_schema_version', POWER_METRIC_SCHEMA_VERSION);
  agg.set('power_valid', 0);
  agg.delete('power_invalid_reasons');
}

/**
 * Run the power step on a written aggregate: patches `agg` in place and returns the sidecar.
 * Throws a `ResultsError` when there is telemetry to integrate.
 */
export function powerStep(
  raw: Record<string, unknown>,
  identity: PointIdentity,
  agg: Map<string, PyJson>,
  settings: PowerSettings,
  probe: TelemetryProbe = NO_TELEMETRY,
): PowerOutcome {
  const rf = identity.resultFilename;
  const benchmarkResult = pyPath(`${rf}.json`);
  const validationFile = pyPath(`power_validation_${rf}.json`);
  const { benchmark, reasons: benchmarkReasons } = loadBenchmarkData(raw);
  const reasons = [...benchmarkReasons];
  const exitCode = settings.requirePower ? 1 : 0;
  const t = identity.topology;

  if (t.kind === 'single-node') {
    const candidates = [settings.gpuMetricsCsv, 'gpu_metrics.csv', '/workspace/gpu_metrics.csv'].filter((p): p is string => !!p);
    const csv = candidates.find((p) => ['file', 'empty-file'].includes(probe(p))) ?? candidates[0]!;
    const expectedGpus = t.tp * t.pp * t.pcpSize;
    if (benchmark) {
      // Telemetry is only consulted for a usable benchmark window.
      if (expectedGpus <= 0) append(reasons, 'invalid_expected_gpu_count');
      const kind = probe(csv);
      if (kind === 'empty-file') append(reasons, 'telemetry_file_empty');
      else if (kind === 'file') unsupported(csv);
      else append(reasons, 'telemetry_file_missing');
    }
    patchAggregate(agg, WHOLE_METRIC_KEYS);
    const validation = new Map<string, PyJson>([
      ['schema_version', 1],
      ['power_valid', false],
      ['reasons', reasons],
      ['telemetry_source', pyPath(csv)],
      ['benchmark_result', benchmarkResult],
      ['benchmark_window', windowJson(benchmark)],
      ['integration_method', INTEGRATION_METHOD],
      ['expected_gpu_count', expectedGpus],
      ['observed_gpu_count', 0],
      ['observed_gpu_ids', []],
      ['per_gpu_sample_counts', new Map()],
      ['per_gpu_max_sample_gap_s', new Map()],
      ['per_gpu_energy_j', new Map()],
      ['device_issues', new Map()],
      ['accumulator_check', null],
      ['metrics', new Map()],
    ]);
    const notice = `[aggregate_power] Power validation failed: ${reasons.join(', ')} (details: ${validationFile})`;
    return { validation, notice, exitCode };
  }

  // Multinode: the srt-slurm power package (manifest.json, samples.csv, windows/) is checked
  // before the benchmark; its own reasons come first.
  const dir = pyPath(settings.powerArtifactDir ?? 'LOGS/power');
  const auditReasons: string[] = [];
  const failures: string[] = [];
  if (probe(dir) !== 'dir') {
    auditReasons.push('power_artifacts_missing');
    failures.push(`power dir missing: ${dir}`);
  } else {
    const manifest = pyPath(`${dir}/manifest.json`);
    if (['file', 'empty-file'].includes(probe(manifest))) unsupported(manifest);
    auditReasons.push('manifest_missing');
    failures.push(`manifest missing: ${manifest}`);
  }
  for (const reason of benchmarkReasons) append(auditReasons, reason);
  patchAggregate(agg, [...WHOLE_METRIC_KEYS, ...ROLE_METRIC_KEYS]);
  const validation = new Map<string, PyJson>([
    ['schema_version', 1],
    ['power_valid', false],
    ['reasons', auditReasons],
    ['failures', failures],
    ['telemetry_source', dir],
    ['benchmark_result', benchmarkResult],
    ['benchmark_window', windowJson(benchmark)],
    ['selected_window', null],
    ['integration_method', INTEGRATION_METHOD],
    [
      'producer',
      new Map<string, PyJson>([
        ['producer_git_commit', null],
        ['expected_producer_git_commit', settings.powerProducerSha || null],
        ['exporter_image_sha256', null],
        ['stored_publication_valid', null],
        ['recomputed_publication_valid', null],
      ]),
    ],
    ['expected_gpu_count', 0],
    ['observed_gpu_count', 0],
    ['per_gpu_role', new Map()],
    ['per_gpu_max_sample_gap_s', new Map()],
    ['per_gpu_energy_j', new Map()],
    ['metrics', new Map()],
  ]);
  const notice = `[aggregate_power_multinode] Power validation failed: ${auditReasons.join(', ')} (details: ${validationFile})`;
  return { validation, notice, exitCode };
}
