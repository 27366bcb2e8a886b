/**
 * The multinode power step: InferenceX's `utils/aggregate_power_multinode.py` (`run` and
 * `validate_and_integrate`). It re-validates the srt-slurm `dcgm-power` package under
 * `POWER_ARTIFACT_DIR` (default `LOGS/power`) from its bytes, never trusting the producer's stored
 * `publication_valid`; requires the producer commit to equal `POWER_PRODUCER_SHA`; checks the role
 * topology against `PREFILL_GPUS`/`DECODE_GPUS`; binds the processed result to exactly one
 * completed window by content (sha256 of the canonical JSON of the original under
 * `POWER_RESULT_ROOT`, default `LOGS`); and integrates each expected GPU's board power over the
 * window (trapezoids, linear interpolation at the edges), summing whole-deployment and per-role
 * energy. Patches the aggregate in place and returns the `power_validation_<RESULT_FILENAME>.json`
 * sidecar, key for key and type for type as the reference writes them.
 */
import { createHash } from 'node:crypto';
import {
  PyFloat,
  PyJsonSyntaxError,
  dumps,
  floatRepr,
  isDict,
  loads,
  pyEquals,
  pyFixed,
  pyPath,
  pyRepr,
} from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import type { PointIdentity } from '../identity.js';
import type { PowerOutcome, PowerSettings } from './settings.js';
import { ResultsError } from '../errors.js';
import {
  INTEGRATION_METHOD,
  ROLE_POWER_KEYS,
  WHOLE_POWER_KEYS,
  appendReason,
  benchmarkWindowJson,
  integrateDevice,
  loadBenchmarkData,
  patchAggregate,
  sidecarMetrics,
} from './common.js';
import type { BenchmarkData, PowerSample, TelemetryFiles } from './common.js';
import {
  MANIFEST_FILENAME,
  PyException,
  WINDOW_STATUS_COMPLETED,
  auditPackage,
  bracketingSequence,
  checkStoredEvidence,
  compareDeviceKeys,
  deviceKey,
  joinPath,
  largestGap,
  parseExpectedDevices,
  parseExpectedWindows,
  recomputeFailures,
  resolveHetGroups,
} from './package.js';
import type { DeviceKey, ExpectedDevice, ParsedWindow } from './package.js';
import { SAMPLES_FILENAME } from '../../telemetry/dcgm-file.js';
import type { SampleRow } from '../../telemetry/dcgm-file.js';
import { BOARD_POWER_TRANSIENT_MARGIN, maxPlausiblePowerW } from './plausibility.js';
import type { NodeBounds } from './plausibility.js';

export const MULTINODE_METRIC_KEYS = [...WHOLE_POWER_KEYS, ...ROLE_POWER_KEYS] as const;

/** Everything the sidecar needs to explain the verdict (`MultinodePowerAudit`). */
export interface MultinodeAudit {
  powerValid: boolean;
  reasons: string[];
  failures: string[];
  storedPublicationValid: boolean | null;
  recomputedPublicationValid: boolean | null;
  producerGitCommit: string | null;
  expectedProducerGitCommit: string | null;
  exporterImageSha256: string | null;
  window: Map<string, PyJson> | null;
  perGpuEnergyJ: Map<string, number>;
  perGpuRole: Map<string, string>;
  perGpuMaxSampleGapS: Map<string, number>;
  observedGpuCount: number;
  expectedGpuCount: number;
  metrics: Map<string, number>;
}

function addReason(audit: MultinodeAudit, reason: string, detail?: string): void {
  appendReason(audit.reasons, reason);
  if (detail) audit.failures.push(detail);
}

/** sha256 of `json.dumps(payload, sort_keys=True, separators=(",", ":"))`. */
export function canonicalSha256(payload: unknown): string {
  return createHash('sha256')
    .update(dumps(payload, { sortKeys: true, separators: [',', ':'] }), 'utf8')
    .digest('hex');
}

