/**
 * The srt-slurm `dcgm-power` package (v1 wire contract: `power/{manifest.json, samples.csv,
 * windows/*.json}`) as InferenceX's `utils/aggregate_power_multinode.py` re-validates it, shared
 * by the multinode power step (which reads a package) and the producer (which writes one, see
 * `package-write.ts`): the contract constants, strict `samples.csv` reading, the devices observed
 * in it, device identity and role/het-group resolution, the window scan and per-window audit, the
 * manifest's wire/lifecycle checks and the cross-check of its stored evidence. Paths are read
 * through `TelemetryFiles`, relative to where the step runs.
 */
import {
  PyFloat,
  byCodePoint,
  isDict,
  loads,
  pyEquals,
  pyFloat,
  pyIntFromString,
  pyIsInt,
  pyIsIntNotBool,
  pyPath,
  pyRepr,
  pyTypeName,
} from '../../pycompat/index.js';
import { POWER_METRIC, SAMPLES_FILENAME, SAMPLES_HEADER, SAMPLES_SCHEMA_VERSION } from '../../telemetry/dcgm-file.js';
import type { SampleRow } from '../../telemetry/dcgm-file.js';
import type { TelemetryFiles } from './common.js';
import { csvReader } from './csv.js';

export const SCHEMA_VERSION = 1;
export const PRODUCER = 'srt-slurm.dcgm-power';
export const POWER_UNIT = 'W';
export const POWER_SCOPE = 'gpu_device_board_as_reported_by_dcgm';
export const CLOCK_SOURCE = 'head_node_unix_clock';
export const MANIFEST_FILENAME = 'manifest.json';
export const WINDOWS_DIRNAME = 'windows';
/** Fixed by the producer contract, not a multiple of the sample interval. */
export const MAX_SAMPLE_GAP_SECONDS = 3.0;
export const WORKER_ROLES = ['prefill', 'decode', 'agg'] as const;
export const STATUS_COMPLETE = 'complete';
export const WINDOW_STATUS_RUNNING = 'running';
export const WINDOW_STATUS_COMPLETED = 'completed';
export const WINDOW_STATUSES = ['running', 'completed', 'failed', 'interrupted'] as const;
const CLOCK_TOLERANCE_SECONDS = 0.5;
const CLOCK_TOLERANCE_FRACTION = 0.01;
/** Lifecycle reason codes that contradict a `complete` manifest. */
export const FATAL_LIFECYCLE_REASONS = [
  'exporter_exited',
  'collector_exception',
  'collector_interrupted',
  'collector_join_timeout',
  'benchmark_child_reap_timeout',
] as const;
/** Startup failures: they contradict `complete` only when power is required. */
export const STARTUP_FAILURE_REASONS = [
  'exporter_startup_timeout',
  'exporter_launch_failed',
  'endpoint_resolution_failed',
] as const;

/** First-seen-order deduplication. */
export const dedupe = (values: readonly string[]): string[] => [...new Set(values)];

/** `isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)` for a loaded JSON value. */
export function isFiniteNumber(value: unknown): boolean {
  const n = value instanceof PyFloat ? value.value : value;
  return typeof n === 'number' && Number.isFinite(n);
}
const numberOf = (value: unknown): number => (value instanceof PyFloat ? value.value : (value as number));

/** A relative POSIX path that stays below its root: not absolute, not `~`, no `..` part. */
export function isSafeRelativeSubpath(value: string): boolean {
  if (!value || value.startsWith('/') || value.startsWith('~')) return false;
  const normal = pyPath(value);
  if (normal === '.') return false;
  return !normal.split('/').some((part) => part === '..' || part === '');
}

/** `PurePosixPath(p).stem`: the last component without its last suffix. */
export function pathStem(p: string): string {
  const normal = pyPath(p);
  const name = normal === '.' ? '' : normal.slice(normal.lastIndexOf('/') + 1);
  const i = name.lastIndexOf('.');
  return i > 0 && i < name.length - 1 ? name.slice(0, i) : name;
}

/** `Path(a) / b` as text. */
export const joinPath = (a: string, b: string): string => pyPath(`${a}/${b}`);

/** `(root / relative).resolve()` stays below `root.resolve()`; lexical when the files cannot resolve links. */
export function staysBelow(files: TelemetryFiles, root: string, relative: string): boolean {
  const resolve = (p: string): string | undefined => {
    try {
      return files.resolve ? files.resolve(p) : pyPath(p);
    } catch {
      return undefined;
    }
  };
  const base = resolve(root);
  const target = resolve(joinPath(root, relative));
  if (base === undefined || target === undefined) return false;
  if (base === '.') return !target.startsWith('/') && !target.split('/').includes('..');
  return target === base || target.startsWith(base === '/' ? '/' : `${base}/`);
}

