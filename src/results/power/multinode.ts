/**
 * The multinode power step (the reference's `utils/aggregate_power_multinode.py`), for the case
 * without usable telemetry: the srt-slurm power package (manifest.json, samples.csv, windows/) is
 * checked before the benchmark; its own reasons come first. Integrating a present package is not
 * implemented here: a point that has one is refused rather than misreported.
 */
import { pyPath } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import { ResultsError } from '../errors.js';
import type { PointIdentity } from '../identity.js';
import type { PowerOutcome, PowerSettings } from './settings.js';
import {
  INTEGRATION_METHOD,
  ROLE_METRIC_KEYS,
  WHOLE_METRIC_KEYS,
  appendReason,
  benchmarkWindowJson,
  loadBenchmarkData,
  patchAggregate,
} from './common.js';
import type { TelemetryFiles } from './common.js';

function unsupported(path: string): never {
  throw new ResultsError(
    `${path}: power telemetry is present, but Frontier cannot integrate it yet (the reference's aggregate_power step)`,
    undefined,
    'process this point with the reference utils/process_result.py, or move the telemetry aside to record power_valid 0',
  );
}

export function multinodePowerStep(
  raw: unknown,
  identity: PointIdentity,
  agg: Map<string, PyJson>,
  settings: PowerSettings,
  files: TelemetryFiles,
): PowerOutcome {
  const rf = identity.resultFilename;
  const benchmarkResult = pyPath(`${rf}.json`);
  const validationFile = pyPath(`power_validation_${rf}.json`);
  const { benchmark, reasons: benchmarkReasons } = loadBenchmarkData(raw);
  const exitCode = settings.requirePower ? 1 : 0;
  const dir = pyPath(settings.powerArtifactDir ?? 'LOGS/power');
  const auditReasons: string[] = [];
  const failures: string[] = [];
  if (files.kind(dir) !== 'dir') {
    auditReasons.push('power_artifacts_missing');
    failures.push(`power dir missing: ${dir}`);
  } else {
    const manifest = pyPath(`${dir}/manifest.json`);
    if (['file', 'empty-file'].includes(files.kind(manifest))) unsupported(manifest);
    auditReasons.push('manifest_missing');
    failures.push(`manifest missing: ${manifest}`);
  }
  for (const reason of benchmarkReasons) appendReason(auditReasons, reason);
  patchAggregate(agg, [...WHOLE_METRIC_KEYS, ...ROLE_METRIC_KEYS], false, new Map());
  const validation = new Map<string, PyJson>([
    ['schema_version', 1],
    ['power_valid', false],
    ['reasons', auditReasons],
    ['failures', failures],
    ['telemetry_source', dir],
    ['benchmark_result', benchmarkResult],
    ['benchmark_window', benchmarkWindowJson(benchmark)],
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