export interface MultinodeInputs {
  powerDir: string;
  logsRoot: string;
  /** The processed result's path (`<RESULT_FILENAME>.json`), as messages name it. */
  benchResultPath: string;
  /** The processed result: read from `benchResultPath` when it is there, else the caller's parsed copy. */
  processed: unknown;
  /** The benchmark contract, only when fully valid. */
  benchmark: BenchmarkData | undefined;
  prefillGpus: number;
  decodeGpus: number;
  expectedProducerSha: string | null;
  /** The deployment's GPU (Frontier only): a reading above its board power invalidates power. */
  node?: NodeBounds;
}

/** The first sample above the node's plausible power, in words; undefined when every sample is within it. */
function implausibleSample(rows: readonly SampleRow[], node: NodeBounds): string | undefined {
  const limit = maxPlausiblePowerW(node);
  const row = rows.find((r) => r.powerW > limit);
  if (!row) return undefined;
  return `${SAMPLES_FILENAME}: ${row.hostname} GPU ${row.gpuIndex} reads ${floatRepr(row.powerW)} W at ${floatRepr(row.timestampUnix)}, above ${floatRepr(limit)} W (${node.gpu}'s board power ${floatRepr(node.boardPowerW)} W + ${BOARD_POWER_TRANSIENT_MARGIN * 100} %)`;
}

/** `_check_role_topology`: exact role counts against the workflow, distinct het groups when present. */
function checkRoleTopology(
  expected: readonly ExpectedDevice[],
  roles: Map<DeviceKey, string>,
  expectedRoles: Map<string, number>,
): string[] {
  const failures: string[] = [];
  const counts = new Map<string, number>();
  for (const role of roles.values()) counts.set(role, (counts.get(role) ?? 0) + 1);
  const sortedNames = (m: Map<string, unknown>): string[] => [...m.keys()].sort();
  const a = sortedNames(expectedRoles);
  const b = sortedNames(counts);
  if (a.length !== b.length || a.some((r, i) => r !== b[i])) failures.push(`expected roles ${pyRepr(a)}, found ${pyRepr(b)}`);
  for (const role of a) {
    const count = expectedRoles.get(role)!;
    if ((counts.get(role) ?? 0) !== count) failures.push(`expected ${count} ${role} GPUs, found ${counts.get(role) ?? 0}`);
  }
  const { groups, reasons: conflicts } = resolveHetGroups(expected);
  if (conflicts.length) return [...failures, ...conflicts.map((r) => `${r} (topology)`)];
  const perRole = new Map<string, Set<number | null>>();
  for (const d of expected) {
    const role = roles.get(deviceKey(d.hostname, d.gpuIndex));
    if (role === undefined) continue;
    let set = perRole.get(role);
    if (!set) perRole.set(role, (set = new Set()));
    set.add(groups.get(d.hostname) ?? null);
  }
  const nonHet = [...groups.values()].every((g) => g === null);
  const assigned: number[] = [];
  for (const role of [...perRole.keys()].sort()) {
    const roleGroups = perRole.get(role)!;
    if (roleGroups.size !== 1) {
      const listed = [...roleGroups].sort((x, y) => (String(x ?? 'None') < String(y ?? 'None') ? -1 : 1));
      failures.push(`role ${role} spans het groups ${pyRepr(listed)}, expected exactly one`);
      continue;
    }
    const group = [...roleGroups][0]!;
    if (group === null) {
      if (!nonHet) failures.push(`role ${role} has het group None while other devices report real het groups`);
      continue;
    }
    assigned.push(group);
  }
  if (new Set(assigned).size !== assigned.length) failures.push('roles share a het group');
  return failures;
}