// --- the manifest's parts -----------------------------------------------------------------------

export interface DeviceAssignment {
  workerRole: string;
  workerIndex: number;
  workerProcess: number;
  hetGroup: number | null;
}
export interface ExpectedDevice {
  hostname: string;
  gpuIndex: number;
  assignments: DeviceAssignment[];
}
export interface ExpectedWindow {
  benchmarkType: string;
  concurrency: number;
}
/** `hostname\u0000gpu_index`: a device key that sorts as Python sorts `(hostname, gpu_index)` tuples. */
export type DeviceKey = string;
export const deviceKey = (hostname: string, gpuIndex: number): DeviceKey => `${hostname}\u0000${gpuIndex}`;
export function compareDeviceKeys(a: { hostname: string; gpuIndex: number }, b: { hostname: string; gpuIndex: number }): number {
  return byCodePoint(a.hostname, b.hostname) || a.gpuIndex - b.gpuIndex;
}

/** An exception as the reference raises it while parsing the manifest; `repr()` is what the sidecar shows. */
export class PyException extends Error {
  constructor(
    readonly pyType: 'ValueError' | 'TypeError' | 'KeyError' | 'AttributeError',
    readonly text: string,
  ) {
    super(text);
  }
  repr(): string {
    return `${this.pyType}(${pyRepr(this.text)})`;
  }
}

/** `obj[key]` on a loaded JSON value, raising what Python raises. */
function subscript(obj: unknown, key: string): unknown {
  if (isDict(obj)) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) throw new PyException('KeyError', key);
    return obj[key];
  }
  if (Array.isArray(obj)) throw new PyException('TypeError', 'list indices must be integers or slices, not str');
  if (typeof obj === 'string') throw new PyException('TypeError', "string indices must be integers, not 'str'");
  throw new PyException('TypeError', `'${pyTypeName(obj)}' object is not subscriptable`);
}
/** `obj.get(key)`. */
function get(obj: unknown, key: string): unknown {
  if (!isDict(obj)) throw new PyException('AttributeError', `'${pyTypeName(obj)}' object has no attribute 'get'`);
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : null;
}
function text(value: unknown, label: string): string {
  if (typeof value !== 'string' || !value)
    throw new PyException('ValueError', `${label} is not a non-empty string: ${pyRepr(value)}`);
  return value;
}
function whole(value: unknown, label: string, minimum: number): number {
  if (!pyIsIntNotBool(value) || value < minimum) {
    throw new PyException('ValueError', `${label} is not an integer >= ${minimum}: ${pyRepr(value)}`);
  }
  return value;
}
/** Python truthiness of a loaded JSON value. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

/** `manifest.get(key) or []`, which must then be a list (a TypeError otherwise). */
function entriesOf(manifest: Record<string, unknown>, key: string): unknown[] {
  const value = Object.prototype.hasOwnProperty.call(manifest, key) ? manifest[key] : null;
  if (!truthy(value)) return [];
  if (!Array.isArray(value)) throw new PyException('TypeError', `${key} is not a list: ${pyRepr(value)}`);
  return value;
}

/** `_parse_expected_devices`: throws a `PyException` as the reference raises. */
export function parseExpectedDevices(manifest: Record<string, unknown>): ExpectedDevice[] {
  return entriesOf(manifest, 'expected_devices').map((entry) => {
    const raw = get(entry, 'assignments');
    const rawAssignments = truthy(raw) ? raw : [];
    if (!Array.isArray(rawAssignments) || rawAssignments.length === 0) {
      throw new PyException('ValueError', `assignments is not a non-empty list: ${pyRepr(rawAssignments)}`);
    }
    const assignments = rawAssignments.map((a: unknown): DeviceAssignment => {
      const role = subscript(a, 'worker_role');
      if (typeof role !== 'string' || !(WORKER_ROLES as readonly string[]).includes(role)) {
        throw new PyException('ValueError', `worker_role is not one of ('prefill', 'decode', 'agg'): ${pyRepr(role)}`);
      }
      const workerIndex = whole(subscript(a, 'worker_index'), 'worker_index', 0);
      const workerProcess = whole(subscript(a, 'worker_process'), 'worker_process', 0);
      const het = get(a, 'het_group');
      return { workerRole: role, workerIndex, workerProcess, hetGroup: het === null ? null : whole(het, 'het_group', 0) };
    });
    return {
      hostname: text(subscript(entry, 'hostname'), 'hostname'),
      gpuIndex: whole(subscript(entry, 'gpu_index'), 'gpu_index', 0),
      assignments,
    };
  });
}

