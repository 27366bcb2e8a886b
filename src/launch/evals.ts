import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkEvalDir, maxTokensFor } from '../evals/index.js';
import type { EvalRecord } from './run-dir.js';

/**
 * A launch's GSM8K eval, executor-independent: what a job script runs (`frontier eval gsm8k`
 * with the arguments below), and what the run records once the eval folder holds its results
 * (read back from the files, so a local eval and one run inside a Slurm job end the same way).
 */

export interface EvalStep {
  baseUrl: string;
  model: string;
  maxModelLen: number;
  concs: number[];
  folder: string;
  rowFile: string;
  runner: string;
  datasetDir: string;
  limit?: number | undefined;
}

/** `frontier eval gsm8k` arguments (after the command itself) for a job script. */
export function evalArgsOf(s: EvalStep): string[] {
  return [
    'eval',
    'gsm8k',
    '--base-url',
    s.baseUrl,
    '--model',
    s.model,
    '--dataset',
    s.datasetDir,
    '--concurrency',
    ...s.concs.map(String),
    '--max-tokens',
    String(maxTokensFor(s.maxModelLen)),
    '--max-model-len',
    String(s.maxModelLen),
    ...(s.limit === undefined ? [] : ['--limit', String(s.limit)]),
    '--out',
    s.folder,
    '--row',
    s.rowFile,
    '--runner',
    s.runner,
    '--resume',
  ];
}

interface ResultsFile {
  results?: { gsm8k?: Record<string, unknown> };
  'n-samples'?: { gsm8k?: { effective?: number } };
  frontier?: { valid?: boolean; failed_requests?: number };
}

/** The newest results file of one concurrency (`_conc<N>` when the eval is batched). */
function resultsFileOf(folder: string, conc: number, batched: boolean): string | undefined {
  if (!existsSync(folder)) return undefined;
  const pattern = batched ? new RegExp(`^results_[0-9T.-]+_conc${conc}\\.json$`) : /^results_[0-9T.-]+\.json$/;
  const name = readdirSync(folder)
    .filter((f) => pattern.test(f))
    .sort()
    .at(-1);
  return name === undefined ? undefined : join(folder, name);
}

/** What an eval folder says: scores per concurrency, then validity and the threshold check. */
export function evalOutcome(folder: string, concs: number[]): Pick<EvalRecord, 'status' | 'error' | 'scores' | 'check'> {
  const batched = concs.length > 1;
  const scores: NonNullable<EvalRecord['scores']> = [];
  for (const conc of concs) {
    const file = resultsFileOf(folder, conc, batched);
    if (!file)
      return { status: 'error', error: `no GSM8K result for conc ${conc} in ${folder}: the eval did not finish`, scores };
    const r = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
    const metrics = r.results?.gsm8k ?? {};
    const failed = r.frontier?.failed_requests ?? 0;
    scores.push({
      conc,
      strict: Number(metrics['exact_match,strict-match']),
      flexible: Number(metrics['exact_match,flexible-extract']),
      failed,
    });
    if (r.frontier?.valid === false)
      return {
        status: 'invalid',
        error: `${failed} of ${r['n-samples']?.gsm8k?.effective ?? '?'} requests failed at conc ${conc} (over 5%): the score says nothing`,
        scores,
      };
  }
  const check = checkEvalDir(folder, { expectedConcs: batched ? concs : undefined });
  return {
    status: check.exitCode === 0 ? 'passed' : 'failed',
    ...(check.exitCode === 0 ? {} : { error: check.stderr.trim() }),
    scores,
    check: check.lines.map((l) => l.text).join('\n'),
  };
}