/** Bind the processed result to its completed window by content, not name (`_select_window_for_result`). */
function selectWindowForResult(
  audit: MultinodeAudit,
  files: TelemetryFiles,
  parsedWindows: Map<string, ParsedWindow>,
  inputs: MultinodeInputs,
): ParsedWindow | undefined {
  const { benchResultPath, logsRoot, benchmark } = inputs;
  let processed: unknown = inputs.processed;
  if (files.kind(benchResultPath) === 'file' || files.kind(benchResultPath) === 'empty-file') {
    try {
      processed = loads(files.read(benchResultPath));
    } catch {
      addReason(audit, 'invalid_benchmark_result', `unreadable result: ${benchResultPath}`);
      return undefined;
    }
  }
  if (!isDict(processed)) {
    addReason(audit, 'invalid_benchmark_result', 'processed result is not an object');
    return undefined;
  }
  const concurrency = Object.prototype.hasOwnProperty.call(processed, 'max_concurrency') ? processed.max_concurrency : null;
  const matches = [...parsedWindows.values()].filter(
    (w) => w.status === WINDOW_STATUS_COMPLETED && pyEquals(w.concurrency, concurrency),
  );
  if (matches.length !== 1) {
    addReason(
      audit,
      'window_for_result_missing',
      `found ${matches.length} completed windows for concurrency ${pyRepr(concurrency)}`,
    );
    return undefined;
  }
  const window = matches[0]!;
  const originalPath = joinPath(logsRoot, window.resultPath);
  let original: unknown;
  try {
    original = loads(files.read(originalPath));
  } catch {
    addReason(audit, 'measurement_window_result_missing', `original result unreadable: ${originalPath}`);
    return undefined;
  }
  if (canonicalSha256(original) !== canonicalSha256(processed)) {
    const name = benchResultPath.slice(benchResultPath.lastIndexOf('/') + 1);
    addReason(audit, 'result_content_mismatch', `workspace copy ${name} differs from original ${window.resultPath}`);
    return undefined;
  }
  if (benchmark && (benchmark.start !== window.startUnix || benchmark.end !== window.endUnix)) {
    addReason(audit, 'measurement_window_result_mismatch', 'benchmark window fields do not match the selected window file');
    return undefined;
  }
  audit.window = new Map<string, PyJson>([
    ['window_file', window.relativePath],
    ['result_path', window.resultPath],
    ['benchmark_type', window.benchmarkType],
    ['concurrency', window.concurrency],
    ['start_time_unix', new PyFloat(window.startUnix)],
    ['end_time_unix', new PyFloat(window.endUnix!)],
    ['duration', new PyFloat(window.duration!)],
  ]);
  return window;
}