/** `_parse_expected_windows`. */
export function parseExpectedWindows(manifest: Record<string, unknown>): ExpectedWindow[] {
  return entriesOf(manifest, 'expected_windows').map((entry) => ({
    benchmarkType: text(subscript(entry, 'benchmark_type'), 'benchmark_type'),
    concurrency: whole(subscript(entry, 'concurrency'), 'concurrency', 1),
  }));
}

/** `_check_wire_contract`: the manifest's wire and lifecycle checks (its verdict excluded). */
export function checkWireContract(manifest: Record<string, unknown>): string[] {
  const failures: string[] = [];
  const m = (key: string): unknown => (Object.prototype.hasOwnProperty.call(manifest, key) ? manifest[key] : null);
  for (const [key, expected] of [
    ['schema_version', SCHEMA_VERSION],
    ['producer', PRODUCER],
    ['source_metric', POWER_METRIC],
    ['unit', POWER_UNIT],
    ['power_scope', POWER_SCOPE],
    ['timestamp_source', CLOCK_SOURCE],
  ] as const) {
    if (!pyEquals(m(key), expected)) failures.push(`${key} is ${pyRepr(m(key))}, expected ${pyRepr(expected)}`);
  }
  if (m('status') !== STATUS_COMPLETE) failures.push(`status is ${pyRepr(m('status'))}, expected ${pyRepr(STATUS_COMPLETE)}`);
  if (!isFiniteNumber(m('started_at_unix'))) failures.push('started_at_unix is not a finite number');
  if (!isFiniteNumber(m('stopped_at_unix'))) failures.push('stopped_at_unix is not finite in a terminal manifest');
  for (const key of ['sample_interval_seconds', 'request_timeout_seconds']) {
    if (!(isFiniteNumber(m(key)) && numberOf(m(key)) > 0)) failures.push(`${key} is not finite and positive`);
  }
  for (const key of ['scrape_count', 'sample_row_count']) {
    const v = m(key);
    if (!pyIsIntNotBool(v) || v < 0) failures.push(`${key} is not a non-negative integer`);
  }
  const required = m('required');
  if (typeof required !== 'boolean') failures.push(`required is ${pyRepr(required)}, expected a boolean`);
  const reasons = m('reason_codes');
  if (!Array.isArray(reasons) || !reasons.every((r) => typeof r === 'string'))
    failures.push('reason_codes is not a list of strings');
  else {
    const blocking = new Set<string>(FATAL_LIFECYCLE_REASONS);
    if (required === true) for (const r of STARTUP_FAILURE_REASONS) blocking.add(r);
    const incompatible = [...new Set(reasons as string[])].filter((r) => blocking.has(r)).sort(byCodePoint);
    if (incompatible.length) failures.push(`complete manifest carries lifecycle-failure reasons: ${incompatible.join(', ')}`);
  }
  const exporter = m('dcgm_exporter');
  if (!isDict(exporter)) failures.push('dcgm_exporter is not an object');
  else if (!truthy(exporter.container_image_resolved)) failures.push('dcgm_exporter.container_image_resolved is empty');
  return failures;
}

// --- samples.csv --------------------------------------------------------------------------------

/** One row of samples.csv, or undefined when it breaks the contract (`_parse_sample_row`). */
export function parseSampleRow(raw: readonly string[]): SampleRow | undefined {
  if (raw.length !== SAMPLES_HEADER.length) return undefined;
  let schemaVersion: number, timestampUnix: number, scrapeSeq: number, gpuIndex: number, powerW: number;
  try {
    schemaVersion = pyIntFromString(raw[0]!, 'schema_version');
    timestampUnix = pyFloat(raw[1]!, 'timestamp_unix');
    scrapeSeq = pyIntFromString(raw[2]!, 'scrape_seq');
    gpuIndex = pyIntFromString(raw[4]!, 'gpu_index');
    powerW = pyFloat(raw[6]!, 'power_w');
  } catch {
    return undefined;
  }
  const hostname = raw[3]!;
  const gpuUuid = raw[5]!;
  if (schemaVersion !== SAMPLES_SCHEMA_VERSION || !hostname || !gpuUuid) return undefined;
  if (!Number.isFinite(timestampUnix) || !Number.isFinite(powerW) || powerW < 0) return undefined;
  if (scrapeSeq < 0 || gpuIndex < 0) return undefined;
  return { timestampUnix, scrapeSeq, hostname, gpuIndex, gpuUuid, powerW };
}

/**
 * samples.csv read strictly (`read_samples`): the valid, first-seen rows and the reason codes
 * (`samples_csv_missing`, `samples_csv_header_mismatch`, `samples_csv_malformed`,
 * `duplicate_sample_row`, `timestamp_non_monotonic` when a device's time does not rise with its
 * scrape sequence).
 */
