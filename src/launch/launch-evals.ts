import { join } from 'node:path';
import type { Deployment } from '../engines/index.js';
import { evalInDir, maxTokensFor, metaEnvOf } from '../evals/index.js';
import type { PlannedEval } from '../plan/launches.js';
import { evalOutcome, rowEvalTasks, scoresLine } from './evals.js';
import type { EvalSettings } from './evals.js';
import type { EvalRecord, RunDir } from './run-dir.js';

/** The row's tasks at each eval's concurrencies against a launch's endpoint (local runs; a job runs `frontier eval run` itself). */
export async function runLaunchEvals(
  o: { dir: RunDir; deployment: Deployment; settings: EvalSettings; frontierVersion: string; signal: AbortSignal },
  evals: readonly PlannedEval[],
  baseUrl: string,
  note: (line: string) => void,
): Promise<void> {
  const d = o.deployment;
  for (const e of evals) {
    if (o.signal.aborted) return;
    const names = rowEvalTasks(e.row);
    note(`  eval ${names.join(', ')} at conc ${e.concs.join(', ')}`);
    await evalInDir({
      dir: join(o.dir.root, e.dir),
      baseUrl,
      model: d.servedModelName,
      endpoint: 'chat',
      tasks: names.map((n) => o.settings.tasks.get(n)!),
      limit: o.settings.limit,
      concurrencies: e.concs,
      maxTokens: maxTokensFor(d.maxModelLen),
      maxLength: d.maxModelLen,
      timeoutMs: o.settings.timeoutMs ?? 1_800_000,
      maxRetries: o.settings.maxRetries ?? 5,
      backoffMs: o.settings.backoffMs ?? 1000,
      resume: true,
      frontierVersion: o.frontierVersion,
      meta: (m) => metaEnvOf(e.row, { hw: e.row.runner, ...m }),
      signal: o.signal,
    });
  }
}

/** An eval's record from its folder, once the executor is done with the launch (`launchError`: why the launch failed, if it did). */
export function settleEval(
  record: EvalRecord,
  folder: string,
  e: PlannedEval,
  settings: EvalSettings | undefined,
  launchError: string | undefined,
): void {
  if (!settings)
    Object.assign(record, { status: 'error', error: 'no eval data: pass --eval-data DIR (GSM8K: or set FRONTIER_GSM8K)' });
  else {
    const outcome = evalOutcome(folder, e.concs, settings.thresholdsFile);
    Object.assign(record, outcome.status === 'error' && launchError ? { ...outcome, error: launchError } : outcome);
  }
}

export const evalLine = (record: EvalRecord): string => {
  const scores = scoresLine(record.scores ?? []);
  return `  eval ${record.status}${scores ? `: ${scores}` : ''}`;
};