/** Recompute package validity, cross-check verdicts, and integrate energy (`validate_and_integrate`). */
export function validateAndIntegrate(files: TelemetryFiles, inputs: MultinodeInputs): MultinodeAudit {
  const { powerDir, logsRoot, benchmark, prefillGpus, decodeGpus, expectedProducerSha } = inputs;
  const audit: MultinodeAudit = {
    powerValid: false,
    reasons: [],
    failures: [],
    storedPublicationValid: null,
    recomputedPublicationValid: null,
    producerGitCommit: null,
    expectedProducerGitCommit: expectedProducerSha,
    exporterImageSha256: null,
    window: null,
    perGpuEnergyJ: new Map(),
    perGpuRole: new Map(),
    perGpuMaxSampleGapS: new Map(),
    observedGpuCount: 0,
    expectedGpuCount: 0,
    metrics: new Map(),
  };
  if (files.kind(powerDir) !== 'dir') {
    addReason(audit, 'power_artifacts_missing', `power dir missing: ${powerDir}`);
    return audit;
  }
  const manifestPath = joinPath(powerDir, MANIFEST_FILENAME);
  if (files.kind(manifestPath) !== 'file' && files.kind(manifestPath) !== 'empty-file') {
    addReason(audit, 'manifest_missing', `manifest missing: ${manifestPath}`);
    return audit;
  }
  let manifest: unknown;
  let body = '';
  try {
    body = files.read(manifestPath);
    manifest = loads(body);
  } catch (e) {
    const text = e instanceof PyJsonSyntaxError ? e.describe(body) : (e as Error).message;
    addReason(audit, 'manifest_malformed', `manifest unreadable: ${text}`);
    return audit;
  }
  if (!isDict(manifest)) {
    addReason(audit, 'manifest_malformed', 'manifest is not an object');
    return audit;
  }
  const m = (key: string): unknown => (Object.prototype.hasOwnProperty.call(manifest, key) ? manifest[key] : null);
  const stored = m('publication_valid');
  audit.storedPublicationValid = typeof stored === 'boolean' ? stored : null;
  const commit = m('producer_git_commit');
  audit.producerGitCommit = typeof commit === 'string' ? commit : null;
  const exporter = m('dcgm_exporter');
  if (isDict(exporter)) {
    const sha = exporter.container_image_sha256;
    audit.exporterImageSha256 = typeof sha === 'string' ? sha : null;
  }

  // Gate: producer pin. Unknown producer contract: never publish numbers.
  if (!expectedProducerSha) addReason(audit, 'producer_pin_missing', 'no expected producer SHA configured');
  else if (audit.producerGitCommit !== expectedProducerSha) {
    addReason(
      audit,
      'producer_commit_mismatch',
      `producer_git_commit ${pyRepr(audit.producerGitCommit)} != expected ${pyRepr(expectedProducerSha)}`,
    );
  }

  let expectedDevices: ExpectedDevice[];
  let expectedWindows;
  try {
    expectedDevices = parseExpectedDevices(manifest);
    expectedWindows = parseExpectedWindows(manifest);
  } catch (e) {
    if (!(e instanceof PyException)) throw e;
    addReason(audit, 'manifest_malformed', `manifest malformed: ${e.repr()}`);
    audit.recomputedPublicationValid = false;
    return audit;
  }

  const pkg = auditPackage(files, powerDir, logsRoot, expectedDevices, expectedWindows);
  const failures = recomputeFailures(manifest, expectedWindows, pkg);
  failures.push(...checkStoredEvidence(manifest, expectedDevices, expectedWindows, pkg));
  audit.recomputedPublicationValid = failures.length === 0;
  audit.failures.push(...failures);
  if (failures.length) appendReason(audit.reasons, 'package_recompute_invalid');

  // Gate: the stored verdict must agree with the recomputation, and both be true.
  if (audit.storedPublicationValid !== true || audit.storedPublicationValid !== audit.recomputedPublicationValid) {
    if (audit.storedPublicationValid !== audit.recomputedPublicationValid) {
      addReason(
        audit,
        'producer_verdict_mismatch',
        `stored publication_valid=${pyRepr(audit.storedPublicationValid)}, recomputed=${pyRepr(audit.recomputedPublicationValid)}`,
      );
    } else addReason(audit, 'package_recompute_invalid', 'stored and recomputed both invalid');
  }

  // Gate: role topology against the workflow's GPU counts.
  const { roles } = pkg;
  const expectedRoles = new Map<string, number>();
  if (prefillGpus > 0) expectedRoles.set('prefill', prefillGpus);
  if (decodeGpus > 0) expectedRoles.set('decode', decodeGpus);
  if (!expectedRoles.size) addReason(audit, 'topology_env_mismatch', 'PREFILL_GPUS/DECODE_GPUS are both zero');
  else if (roles.size)
    for (const f of checkRoleTopology(expectedDevices, roles, expectedRoles)) addReason(audit, 'topology_env_mismatch', f);

  // Gate (Frontier only): readings the deployment's GPUs can draw (docs/power.md, "Plausibility").
  const implausible = inputs.node && implausibleSample(pkg.rows, inputs.node);
  if (implausible) addReason(audit, 'power_sample_above_board_limit', implausible);

  audit.expectedGpuCount = expectedDevices.length;
  audit.observedGpuCount = pkg.observed.length;
  // Per-GPU maps share the hostname/uuid namespace of the producer's evidence.
  const uuidLabel = new Map<DeviceKey, string>();
  for (const d of pkg.observed)
    if (d.gpuUuids.length === 1) uuidLabel.set(deviceKey(d.hostname, d.gpuIndex), `${d.hostname}/${d.gpuUuids[0]}`);
  const roleDevices = new Map<DeviceKey, { hostname: string; gpuIndex: number }>();
  for (const d of expectedDevices)
    if (roles.has(deviceKey(d.hostname, d.gpuIndex))) roleDevices.set(deviceKey(d.hostname, d.gpuIndex), d);
  for (const d of [...roleDevices.values()].sort(compareDeviceKeys)) {
    const key = deviceKey(d.hostname, d.gpuIndex);
    audit.perGpuRole.set(uuidLabel.get(key) ?? `${d.hostname}/${d.gpuIndex}`, roles.get(key)!);
  }

  // Gate: exactly one completed window must belong to this processed result.
  const window = selectWindowForResult(audit, files, pkg.parsedWindows, inputs);
  if (audit.reasons.length || !window || !benchmark) return audit;

  // Integration: per-GPU trapezoid clipped to the formal window; roles sum.
  const perKey = new Map<DeviceKey, PowerSample[]>();
  for (const row of pkg.rows) {
    const key = deviceKey(row.hostname, row.gpuIndex);
    let list = perKey.get(key);
    if (!list) perKey.set(key, (list = []));
    list.push([row.timestampUnix, row.powerW]);
  }
  const byKey = new Map(pkg.observed.map((d) => [deviceKey(d.hostname, d.gpuIndex), d]));
  const start = window.startUnix;
  const end = window.endUnix!;
  const roleEnergy = new Map<string, number>([
    ['prefill', 0.0],
    ['decode', 0.0],
  ]);
  for (const d of expectedDevices) {
    const key = deviceKey(d.hostname, d.gpuIndex);
    const samples = [...(perKey.get(key) ?? [])].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const label = uuidLabel.get(key)!;
    const energy = integrateDevice(samples, start, end);
    audit.perGpuEnergyJ.set(label, energy);
    const role = roles.get(key);
    if (role !== undefined && roleEnergy.has(role)) roleEnergy.set(role, roleEnergy.get(role)! + energy);
    const sequence = bracketingSequence(byKey.get(key)!.sampleTimes, start, end) ?? [];
    audit.perGpuMaxSampleGapS.set(label, largestGap(sequence));
  }

  const durationS = end - start;
  let totalEnergy = 0;
  for (const e of audit.perGpuEnergyJ.values()) totalEnergy += e;
  const totalTokens = benchmark.totalInputTokens + benchmark.totalOutputTokens;
  const metrics = new Map<string, number>([
    ['avg_power_w', totalEnergy / durationS / expectedDevices.length],
    ['avg_total_gpu_power_w', totalEnergy / durationS],
    ['total_gpu_energy_j', totalEnergy],
    ['joules_per_successful_query', totalEnergy / benchmark.completed],
    ['joules_per_input_token', totalEnergy / benchmark.totalInputTokens],
    ['joules_per_output_token', totalEnergy / benchmark.totalOutputTokens],
    ['joules_per_total_token', totalEnergy / totalTokens],
  ]);
  if (prefillGpus > 0) {
    const e = roleEnergy.get('prefill')!;
    metrics.set('prefill_gpu_energy_j', e);
    metrics.set('prefill_avg_power_w', e / durationS / prefillGpus);
    metrics.set('prefill_joules_per_input_token', e / benchmark.totalInputTokens);
  }
  if (decodeGpus > 0) {
    const e = roleEnergy.get('decode')!;
    metrics.set('decode_gpu_energy_j', e);
    metrics.set('decode_avg_power_w', e / durationS / decodeGpus);
    metrics.set('decode_joules_per_output_token', e / benchmark.totalOutputTokens);
  }
  // Absurd-but-finite samples can overflow to inf during integration: invalid, not a stale aggregate.
  const nonFinite = [...metrics]
    .filter(([, v]) => !Number.isFinite(v))
    .map(([k]) => k)
    .sort();
  if (nonFinite.length) {
    addReason(audit, 'non_finite_power_metric', `non-finite: ${nonFinite.join(', ')}`);
    return audit;
  }
  audit.metrics = metrics;
  audit.powerValid = true;
  return audit;
}