export function readSamples(files: TelemetryFiles, path: string): { rows: SampleRow[]; reasons: string[] } {
  if (files.kind(path) !== 'file' && files.kind(path) !== 'empty-file') return { rows: [], reasons: ['samples_csv_missing'] };
  const reasons: string[] = [];
  const rows: SampleRow[] = [];
  try {
    const body = files.read(path);
    // An undecodable byte (replaced on reading) ends the read, as Python's UnicodeDecodeError does;
    // the lines before it stand.
    const bad = body.indexOf('\ufffd');
    const reader = csvReader(bad < 0 ? body : body.slice(0, body.lastIndexOf('\n', bad) + 1), { skipInitialSpace: false });
    const first = reader.next();
    const header = first.done ? undefined : first.value;
    const headerOk = !!header && header.length === SAMPLES_HEADER.length && header.every((h, i) => h === SAMPLES_HEADER[i]);
    if (!headerOk && !(bad >= 0 && header === undefined)) return { rows: [], reasons: ['samples_csv_header_mismatch'] };
    for (const raw of reader) {
      const row = parseSampleRow(raw);
      if (!row) {
        reasons.push('samples_csv_malformed');
        continue;
      }
      rows.push(row);
    }
    if (bad >= 0) reasons.push('samples_csv_malformed');
  } catch {
    // Unreadable, or a field over csv's size limit.
    reasons.push('samples_csv_malformed');
  }
  const seen = new Set<string>();
  const unique: SampleRow[] = [];
  for (const row of rows) {
    const key = `${row.scrapeSeq}\u0000${row.hostname}\u0000${row.gpuIndex}`;
    if (seen.has(key)) {
      reasons.push('duplicate_sample_row');
      continue;
    }
    seen.add(key);
    unique.push(row);
  }
  for (const deviceRows of groupByDevice(unique).values()) {
    const ordered = [...deviceRows].sort((a, b) => a.scrapeSeq - b.scrapeSeq);
    if (ordered.some((row, i) => i > 0 && row.timestampUnix <= ordered[i - 1]!.timestampUnix)) {
      reasons.push('timestamp_non_monotonic');
      break;
    }
  }
  return { rows: unique, reasons: dedupe(reasons) };
}

function groupByDevice(rows: readonly SampleRow[]): Map<DeviceKey, SampleRow[]> {
  const out = new Map<DeviceKey, SampleRow[]>();
  for (const row of rows) {
    const key = deviceKey(row.hostname, row.gpuIndex);
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push(row);
  }
  return out;
}

export interface ObservedDevice {
  hostname: string;
  gpuIndex: number;
  /** Every UUID the device reported, first-seen order (one for a stable device). */
  gpuUuids: string[];
  firstSampleTimeUnix: number;
  lastSampleTimeUnix: number;
  /** Sorted. */
  sampleTimes: number[];
}

/** The devices the samples show, sorted by (hostname, gpu_index) (`derive_observed_devices`). */
export function deriveObservedDevices(rows: readonly SampleRow[]): ObservedDevice[] {
  const devices: ObservedDevice[] = [];
  for (const deviceRows of groupByDevice(rows).values()) {
    const ordered = [...deviceRows].sort((a, b) => a.scrapeSeq - b.scrapeSeq);
    const times = ordered.map((r) => r.timestampUnix);
    devices.push({
      hostname: ordered[0]!.hostname,
      gpuIndex: ordered[0]!.gpuIndex,
      gpuUuids: dedupe(ordered.map((r) => r.gpuUuid)),
      firstSampleTimeUnix: Math.min(...times),
      lastSampleTimeUnix: Math.max(...times),
      sampleTimes: [...times].sort((a, b) => a - b),
    });
  }
  return devices.sort(compareDeviceKeys);
}

/** An observed device as the manifest stores it. */
export const observedDeviceJson = (d: ObservedDevice): Map<string, unknown> =>
  new Map<string, unknown>([
    ['hostname', d.hostname],
    ['gpu_index', d.gpuIndex],
    ['gpu_uuids', [...d.gpuUuids]],
    ['first_sample_time_unix', new PyFloat(d.firstSampleTimeUnix)],
    ['last_sample_time_unix', new PyFloat(d.lastSampleTimeUnix)],
  ]);

// --- device identity / topology -----------------------------------------------------------------

export function resolveRoles(devices: readonly ExpectedDevice[]): { roles: Map<DeviceKey, string>; reasons: string[] } {
  const roles = new Map<DeviceKey, string>();
  for (const d of devices) {
    const distinct = new Set(d.assignments.map((a) => a.workerRole));
    if (distinct.size !== 1) return { roles: new Map(), reasons: ['conflicting_worker_roles'] };
    roles.set(deviceKey(d.hostname, d.gpuIndex), [...distinct][0]!);
  }
  return { roles, reasons: [] };
}

