import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedTask } from './load-task.js';
import { writeEvalOutputs, writeMetaEnv } from './outputs.js';
import { appendSample, readSamples, runTask } from './task-run.js';
import type { TaskResult } from './task-run.js';
import { UserError } from '../util/user-error.js';

/**
 * One eval directory: the tasks at each of the asked concurrencies against one server (several:
 * the reference's batched evals, results suffixed `_conc<N>`), one results file per concurrency
 * holding every task (as lm-eval writes `--tasks a,b`), written whole when its concurrency
 * finishes; finished samples kept in a partial file per task so that an interrupted eval resumes
 * where it stopped; and `meta_env.json` (when the row is known) listing the concurrencies
 * completed and failed.
 */

export interface EvalDirOptions {
  dir: string;
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string | undefined;
  tasks: readonly LoadedTask[];
  limit?: number | undefined;
  concurrencies: number[];
  maxTokens: number;
  maxLength?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  fewshotSeed?: number | undefined;
  numFewshot?: number | undefined;
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
  resume?: boolean | undefined;
  frontierVersion: string;
  /** The row's meta_env.json fields, given the concurrency lists (absent: no meta_env.json). */
  meta?:
    ((o: { conc: number; evalConcs?: number[]; completed?: number[]; failed?: number[] }) => Record<string, unknown>) | undefined;
  onProgress?: (conc: number, task: string, done: number, total: number) => void;
  signal?: AbortSignal | undefined;
}

export interface EvalConcResult {
  conc: number;
  /** One per task, in the order asked (fewer when interrupted). */
  results: TaskResult[];
  files: { results: string; samples: string[] } | undefined;
}

export const partialFile = (dir: string, task: string, suffix: string): string =>
  join(dir, `.samples_${task}${suffix}.partial.jsonl`);

/** Whether a concurrency's results count: every task valid and finished. */
export const concValid = (r: EvalConcResult): boolean => r.results.every((t) => t.valid && !t.interrupted);

export async function evalInDir(o: EvalDirOptions): Promise<EvalConcResult[]> {
  mkdirSync(o.dir, { recursive: true });
  const batched = o.concurrencies.length > 1;
  const suffixOf = (c: number): string => (batched ? `_conc${c}` : '');
  if (!o.resume) {
    const stale = o.concurrencies
      .flatMap((c) => o.tasks.map((t) => partialFile(o.dir, t.spec.task, suffixOf(c))))
      .filter((f) => existsSync(f));
    if (stale.length > 0)
      throw new UserError(
        `${stale[0]}: an interrupted eval's samples are here; pass --resume to continue it, or use another output folder`,
      );
  }
  const out: EvalConcResult[] = [];
  for (const conc of o.concurrencies) {
    if (o.signal?.aborted) break;
    const started = new Date();
    const results: TaskResult[] = [];
    for (const t of o.tasks) {
      if (o.signal?.aborted) break;
      const partial = partialFile(o.dir, t.spec.task, suffixOf(conc));
      results.push(
        await runTask({
          baseUrl: o.baseUrl,
          model: o.model,
          endpoint: o.endpoint,
          apiKey: o.apiKey,
          task: t.spec,
          docs: t.docs,
          fewshot: t.fewshot,
          fewshotIsEval: t.fewshotIsEval,
          limit: o.limit,
          concurrency: conc,
          maxTokens: Math.min(o.maxTokens, t.spec.generation.maxGenToks ?? Infinity),
          temperature: o.temperature,
          topP: o.topP,
          numFewshot: o.numFewshot,
          fewshotSeed: o.fewshotSeed,
          timeoutMs: o.timeoutMs,
          maxRetries: o.maxRetries,
          backoffMs: o.backoffMs,
          done: readSamples(partial),
          onSample: (s) => appendSample(partial, s),
          onProgress: (d, n) => o.onProgress?.(conc, t.spec.task, d, n),
          signal: o.signal,
        }),
      );
      if (results.at(-1)!.interrupted) break;
    }
    if (results.length < o.tasks.length || results.some((r) => r.interrupted)) {
      out.push({ conc, results, files: undefined });
      break;
    }
    const files = writeEvalOutputs(
      o.dir,
      results,
      {
        model: o.model,
        baseUrl: o.baseUrl,
        endpoint: o.endpoint,
        concurrency: conc,
        maxTokens: o.maxTokens,
        maxLength: o.maxLength,
        limit: o.limit,
        totalDocs: Object.fromEntries(o.tasks.map((t) => [t.spec.task, t.docs.length])),
        maxRetries: o.maxRetries,
        timeoutMs: o.timeoutMs,
        temperature: o.temperature,
        topP: o.topP,
        fewshotSeed: o.fewshotSeed ?? 1234,
        frontierVersion: o.frontierVersion,
        started,
        ended: new Date(),
      },
      suffixOf(conc),
    );
    for (const t of o.tasks) rmSync(partialFile(o.dir, t.spec.task, suffixOf(conc)), { force: true });
    out.push({ conc, results, files });
  }
  if (o.meta) {
    const completed = out.filter((r) => r.files && concValid(r)).map((r) => r.conc);
    const failed = out.filter((r) => r.files && !concValid(r)).map((r) => r.conc);
    writeMetaEnv(
      o.dir,
      batched
        ? o.meta({ conc: o.concurrencies[0]!, evalConcs: o.concurrencies, completed, failed })
        : o.meta({ conc: o.concurrencies[0]! }),
    );
  }
  return out;
}