/** The sidecar (`_sidecar_payload`), in the reference's key order. */
function sidecar(
  audit: MultinodeAudit,
  powerDir: string,
  benchResultPath: string,
  benchmark: BenchmarkData | undefined,
): Map<string, PyJson> {
  const floats = (m: Map<string, number>): Map<string, PyJson> => new Map([...m].map(([k, v]) => [k, new PyFloat(v)]));
  return new Map<string, PyJson>([
    ['schema_version', 1],
    ['power_valid', audit.powerValid],
    ['reasons', [...audit.reasons]],
    ['failures', [...audit.failures]],
    ['telemetry_source', powerDir],
    ['benchmark_result', benchResultPath],
    ['benchmark_window', benchmarkWindowJson(benchmark)],
    ['selected_window', audit.window],
    ['integration_method', INTEGRATION_METHOD],
    [
      'producer',
      new Map<string, PyJson>([
        ['producer_git_commit', audit.producerGitCommit],
        ['expected_producer_git_commit', audit.expectedProducerGitCommit],
        ['exporter_image_sha256', audit.exporterImageSha256],
        ['stored_publication_valid', audit.storedPublicationValid],
        ['recomputed_publication_valid', audit.recomputedPublicationValid],
      ]),
    ],
    ['expected_gpu_count', audit.expectedGpuCount],
    ['observed_gpu_count', audit.observedGpuCount],
    ['per_gpu_role', new Map(audit.perGpuRole)],
    ['per_gpu_max_sample_gap_s', floats(audit.perGpuMaxSampleGapS)],
    // Overflowed integrations are null: strict JSON has no Infinity.
    ['per_gpu_energy_j', new Map([...audit.perGpuEnergyJ].map(([k, v]) => [k, Number.isFinite(v) ? new PyFloat(v) : null]))],
    ['metrics', sidecarMetrics(audit.metrics)],
  ]);
}