export function resolveHetGroups(devices: readonly ExpectedDevice[]): { groups: Map<string, number | null>; reasons: string[] } {
  const groups = new Map<string, number | null>();
  for (const d of devices) {
    const distinct = new Set(d.assignments.map((a) => a.hetGroup));
    if (distinct.size !== 1) return { groups: new Map(), reasons: ['conflicting_het_groups'] };
    const group = [...distinct][0]!;
    if (groups.has(d.hostname) && groups.get(d.hostname) !== group)
      return { groups: new Map(), reasons: ['conflicting_het_groups'] };
    groups.set(d.hostname, group);
  }
  return { groups, reasons: [] };
}

/** `_validate_devices`: expected set non-empty and equal to the observed set, one UUID per device and per GPU. */
export function validateDevices(
  expected: readonly ExpectedDevice[],
  observed: readonly ObservedDevice[],
): { reasons: string[]; roles: Map<DeviceKey, string> } {
  const reasons: string[] = [];
  const expectedKeys = new Set(expected.map((d) => deviceKey(d.hostname, d.gpuIndex)));
  const observedKeys = new Set(observed.map((d) => deviceKey(d.hostname, d.gpuIndex)));
  if (expectedKeys.size === 0 || [...expectedKeys].some((k) => !observedKeys.has(k))) reasons.push('expected_device_missing');
  if ([...observedKeys].some((k) => !expectedKeys.has(k))) reasons.push('unexpected_device');
  if (observed.some((d) => d.gpuUuids.length !== 1)) reasons.push('gpu_uuid_changed');
  else if (new Set(observed.map((d) => d.gpuUuids[0])).size !== observed.length) reasons.push('gpu_uuid_changed');
  const { roles, reasons: roleConflicts } = resolveRoles(expected);
  reasons.push(...roleConflicts, ...resolveHetGroups(expected).reasons);
  return { reasons: dedupe(reasons), roles };
}

// --- windows ------------------------------------------------------------------------------------

export interface ParsedWindow {
  relativePath: string;
  benchmarkType: string;
  concurrency: number;
  resultPath: string;
  status: string;
  startUnix: number;
  endUnix: number | null;
  duration: number | null;
}

export interface ArtifactError {
  path: string;
  reasonCodes: string[];
}

export interface WindowValidation {
  benchmarkType: string;
  concurrency: number;
  windowFile: string | null;
  powerCoverageValid: boolean;
  reasonCodes: string[];
  /** `hostname/uuid` → the largest gap between the samples bracketing the window. */
  perDeviceMaxSampleGapSeconds: Map<string, number>;
}

export const artifactErrorJson = (e: ArtifactError): Map<string, unknown> =>
  new Map<string, unknown>([
    ['path', e.path],
    ['reason_codes', [...e.reasonCodes]],
  ]);

export const windowValidationJson = (v: WindowValidation): Map<string, unknown> =>
  new Map<string, unknown>([
    ['benchmark_type', v.benchmarkType],
    ['concurrency', v.concurrency],
    ['window_file', v.windowFile],
    ['power_coverage_valid', v.powerCoverageValid],
    ['reason_codes', [...v.reasonCodes]],
    ['per_device_max_sample_gap_seconds', new Map([...v.perDeviceMaxSampleGapSeconds].map(([k, g]) => [k, new PyFloat(g)]))],
  ]);

function statusInvariantsHold(status: string, end: unknown, duration: unknown, reason: unknown): boolean {
  if (status === WINDOW_STATUS_RUNNING) return end === null && duration === null && reason === null;
  if (status === 'interrupted') return end === null && duration === null && typeof reason === 'string' && reason !== '';
  if (!isFiniteNumber(end) || !isFiniteNumber(duration) || numberOf(duration) <= 0) return false;
  if (status === WINDOW_STATUS_COMPLETED) return reason === null;
  return typeof reason === 'string' && reason !== '';
}

function readJson(files: TelemetryFiles, path: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: loads(files.read(path)) };
  } catch {
    return { ok: false };
  }
}

