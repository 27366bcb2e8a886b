/**
 * The power step `process_result.py` runs after writing the aggregate: the single-node step
 * (`utils/aggregate_power.py`) or the multinode one (`utils/aggregate_power_multinode.py`), and
 * `record_power_internal_error` when either fails unexpectedly.
 */
import { pyPath } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import type { PointIdentity } from '../identity.js';
import { ROLE_POWER_KEYS, WHOLE_POWER_KEYS, patchAggregate } from './common.js';
import type { TelemetryFiles } from './common.js';
import { NO_TELEMETRY_FILES } from './files.js';
import { multinodePowerStep } from './multinode.js';
import type { PowerOutcome, PowerSettings } from './settings.js';
import { PowerInternalError, emptyIntegration, runSingleNode, validationPayload } from './single-node.js';

/** `GPU_METRICS_CSV`, `gpu_metrics.csv`, `/workspace/gpu_metrics.csv`: the first that is a file, else the first given. */
export function singleNodeCsvPath(settings: PowerSettings, files: TelemetryFiles): string {
  const candidates = [settings.gpuMetricsCsv, 'gpu_metrics.csv', '/workspace/gpu_metrics.csv'].filter((p): p is string => !!p);
  return candidates.find((p) => ['file', 'empty-file'].includes(files.kind(p))) ?? candidates[0]!;
}

/**
 * `record_power_internal_error`: the aggregate marked invalid (every whole and role metric gone)
 * and a sidecar with `aggregation_internal_error` and the error's type and message.
 */
export function internalErrorOutcome(
  error: PowerInternalError,
  agg: Map<string, PyJson>,
  p: { csvPath: string; benchResultPath: string; expectedGpus: number; requirePower: boolean },
): PowerOutcome {
  const reasons = ['aggregation_internal_error'];
  patchAggregate(agg, [...WHOLE_POWER_KEYS, ...ROLE_POWER_KEYS], false, new Map());
  const validation = validationPayload({
    csvPath: p.csvPath,
    benchResultPath: p.benchResultPath,
    benchmark: undefined,
    integration: emptyIntegration(p.expectedGpus, reasons),
    valid: false,
    reasons,
    metrics: new Map(),
    accumulatorCheck: null,
  });
  validation.set(
    'internal_error',
    new Map<string, PyJson>([
      ['type', error.pythonType],
      ['message', Array.from(error.message).slice(0, 500).join('')],
    ]),
  );
  return { validation, notice: `[process_result] power aggregation failed: ${error.message}`, exitCode: p.requirePower ? 1 : 0 };
}

/**
 * Run the power step on a written aggregate: patches `agg` in place and returns the sidecar and
 * the step's message. Telemetry is read through `files` (default: none anywhere).
 */
export function powerStep(
  raw: unknown,
  identity: PointIdentity,
  agg: Map<string, PyJson>,
  settings: PowerSettings,
  files: TelemetryFiles = NO_TELEMETRY_FILES,
): PowerOutcome {
  const t = identity.topology;
  const rf = identity.resultFilename;
  const benchResultPath = `${rf}.json`;
  if (t.kind === 'multinode') {
    try {
      return multinodePowerStep(raw, identity, agg, settings, files);
    } catch (e) {
      if (!(e instanceof PowerInternalError)) throw e;
      const csvPath = pyPath(settings.powerArtifactDir ?? 'LOGS/power');
      return internalErrorOutcome(e, agg, {
        csvPath,
        benchResultPath,
        expectedGpus: t.prefillGpus + t.decodeGpus,
        requirePower: settings.requirePower,
      });
    }
  }
  const csvPath = singleNodeCsvPath(settings, files);
  const expectedGpus = t.tp * t.pp * t.pcpSize;
  const validationPath = `power_validation_${rf}.json`;
  try {
    const result = runSingleNode(
      {
        csvPath,
        benchResultPath,
        bench: { kind: 'parsed', raw },
        aggPath: `agg_${rf}.json`,
        agg: { kind: 'parsed', agg },
        expectedGpus,
        ...(settings.node ? { node: settings.node } : {}),
        validationPath,
        requirePower: settings.requirePower,
      },
      files,
    );
    const stdout = result.stdout.join('\n');
    const stderr = result.stderr.join('\n');
    return stdout
      ? {
          validation: result.validation,
          notice: stderr ? `${stderr}\n${stdout}` : stdout,
          noticeOn: stderr ? 'stderr' : 'stdout',
          exitCode: result.exitCode,
        }
      : { validation: result.validation, notice: stderr, exitCode: result.exitCode };
  } catch (e) {
    if (!(e instanceof PowerInternalError)) throw e;
    return internalErrorOutcome(e, agg, { csvPath, benchResultPath, expectedGpus, requirePower: settings.requirePower });
  }
}