/**
 * The multinode power step on a written aggregate (`run`): patches `agg` in place and returns the
 * sidecar, the line the reference prints (stderr when invalid; stdout, with the energies, when
 * valid) and the exit status (1 only for invalid power under REQUIRE_POWER).
 */
export function multinodePowerStep(
  raw: unknown,
  identity: PointIdentity,
  agg: Map<string, PyJson>,
  settings: PowerSettings,
  files: TelemetryFiles,
): PowerOutcome {
  const t = identity.topology;
  if (t.kind !== 'multinode')
    throw new ResultsError('the multinode power step needs a multinode point', undefined, 'use the single-node power step');
  const rf = identity.resultFilename;
  const benchResultPath = pyPath(`${rf}.json`);
  const validationFile = pyPath(`power_validation_${rf}.json`);
  const aggPath = pyPath(`agg_${rf}.json`);
  const powerDir = pyPath(settings.powerArtifactDir ?? 'LOGS/power');
  const logsRoot = pyPath(settings.powerResultRoot ?? 'LOGS');
  const { benchmark, reasons: benchmarkReasons } = loadBenchmarkData(raw);
  const effective = benchmark && !benchmarkReasons.length ? benchmark : undefined;
  const audit = validateAndIntegrate(files, {
    powerDir,
    logsRoot,
    benchResultPath,
    processed: raw,
    benchmark: effective,
    prefillGpus: t.prefillGpus,
    decodeGpus: t.decodeGpus,
    expectedProducerSha: settings.powerProducerSha || null,
    ...(settings.node ? { node: settings.node } : {}),
  });
  for (const reason of benchmarkReasons) addReason(audit, reason);
  if (!benchmark || audit.reasons.length) {
    audit.powerValid = false;
    audit.metrics = new Map();
  }
  patchAggregate(agg, MULTINODE_METRIC_KEYS, audit.powerValid, audit.metrics);
  const validation = sidecar(audit, powerDir, benchResultPath, benchmark);
  if (!audit.powerValid) {
    return {
      validation,
      notice: `[aggregate_power_multinode] Power validation failed: ${audit.reasons.join(', ')} (details: ${validationFile})`,
      exitCode: settings.requirePower ? 1 : 0,
    };
  }
  const f2 = (key: string): string => pyFixed(audit.metrics.get(key) ?? 0.0, 2);
  return {
    validation,
    notice:
      `[aggregate_power_multinode] avg_power_w=${f2('avg_power_w')} total_gpu_energy_j=${f2('total_gpu_energy_j')} ` +
      `prefill_gpu_energy_j=${f2('prefill_gpu_energy_j')} decode_gpu_energy_j=${f2('decode_gpu_energy_j')} ` +
      `(n=${audit.expectedGpuCount}) -> ${aggPath}`,
    exitCode: 0,
  };
}