/** One window file (`_parse_window`). */
export function parseWindow(
  files: TelemetryFiles,
  path: string,
  relative: string,
  resultRoot: string,
): { window?: ParsedWindow; reasons: string[] } {
  const read = readJson(files, path);
  if (!read.ok || !isDict(read.value)) return { reasons: ['measurement_window_malformed'] };
  const p = read.value;
  const g = (key: string): unknown => (Object.prototype.hasOwnProperty.call(p, key) ? p[key] : null);
  const status = g('status');
  const concurrency = g('concurrency');
  const benchmarkType = g('benchmark_type');
  const start = g('benchmark_start_time_unix');
  if (
    !pyEquals(g('schema_version'), SCHEMA_VERSION) ||
    !pyEquals(g('clock_source'), CLOCK_SOURCE) ||
    typeof status !== 'string' ||
    !(WINDOW_STATUSES as readonly string[]).includes(status) ||
    typeof benchmarkType !== 'string' ||
    !pyIsInt(concurrency) ||
    !isFiniteNumber(start)
  ) {
    return { reasons: ['measurement_window_malformed'] };
  }
  const resultPath = g('result_path');
  if (typeof resultPath !== 'string' || !isSafeRelativeSubpath(resultPath))
    return { reasons: ['measurement_window_result_path_invalid'] };
  if (!staysBelow(files, resultRoot, resultPath) || pathStem(resultPath) !== pathStem(path)) {
    return { reasons: ['measurement_window_result_path_invalid'] };
  }
  const end = g('benchmark_end_time_unix');
  const duration = g('duration');
  if (!statusInvariantsHold(status, end, duration, g('reason'))) return { reasons: ['measurement_window_malformed'] };
  return {
    window: {
      relativePath: relative,
      benchmarkType,
      concurrency: Number(concurrency),
      resultPath,
      status,
      startUnix: numberOf(start),
      endUnix: end === null ? null : numberOf(end),
      duration: duration === null ? null : numberOf(duration),
    },
    reasons: [],
  };
}

const windowKey = (benchmarkType: string, concurrency: number): string => `${benchmarkType}\u0000${concurrency}`;
const compareWindowKeys = (a: ParsedWindow, b: ParsedWindow): number =>
  byCodePoint(a.benchmarkType, b.benchmarkType) || a.concurrency - b.concurrency;

/** Every entry of windows/ (`_scan_windows`): the parsed windows by key, the duplicated keys; problems go to `artifactErrors`. */
export function scanWindows(
  files: TelemetryFiles,
  powerDir: string,
  resultRoot: string,
  artifactErrors: ArtifactError[],
): { parsed: Map<string, ParsedWindow>; duplicates: Set<string> } {
  const windowsDir = joinPath(powerDir, WINDOWS_DIRNAME);
  const parsed = new Map<string, ParsedWindow>();
  const duplicates = new Set<string>();
  if (files.kind(windowsDir) !== 'dir') return { parsed, duplicates };
  if (!staysBelow(files, powerDir, WINDOWS_DIRNAME)) {
    artifactErrors.push({ path: WINDOWS_DIRNAME, reasonCodes: ['measurement_window_artifact_path_invalid'] });
    return { parsed, duplicates };
  }
  const entries = [...files.list(windowsDir)].sort((a, b) => byCodePoint(a.name, b.name));
  for (const entry of entries) {
    const relative = `${WINDOWS_DIRNAME}/${entry.name}`;
    if (entry.kind !== 'file' && entry.kind !== 'empty-file') {
      artifactErrors.push({ path: relative, reasonCodes: ['measurement_window_artifact_path_invalid'] });
      continue;
    }
    const { window, reasons } = parseWindow(files, joinPath(windowsDir, entry.name), relative, resultRoot);
    if (!window) {
      artifactErrors.push({ path: relative, reasonCodes: reasons });
      continue;
    }
    const key = windowKey(window.benchmarkType, window.concurrency);
    const previous = parsed.get(key);
    if (previous) {
      duplicates.add(key);
      artifactErrors.push({ path: previous.relativePath, reasonCodes: ['measurement_window_duplicate'] });
      artifactErrors.push({ path: relative, reasonCodes: ['measurement_window_duplicate'] });
      continue;
    }
    parsed.set(key, window);
  }
  for (const key of duplicates) parsed.delete(key);
  return { parsed, duplicates };
}

/** A completed window must match the result it points at, on both clocks (`_check_window_result`). */
export function checkWindowResult(files: TelemetryFiles, window: ParsedWindow, resultRoot: string): string[] {
  const resultFile = joinPath(resultRoot, window.resultPath);
  if (files.kind(resultFile) !== 'file' && files.kind(resultFile) !== 'empty-file') return ['measurement_window_result_missing'];
  const read = readJson(files, resultFile);
  if (!read.ok) return ['measurement_window_result_missing'];
  if (!isDict(read.value)) return ['measurement_window_result_mismatch'];
  const r = read.value;
  const g = (key: string): unknown => (Object.prototype.hasOwnProperty.call(r, key) ? r[key] : null);
  if (
    !pyEquals(g('benchmark_start_time_unix'), new PyFloat(window.startUnix)) ||
    !pyEquals(g('benchmark_end_time_unix'), window.endUnix === null ? null : new PyFloat(window.endUnix)) ||
    !pyEquals(g('duration'), window.duration === null ? null : new PyFloat(window.duration))
  ) {
    return ['measurement_window_result_mismatch'];
  }
  const wall = window.endUnix! - window.startUnix;
  const tolerance = Math.max(CLOCK_TOLERANCE_SECONDS, CLOCK_TOLERANCE_FRACTION * window.duration!);
  if (Math.abs(wall - window.duration!) > tolerance) return ['measurement_window_clock_mismatch'];
  return [];
}

