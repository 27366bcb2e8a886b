import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Gsm8kDoc } from './dataset.js';
import { appendSample, readSamples, runGsm8k } from './gsm8k.js';
import type { Gsm8kResult } from './gsm8k.js';
import { writeEvalOutputs, writeMetaEnv } from './outputs.js';
import { UserError } from '../util/user-error.js';

/**
 * One eval directory: GSM8K at each of the asked concurrencies against one server (several:
 * the reference's batched evals, results suffixed `_conc<N>`), each result written whole when
 * its concurrency finishes, finished samples kept in a partial file so that an interrupted eval
 * resumes where it stopped, and `meta_env.json` (when the row is known) listing the
 * concurrencies completed and failed.
 */

export interface EvalDirOptions {
  dir: string;
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  apiKey?: string | undefined;
  test: readonly Gsm8kDoc[];
  train: readonly Gsm8kDoc[];
  limit?: number | undefined;
  concurrencies: number[];
  maxTokens: number;
  maxLength?: number | undefined;
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
  onProgress?: (conc: number, done: number, total: number) => void;
  signal?: AbortSignal | undefined;
}

export interface EvalConcResult {
  conc: number;
  result: Gsm8kResult;
  files: { results: string; samples: string } | undefined;
}

export class EvalDirError extends UserError {}

export const partialFile = (dir: string, suffix: string): string => join(dir, `.samples_gsm8k${suffix}.partial.jsonl`);

export async function evalInDir(o: EvalDirOptions): Promise<EvalConcResult[]> {
  mkdirSync(o.dir, { recursive: true });
  const batched = o.concurrencies.length > 1;
  const suffixOf = (c: number): string => (batched ? `_conc${c}` : '');
  if (!o.resume) {
    const stale = o.concurrencies.map((c) => partialFile(o.dir, suffixOf(c))).filter((f) => existsSync(f));
    if (stale.length > 0)
      throw new EvalDirError(
        `${stale[0]}: an interrupted eval's samples are here; pass --resume to continue it, or use another output folder`,
      );
  }
  const out: EvalConcResult[] = [];
  for (const conc of o.concurrencies) {
    if (o.signal?.aborted) break;
    const partial = partialFile(o.dir, suffixOf(conc));
    const started = new Date();
    const result = await runGsm8k({
      baseUrl: o.baseUrl,
      model: o.model,
      endpoint: o.endpoint,
      apiKey: o.apiKey,
      docs: o.test,
      train: o.train,
      limit: o.limit,
      concurrency: conc,
      maxTokens: o.maxTokens,
      numFewshot: o.numFewshot,
      fewshotSeed: o.fewshotSeed,
      timeoutMs: o.timeoutMs,
      maxRetries: o.maxRetries,
      backoffMs: o.backoffMs,
      done: readSamples(partial),
      onSample: (s) => appendSample(partial, s),
      onProgress: (d, t) => o.onProgress?.(conc, d, t),
      signal: o.signal,
    });
    if (result.interrupted) {
      out.push({ conc, result, files: undefined });
      break;
    }
    const files = writeEvalOutputs(
      o.dir,
      result,
      {
        model: o.model,
        baseUrl: o.baseUrl,
        endpoint: o.endpoint,
        concurrency: conc,
        maxTokens: o.maxTokens,
        maxLength: o.maxLength,
        limit: o.limit,
        totalDocs: o.test.length,
        maxRetries: o.maxRetries,
        timeoutMs: o.timeoutMs,
        frontierVersion: o.frontierVersion,
        started,
        ended: new Date(),
      },
      suffixOf(conc),
    );
    rmSync(partial, { force: true });
    out.push({ conc, result, files });
  }
  if (o.meta) {
    const completed = out.filter((r) => r.files && r.result.valid).map((r) => r.conc);
    const failed = out.filter((r) => r.files && !r.result.valid).map((r) => r.conc);
    writeMetaEnv(
      o.dir,
      batched
        ? o.meta({ conc: o.concurrencies[0]!, evalConcs: o.concurrencies, completed, failed })
        : o.meta({ conc: o.concurrencies[0]! }),
    );
  }
  return out;
}
