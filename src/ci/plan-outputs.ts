import type { MatrixRow } from '../matrix/index.js';
import type { OutputValue } from './output.js';
import type { CanarySplit, SweepPlan } from './plan.js';
import type { SweepJson } from './sweep-files.js';

/** `ci plan`'s step outputs: what the workflow's later jobs read (whether and how the sweep runs, its jobs and configs). */
export function sweepPlanOutputs(
  plan: SweepPlan,
  split: CanarySplit | undefined,
  jobs: MatrixRow[],
  json: SweepJson,
): Record<string, OutputValue> {
  return {
    run: plan.run,
    official: plan.official,
    'reuse-source-run': plan.reuseSourceRun ?? '',
    'ingest-args': [
      plan.official ? '--official' : '--unofficial',
      ...(plan.reuseSourceRun ? ['--source-run', plan.reuseSourceRun] : []),
    ].join(' '),
    reason: plan.reasons[0] ?? '',
    check: plan.check,
    'reuse-gate': plan.reuseGate,
    'trim-conc': plan.mode.trimConc,
    canary: plan.mode.canary && split?.canary !== undefined,
    'fail-fast': plan.mode.failFast,
    evals: plan.evals,
    'agentx-fast': plan.agentxFast,
    'skip-queue': plan.skipQueue,
    jobs: JSON.stringify(jobs),
    'search-space-config': json.sweep,
    'canary-config': json.canary,
    'remaining-search-space-config': json.rest,
  };
}