/** The last sample at or before start, every sample inside, the first at or after end; none when the window is not bracketed. */
export function bracketingSequence(times: readonly number[], start: number, end: number): number[] | undefined {
  const before = times.filter((t) => t <= start);
  const after = times.filter((t) => t >= end);
  if (!before.length || !after.length) return undefined;
  return [before[before.length - 1]!, ...times.filter((t) => start < t && t < end), after[0]!];
}

/** The largest step of a sequence (0.0 for one element). */
export function largestGap(sequence: readonly number[]): number {
  let largest = -Infinity;
  for (let i = 1; i < sequence.length; i++) largest = Math.max(largest, sequence[i]! - sequence[i - 1]!);
  return sequence.length > 1 ? largest : 0.0;
}

/** Every expected device must bracket the window with gaps of at most 3 s (`_check_coverage`). */
export function checkCoverage(
  start: number,
  end: number,
  expectedDevices: readonly { hostname: string; gpuIndex: number }[],
  observed: readonly ObservedDevice[],
): { gaps: Map<string, number>; reasons: string[] } {
  const byKey = new Map(observed.map((d) => [deviceKey(d.hostname, d.gpuIndex), d]));
  const gaps = new Map<string, number>();
  const reasons: string[] = [];
  const keys = [...new Map(expectedDevices.map((d) => [deviceKey(d.hostname, d.gpuIndex), d])).values()].sort(compareDeviceKeys);
  for (const key of keys) {
    const device = byKey.get(deviceKey(key.hostname, key.gpuIndex));
    if (!device) {
      reasons.push('measurement_window_not_bracketed');
      continue;
    }
    if (device.gpuUuids.length !== 1) {
      reasons.push('gpu_uuid_changed');
      continue;
    }
    const sequence = bracketingSequence(device.sampleTimes, start, end);
    if (!sequence) {
      reasons.push('measurement_window_not_bracketed');
      continue;
    }
    const largest = largestGap(sequence);
    gaps.set(`${device.hostname}/${device.gpuUuids[0]}`, largest);
    if (largest > MAX_SAMPLE_GAP_SECONDS) reasons.push('sample_gap_exceeded');
  }
  return { gaps, reasons };
}

/** One audit row per expected window, as the producer writes them (`_validate_expected_windows`). */
export function validateExpectedWindows(
  files: TelemetryFiles,
  powerDir: string,
  resultRoot: string,
  expectedWindows: readonly ExpectedWindow[],
  expectedDevices: readonly { hostname: string; gpuIndex: number }[],
  observed: readonly ObservedDevice[],
  artifactErrors: ArtifactError[],
): { validations: WindowValidation[]; parsed: Map<string, ParsedWindow> } {
  const { parsed, duplicates } = scanWindows(files, powerDir, resultRoot, artifactErrors);
  const expectedKeys = new Set(expectedWindows.map((w) => windowKey(w.benchmarkType, w.concurrency)));
  for (const window of [...parsed.values()].sort(compareWindowKeys)) {
    if (!expectedKeys.has(windowKey(window.benchmarkType, window.concurrency))) {
      artifactErrors.push({ path: window.relativePath, reasonCodes: ['measurement_window_unexpected'] });
    }
  }
  const validations = expectedWindows.map((expected): WindowValidation => {
    const key = windowKey(expected.benchmarkType, expected.concurrency);
    const window = parsed.get(key);
    if (!window) {
      return {
        benchmarkType: expected.benchmarkType,
        concurrency: expected.concurrency,
        windowFile: null,
        powerCoverageValid: false,
        reasonCodes: [duplicates.has(key) ? 'measurement_window_duplicate' : 'measurement_window_missing'],
        perDeviceMaxSampleGapSeconds: new Map(),
      };
    }
    const reasons: string[] = [];
    if (window.status !== WINDOW_STATUS_COMPLETED) reasons.push('measurement_window_incomplete');
    else reasons.push(...checkWindowResult(files, window, resultRoot));
    let gaps = new Map<string, number>();
    if (!reasons.length) {
      const coverage = checkCoverage(window.startUnix, window.endUnix!, expectedDevices, observed);
      reasons.push(...coverage.reasons);
      gaps = coverage.reasons.length ? new Map() : coverage.gaps;
    }
    return {
      benchmarkType: expected.benchmarkType,
      concurrency: expected.concurrency,
      windowFile: window.relativePath,
      powerCoverageValid: reasons.length === 0,
      reasonCodes: dedupe(reasons),
      perDeviceMaxSampleGapSeconds: gaps,
    };
  });
  return { validations, parsed };
}

