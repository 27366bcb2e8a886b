/**
 * The AgentX power adapter: a port of the reference's
 * `utils/agentic/aggregation/power_adapter.py`. An agentic replay has no `benchmark_serving.py`
 * result, so the benchmark window comes from AIPerf's artifacts (the profile's `start_time` /
 * `end_time`, the successful records' token counts), is written as `agentic_power_window.json`,
 * and the single-node power step runs on it with the sidecar `power_validation.json`.
 */
import { PyFloat, dumps, isDict, loads, pyPath, pyRepr } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import { recordsFromText } from '../agentic/records.js';
import type { RecordDict } from '../agentic/records.js';
import { recordInts } from '../agentic/request-metrics.js';
import { WHOLE_POWER_KEYS, patchAggregate } from './common.js';
import type { TelemetryFiles } from './common.js';
import { pyStrip } from './csv.js';
import type { NodeBounds } from './plausibility.js';
import { emptyIntegration, runSingleNode, validationPayload } from './single-node.js';
import type { AggInput, SingleNodeResult } from './single-node.js';
import { fromIsoFormat, isoTimestampAt, parseUtcOffset } from './timestamps.js';
import type { IsoDateTime } from './timestamps.js';

export const WINDOW_SOURCE = 'aiperf_profile_lifecycle';

const join = (dir: string, name: string): string => pyPath(`${dir}/${name}`);
const isFile = (files: TelemetryFiles, path: string): boolean => ['file', 'empty-file'].includes(files.kind(path));

/** `_resolve_artifact_dir`: `RESULT_DIR/aiperf_artifacts`, or its first child (by name) holding profile_export.jsonl. */
export function resolveArtifactDirIn(files: TelemetryFiles, resultDir: string): string {
  const base = join(resultDir, 'aiperf_artifacts');
  if (isFile(files, join(base, 'profile_export.jsonl'))) return base;
  if (files.kind(base) === 'dir') {
    for (const child of files.list(base)) {
      const dir = join(base, child.name);
      if (files.kind(dir) === 'dir' && isFile(files, join(dir, 'profile_export.jsonl'))) return dir;
    }
  }
  return base;
}

/** `_captured_timezone`: the launch-time UTC offset beside the telemetry, in microseconds, or the reason it is unusable. */
function capturedOffset(files: TelemetryFiles, resultDir: string): { micros?: number; reason?: string } {
  const path = join(resultDir, 'agentic_power_timezone_offset.txt');
  if (!isFile(files, path)) return { reason: 'profile_timezone_offset_missing' };
  let text: string;
  try {
    text = files.read(path);
  } catch {
    return { reason: 'profile_timezone_offset_invalid' };
  }
  const seconds = parseUtcOffset(pyStrip(text));
  return seconds === undefined ? { reason: 'profile_timezone_offset_invalid' } : { micros: seconds * 1e6 };
}

const isoOf = (value: string): IsoDateTime | undefined => fromIsoFormat(pyStrip(value).replaceAll('Z', '+00:00'));

/** `_parse_profile_timestamp`: epoch seconds, or an ISO time (naive ones at the captured offset). */
function profileTimestamp(value: unknown, fallbackMicros: number | undefined): number | undefined {
  if (typeof value === 'boolean') return undefined;
  if (typeof value === 'number' || value instanceof PyFloat) {
    const t = value instanceof PyFloat ? value.value : value;
    return Number.isFinite(t) ? t : undefined;
  }
  if (typeof value !== 'string' || pyStrip(value) === '') return undefined;
  const dt = isoOf(value);
  if (!dt) return undefined;
  if (dt.offsetMicros === undefined && fallbackMicros === undefined) return undefined;
  return isoTimestampAt(dt, fallbackMicros ?? 0);
}

/**
 * `build_power_window`: the strict benchmark window of an agentic replay (the raw-result fields
 * the power step reads), or the reasons there is none.
 */
export function buildPowerWindow(files: TelemetryFiles, resultDir: string): { window?: Map<string, PyJson>; reasons: string[] } {
  const artifactDir = resolveArtifactDirIn(files, resultDir);
  const aggregatePath = join(artifactDir, 'profile_export_aiperf.json');
  const recordsPath = join(artifactDir, 'profile_export.jsonl');
  if (!isFile(files, aggregatePath) || !isFile(files, recordsPath)) return { reasons: ['profile_artifacts_missing'] };
  let aggregate: Record<string, unknown>;
  let records: RecordDict[];
  try {
    const value = loads(files.read(aggregatePath));
    // Python would crash on `.get` of a non-object: Frontier calls that invalid too.
    if (!isDict(value)) return { reasons: ['profile_artifacts_invalid'] };
    aggregate = value;
    records = recordsFromText(files.read(recordsPath), recordsPath).records;
  } catch {
    return { reasons: ['profile_artifacts_invalid'] };
  }

  const rawStart = aggregate.start_time ?? null;
  const rawEnd = aggregate.end_time ?? null;
  if (rawStart === null || rawEnd === null) return { reasons: ['profile_window_missing'] };
  // Only strings that parse as ISO times count: a naive one needs the captured offset.
  const parsed = [rawStart, rawEnd].flatMap((v) => (typeof v === 'string' ? [isoOf(v)] : [])).filter((d) => d !== undefined);
  const needsOffset = parsed.some((d) => d.offsetMicros === undefined);
  let fallback: number | undefined;
  if (needsOffset) {
    const captured = capturedOffset(files, resultDir);
    if (captured.reason) return { reasons: [captured.reason] };
    fallback = captured.micros;
  }
  const start = profileTimestamp(rawStart, fallback);
  const end = profileTimestamp(rawEnd, fallback);
  if (start === undefined || end === undefined || end <= start) return { reasons: ['profile_window_invalid'] };

  const completed = records.length;
  if (completed <= 0) return { reasons: ['successful_request_count_invalid'] };
  const input = recordInts(records, 'input_sequence_length');
  const output = recordInts(records, 'output_sequence_length');
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  if (
    input.length !== completed ||
    output.length !== completed ||
    [...input, ...output].some((v) => v < 0) ||
    sum(input) <= 0 ||
    sum(output) <= 0
  ) {
    return { reasons: ['incomplete_token_accounting'] };
  }
  return {
    window: new Map<string, PyJson>([
      ['benchmark_start_time_unix', new PyFloat(start)],
      ['benchmark_end_time_unix', new PyFloat(end)],
      ['duration', new PyFloat(end - start)],
      ['completed', completed],
      ['total_input_tokens', sum(input)],
      ['total_output_tokens', sum(output)],
    ]),
    reasons: [],
  };
}

