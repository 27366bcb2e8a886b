import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { answerKeys, checkEvalDir, dataDirFor, loadTask, maxTokensFor, readTaskFile } from '../evals/index.js';
import type { LoadedTask } from '../evals/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { EvalRecord } from './run-dir.js';

/**
 * A launch's eval, executor-independent: what a job script runs (`frontier eval run` with the
 * arguments below: the row's tasks, GSM8K unless its config names others in `eval-tasks`), and
 * what the run records once the eval folder holds its results (read back from the files, so a
 * local eval and one run inside a Slurm job end the same way).
 */

export interface EvalStep {
  baseUrl: string;
  model: string;
  maxModelLen: number;
  concs: number[];
  folder: string;
  rowFile: string;
  runner: string;
  /** Task files (built-in names resolved), in the order the row asks for them. */
  tasks: string[];
  /** The datasets folder (--eval-data), when given. */
  dataDir?: string | undefined;
  limit?: number | undefined;
}

export interface EvalSettings {
  /** Every task some row asks for, by the name rows use (`gsm8k`, a file path…), loaded with its docs. */
  tasks: ReadonlyMap<string, LoadedTask>;
  /** The datasets folder (--eval-data): job scripts read it there (a shared file system). */
  dataDir?: string | undefined;
  /** The tasks' answer keys, for simulated engines' evals double. */
  answersFile: string;
  limit?: number | undefined;
  /** The thresholds file the scores are held to (InferenceX's thresholds.yaml format); default: the reference's. */
  thresholdsFile?: string | undefined;
  timeoutMs?: number;
  maxRetries?: number;
  backoffMs?: number;
}

/**
 * The settings for the evals of `rows` (those with run-eval): every task they ask for, loaded
 * with its data; `answersFile` is where their answer keys go if a simulated engine serves them.
 */
export async function evalSettingsFor(
  rows: readonly { 'run-eval'?: boolean; 'eval-tasks'?: string[] }[],
  o: {
    dataDir?: string | undefined;
    answersFile: string;
    limit?: number | undefined;
    thresholdsFile?: string | undefined;
    log?: (line: string) => void;
  },
): Promise<EvalSettings> {
  const names = [...new Set(rows.filter((r) => r['run-eval']).flatMap((r) => rowEvalTasks(r)))];
  const tasks = new Map<string, LoadedTask>();
  let gsm8kDir: string | undefined;
  for (const name of names) {
    const spec = readTaskFile(name);
    const dir = await dataDirFor(spec, o.dataDir, o.log);
    if (spec.dataset.path === 'openai/gsm8k') gsm8kDir = dir;
    tasks.set(name, await loadTask(spec, dir));
  }
  return { tasks, dataDir: o.dataDir ?? gsm8kDir, answersFile: o.answersFile, limit: o.limit, thresholdsFile: o.thresholdsFile };
}

/** Writes the tasks' answer keys to `answersFile`, where the simulated engine reads them (its evals double). */
export function writeAnswerKeys(settings: EvalSettings): void {
  const keys = [...settings.tasks.values()].flatMap((t) => answerKeys(t).map((k) => JSON.stringify(k)));
  writeFileAtomic(settings.answersFile, `${keys.join('\n')}\n`, { mkdir: true });
}

/** The tasks a row asks for: its config's `eval-tasks` (Frontier catalogs), else GSM8K as InferenceX. */
export const rowEvalTasks = (row: { 'eval-tasks'?: string[] }): string[] => row['eval-tasks'] ?? ['gsm8k'];

/** `frontier eval run` arguments (after the command itself) for a job script. */
export function evalArgsOf(s: EvalStep): string[] {
  return [
    'eval',
    'run',
    ...s.tasks.flatMap((t) => ['--task', t]),
    ...(s.dataDir === undefined ? [] : ['--data', s.dataDir]),
    '--base-url',
    s.baseUrl,
    '--model',
    s.model,
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
  results?: Record<string, Record<string, unknown>>;
  frontier?: { valid?: boolean; failed_requests?: number; tasks?: Record<string, { requests?: number; unscored?: string }> };
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

/** What an eval folder says: scores per concurrency, task and metric, then validity and the threshold check. */
export function evalOutcome(
  folder: string,
  concs: number[],
  thresholdsFile?: string,
): Pick<EvalRecord, 'status' | 'error' | 'scores' | 'check'> {
  const batched = concs.length > 1;
  const scores: NonNullable<EvalRecord['scores']> = [];
  for (const conc of concs) {
    const file = resultsFileOf(folder, conc, batched);
    if (!file) return { status: 'error', error: `no eval result for conc ${conc} in ${folder}: the eval did not finish`, scores };
    const r = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
    const failed = r.frontier?.failed_requests ?? 0;
    for (const [task, metrics] of Object.entries(r.results ?? {}))
      for (const [key, value] of Object.entries(metrics))
        if (key.startsWith('exact_match,'))
          scores.push({
            conc,
            task,
            metric: key,
            score: Number(value),
            stderr: Number(metrics[key.replace(',', '_stderr,')]),
            failed,
          });
    if (r.frontier?.valid === false) {
      const tasks = Object.values(r.frontier.tasks ?? {});
      const requests = tasks.reduce((t, x) => t + (x.requests ?? 0), 0);
      return {
        status: 'invalid',
        error:
          tasks.find((x) => x.unscored)?.unscored ??
          `${failed} of ${requests || '?'} requests failed at conc ${conc} (over 5%): the score says nothing`,
        scores,
      };
    }
  }
  const check = checkEvalDir(folder, {
    expectedConcs: batched ? concs : undefined,
    ...(thresholdsFile === undefined ? {} : { thresholdsFile }),
  });
  return {
    status: check.exitCode === 0 ? 'passed' : 'failed',
    ...(check.exitCode === 0 ? {} : { error: check.stderr.trim() }),
    scores,
    check: check.lines.map((l) => l.text).join('\n'),
  };
}

/** A record's scores in one line: `gsm8k strict-match 0.9363; gsm8k flexible-extract 0.9363 (conc 64)…`. */
export function scoresLine(scores: NonNullable<EvalRecord['scores']>): string {
  const batched = new Set(scores.map((s) => s.conc)).size > 1;
  return scores
    .map((s) => `${s.task} ${s.metric.replace(/^exact_match,/, '')} ${s.score.toFixed(4)}${batched ? ` (conc ${s.conc})` : ''}`)
    .join('; ');
}