/** What the package's files say, recomputed from their bytes. */
export interface PackageAudit {
  rows: SampleRow[];
  sampleReasons: string[];
  observed: ObservedDevice[];
  deviceReasons: string[];
  roles: Map<DeviceKey, string>;
  validations: WindowValidation[];
  parsedWindows: Map<string, ParsedWindow>;
  artifactErrors: ArtifactError[];
}

/** Samples, devices and windows of a package, audited as both the producer and the consumer do. */
export function auditPackage(
  files: TelemetryFiles,
  powerDir: string,
  resultRoot: string,
  expectedDevices: readonly ExpectedDevice[],
  expectedWindows: readonly ExpectedWindow[],
): PackageAudit {
  const { rows, reasons: sampleReasons } = readSamples(files, joinPath(powerDir, SAMPLES_FILENAME));
  const observed = deriveObservedDevices(rows);
  const { reasons: deviceReasons, roles } = validateDevices(expectedDevices, observed);
  const artifactErrors: ArtifactError[] = [];
  const { validations, parsed } = validateExpectedWindows(
    files,
    powerDir,
    resultRoot,
    expectedWindows,
    expectedDevices,
    observed,
    artifactErrors,
  );
  return { rows, sampleReasons, observed, deviceReasons, roles, validations, parsedWindows: parsed, artifactErrors };
}

/** The stored evidence of a manifest against the recomputation (`_check_stored_evidence`). */
export function checkStoredEvidence(
  manifest: Record<string, unknown>,
  expectedDevices: readonly ExpectedDevice[],
  expectedWindows: readonly ExpectedWindow[],
  audit: PackageAudit,
): string[] {
  const failures: string[] = [];
  const m = (key: string): unknown => (Object.prototype.hasOwnProperty.call(manifest, key) ? manifest[key] : null);
  const { rows } = audit;
  if (!pyEquals(m('sample_row_count'), rows.length))
    failures.push(`sample_row_count is ${pyRepr(m('sample_row_count'))}, disk has ${rows.length} rows`);
  const storedScrapes = m('scrape_count');
  if (rows.length) {
    const least = Math.max(...rows.map((r) => r.scrapeSeq)) + 1;
    if (!pyIsIntNotBool(storedScrapes) || storedScrapes < least)
      failures.push(`scrape_count is ${pyRepr(storedScrapes)}, disk needs at least ${least}`);
  }
  if (!audit.observed.length) failures.push('observed_devices is empty');
  const plain = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? Object.fromEntries(x) : x)));
  if (!pyEquals(m('observed_devices'), plain(audit.observed.map(observedDeviceJson)))) {
    failures.push('observed_devices does not match the devices derived from samples.csv');
  }
  if (!pyEquals(m('window_validations'), plain(audit.validations.map(windowValidationJson)))) {
    failures.push('window_validations does not match the recomputed window audit');
  }
  if (!pyEquals(m('artifact_errors'), plain(audit.artifactErrors.map(artifactErrorJson)))) {
    failures.push('artifact_errors does not match the recomputed artifact scan');
  }
  const deviceKeys = expectedDevices.map((d) => deviceKey(d.hostname, d.gpuIndex));
  if (new Set(deviceKeys).size !== deviceKeys.length) failures.push('expected_devices contains duplicate keys');
  const windowKeys = expectedWindows.map((w) => windowKey(w.benchmarkType, w.concurrency));
  if (new Set(windowKeys).size !== windowKeys.length) failures.push('expected_windows contains duplicate keys');
  return failures;
}

/** The recompute failures of one package, in the reference's order (what `publication_valid` must agree with). */
export function recomputeFailures(
  manifest: Record<string, unknown>,
  expectedWindows: readonly ExpectedWindow[],
  audit: PackageAudit,
): string[] {
  const failures = checkWireContract(manifest);
  failures.push(...audit.sampleReasons.map((r) => `${r} in ${SAMPLES_FILENAME}`));
  failures.push(...audit.deviceReasons.map((r) => `${r} (device identity/topology)`));
  if (!expectedWindows.length) failures.push('no expected measurement window');
  for (const v of audit.validations)
    failures.push(...v.reasonCodes.map((r) => `${r} (window ${v.benchmarkType}/${v.concurrency})`));
  for (const e of audit.artifactErrors) failures.push(...e.reasonCodes.map((r) => `${r} (${e.path})`));
  return failures;
}