export interface AgenticPowerOptions {
  resultDir: string;
  aggPath: string;
  /** `--expected-num-gpus`; null when not given. */
  expectedGpus: number | null;
  /** The node sampled (Frontier only; see `SingleNodeInput.node`). */
  node?: NodeBounds;
  requirePower: boolean;
}

/** What `_record_adapter_failure` writes (nothing when the aggregate cannot be patched), and the lines printed. */
export interface AdapterFailure {
  agg?: Map<string, PyJson>;
  aggPath: string;
  validation?: Map<string, PyJson>;
  validationPath: string;
  stderr: string[];
  exitCode: 0 | 1;
  reasons: string[];
}

/** What the adapter does: write the window then run the power step on it, or record an adapter failure. */
export type AgenticPowerPlan =
  | { kind: 'failure'; failure: AdapterFailure }
  | {
      kind: 'window';
      windowPath: string;
      window: Map<string, PyJson>;
      /** The single-node step's result once the window is written. */
      run: SingleNodeResult;
      /** What to do instead when the window cannot be written (`power_window_unwritable`). */
      unwritable: AdapterFailure;
    };

/** Paths of the adapter's files under the result directory. */
export const agenticPaths = (resultDir: string): { csv: string; window: string; validation: string } => ({
  csv: join(resultDir, 'gpu_metrics.csv'),
  window: join(resultDir, 'agentic_power_window.json'),
  validation: join(resultDir, 'power_validation.json'),
});

/** `_record_adapter_failure` (and the message `run_agentic_power` prints after it). */
export function adapterFailure(options: AgenticPowerOptions, agg: AggInput, reasons: string[]): AdapterFailure {
  const paths = agenticPaths(options.resultDir);
  const failure: AdapterFailure = {
    aggPath: options.aggPath,
    validationPath: paths.validation,
    stderr: [],
    exitCode: options.requirePower ? 1 : 0,
    reasons,
  };
  if (agg.kind !== 'parsed') {
    const error = agg.kind === 'missing' ? `[Errno 2] No such file or directory: ${pyRepr(pyPath(options.aggPath))}` : agg.error;
    failure.stderr.push(`[agentx_power] Failed to record adapter failure: ${error}`);
  } else {
    const patched = new Map(agg.agg);
    patchAggregate(patched, WHOLE_POWER_KEYS, false, new Map());
    failure.agg = patched;
    const payload = validationPayload({
      csvPath: paths.csv,
      benchResultPath: paths.window,
      benchmark: undefined,
      integration: emptyIntegration(options.expectedGpus, reasons),
      valid: false,
      reasons,
      metrics: new Map(),
      accumulatorCheck: null,
    });
    payload.set('window_source', WINDOW_SOURCE);
    failure.validation = payload;
  }
  failure.stderr.push(`[agentx_power] Power-window adaptation failed: ${reasons.join(', ')}`);
  return failure;
}

/**
 * `run_agentic_power` without the writing: what the adapter would write and print. `agg` is the
 * aggregate as found (`aggInputFromText`).
 */
export function agenticPowerStep(options: AgenticPowerOptions, agg: AggInput, files: TelemetryFiles): AgenticPowerPlan {
  const { window, reasons } = buildPowerWindow(files, options.resultDir);
  if (!window) return { kind: 'failure', failure: adapterFailure(options, agg, reasons) };
  const paths = agenticPaths(options.resultDir);
  const windowText = dumps(window, { indent: 2 });
  const run = runSingleNode(
    {
      csvPath: paths.csv,
      benchResultPath: paths.window,
      // The reference reads the window back from the file it wrote.
      bench: { kind: 'parsed', raw: loads(windowText) },
      aggPath: options.aggPath,
      agg: agg.kind === 'parsed' ? { kind: 'parsed', agg: new Map(agg.agg) } : agg,
      expectedGpus: options.expectedGpus,
      ...(options.node ? { node: options.node } : {}),
      validationPath: paths.validation,
      requirePower: options.requirePower,
    },
    files,
  );
  return {
    kind: 'window',
    windowPath: paths.window,
    window,
    run,
    unwritable: adapterFailure(options, agg, ['power_window_unwritable']),
  };
}
