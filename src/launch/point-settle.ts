import { isAgenticRow } from '../matrix/index.js';
import type { PlannedPoint } from '../plan/launches.js';
import { PythonError, loads } from '../pycompat/index.js';
import { fsTelemetry, identityFromRow, processResult } from '../results/index.js';
import { finishAgenticPoint } from './agentic.js';
import type { PointOutcome } from './point-outcome.js';
import { agenticPower, powerSettingsOf, settlePower } from './power.js';
import type { NodeBounds } from '../results/index.js';
import type { PointRecord, RunDir } from './run-dir.js';

/**
 * A measured point into its record and files: the raw result, its aggregate and power verdict (as
 * process_result.py makes them), or an agentic replay's summary; a failed or invalid one with why.
 */
export function settlePoint(
  run: { dir: RunDir; node: NodeBounds; requirePower: boolean },
  p: PlannedPoint,
  record: PointRecord,
  outcome: PointOutcome,
): void {
  const { dir, requirePower } = run;
  record.ended = new Date().toISOString();
  if (outcome.status === 'failed') {
    record.status = 'failed';
    record.error = outcome.error;
  } else if ('agentic' in outcome) {
    const { problems, summary } = finishAgenticPoint(dir, p, outcome.logDir, outcome.problems);
    Object.assign(record, summary);
    if (problems.length === 0) settlePower(record, agenticPower(dir, p, requirePower, run.node), requirePower);
    else Object.assign(record, { status: 'invalid', error: problems.join('; ') });
  } else if (isAgenticRow(p.row)) {
    record.status = 'failed';
    record.error = 'the executor measured an agentic-coding point as a fixed-length one';
  } else {
    const repeat = p.repeat?.index;
    dir.writeRaw(p.resultFilename, outcome.raw, repeat);
    if (outcome.profile) record.profile = outcome.profile;
    if (outcome.status !== 'ok') Object.assign(record, { status: 'invalid', error: outcome.problems.join('; ') });
    else {
      // The power step reads the telemetry from the run directory, as process_result.py from its workspace.
      const identity = identityFromRow(p.row, { runner: p.row.runner, resultFilename: p.resultFilename });
      const processed = processedOrWhy(() =>
        processResult(loads(outcome.raw), identity, {
          settings: powerSettingsOf(outcome.telemetry, requirePower, run.node),
          files: fsTelemetry(dir.root),
        }),
      );
      if (typeof processed === 'string') {
        Object.assign(record, { status: 'invalid', error: processed });
        return;
      }
      dir.writeAggWithPower(
        p.resultFilename,
        processed.aggJson,
        processed.powerValidationFile,
        processed.powerValidationJson,
        repeat,
      );
      record.outputTputPerGpu = Number(processed.agg.output_tput_per_gpu);
      record.interactivity = Number(processed.agg.median_intvty);
      record.medianTtftMs = Number(processed.agg.median_ttft) * 1000;
      settlePower(record, processed.powerValidation, requirePower);
    }
  }
}

/**
 * process_result.py's verdict on a raw result: its aggregate, or why it has none (a measurement it
 * cannot aggregate, such as a median TPOT of 0 when no request streamed a second token, on which
 * InferenceX's script stops with a Python error): the point is invalid, and says why.
 */
function processedOrWhy<T>(process: () => T): T | string {
  try {
    return process();
  } catch (e) {
    if (e instanceof PythonError) return `process_result: ${e.describe()}`;
    throw e;
  }
}
