import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MultiNodeRow, RowWorker, SingleNodeRow } from '../matrix/index.js';
import { isMultiNodeRow } from '../matrix/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { TaskResult } from './task-run.js';
import { STDERR_NOT_AVAILABLE } from './scoring.js';

/**
 * What an eval leaves, in the shapes InferenceX's collectors read: lm-eval's results JSON
 * (`results.gsm8k["exact_match,strict-match"]`…, `n-samples`, `config`, `lm_eval_version`), the
 * samples JSONL, and `meta_env.json` with the row's identity as `append_lm_eval_summary` writes it.
 */

export interface EvalRunInfo {
  model: string;
  baseUrl: string;
  endpoint: 'chat' | 'completions';
  concurrency: number;
  maxTokens: number;
  /** The context length max_tokens was derived from, when known. */
  maxLength?: number | undefined;
  limit?: number | undefined;
  /** Docs in each task's eval split (n-samples original). */
  totalDocs: Record<string, number>;
  maxRetries: number;
  timeoutMs: number;
  temperature?: number | undefined;
  topP?: number | undefined;
  fewshotSeed: number;
  frontierVersion: string;
  started: Date;
  ended: Date;
}

/** lm-eval's file stamp: `2026-01-15T12-02-17.841203`. */
export const evalStamp = (d: Date): string => `${d.toISOString().slice(0, 23).replace(/:/g, '-')}000`;

/** lm-eval writes "N/A" for the stderr of fewer than two documents. */
const stderrOf = (x: number): number | string => (Number.isNaN(x) ? STDERR_NOT_AVAILABLE : x);

const byTask = <T>(results: readonly TaskResult[], f: (r: TaskResult) => T): Record<string, T> =>
  Object.fromEntries(results.map((r) => [r.task.task, f(r)]));

/** lm-eval's results JSON for the tasks of one run, with a `frontier` block (validity, failures, repeats). */
export function resultsJson(results: readonly TaskResult[], info: EvalRunInfo): Record<string, unknown> {
  const model = info.endpoint === 'chat' ? 'local-chat-completions' : 'local-completions';
  const url = `${info.baseUrl.replace(/\/+$/, '')}/v1/${info.endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
  const genKwargs: Record<string, unknown> = { max_tokens: info.maxTokens };
  if (info.temperature !== undefined) genKwargs.temperature = info.temperature;
  if (info.topP !== undefined) genKwargs.top_p = info.topP;
  return {
    results: byTask(results, (r) => {
      const out: Record<string, unknown> = { alias: r.task.task };
      for (const [key, a] of Object.entries(r.metrics)) {
        const [metric, filter] = key.split(',');
        out[key] = a.mean;
        out[`${metric}_stderr,${filter}`] = stderrOf(a.stderr);
      }
      return out;
    }),
    group_subtasks: byTask(results, () => []),
    configs: byTask(results, (r) => r.task.config),
    versions: byTask(results, (r) => r.task.version ?? null),
    'n-shot': byTask(results, (r) => r.task.numFewshot),
    higher_is_better: byTask(results, (r) => Object.fromEntries(r.task.metrics.map((m) => [m.metric, m.higherIsBetter]))),
    'n-samples': byTask(results, (r) => ({
      original: info.totalDocs[r.task.task] ?? r.samples.length,
      effective: r.samples.length,
    })),
    config: {
      model,
      model_args: `model=${info.model},base_url=${url},max_retries=${info.maxRetries},num_concurrent=${info.concurrency},timeout=${info.timeoutMs / 1000},tokenized_requests=False${info.maxLength ? `,max_length=${info.maxLength}` : ''}`,
      batch_size: 1,
      limit: info.limit ?? null,
      gen_kwargs: genKwargs,
      fewshot_seed: info.fewshotSeed,
    },
    date: info.started.getTime() / 1000,
    lm_eval_version: `frontier ${info.frontierVersion} (lm-eval 0.4.9.2 scoring)`,
    model_source: model,
    model_name: info.model,
    model_name_sanitized: info.model.replace(/\//g, '__'),
    max_length: info.maxLength ?? null,
    fewshot_as_multiturn: info.endpoint === 'chat',
    total_evaluation_time_seconds: String(results.reduce((t, r) => t + r.durationS, 0)),
    frontier: {
      valid: results.every((r) => r.valid),
      failed_requests: results.reduce((t, r) => t + r.failed, 0),
      failures: mergeCounts(results.map((r) => r.failures)),
      interrupted: results.some((r) => r.interrupted),
      started: info.started.toISOString(),
      ended: info.ended.toISOString(),
      tasks: byTask(results, (r) => ({
        valid: r.valid,
        ...(r.unscored === undefined ? {} : { unscored: r.unscored }),
        requests: r.requests,
        failed_requests: r.failed,
        repeats: r.task.repeats,
      })),
    },
  };
}

function mergeCounts(counts: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of counts) for (const [k, v] of Object.entries(c)) out[k] = (out[k] ?? 0) + v;
  return out;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * A task's samples in lm-eval's `--log_samples` form: one line per document and filter, with the
 * prompt, every response, what the filter kept and the document's score; Frontier adds the
 * request failure (`error`, `failed_requests`) and `attempts`.
 */
export function sampleLines(r: TaskResult): string[] {
  const lines: string[] = [];
  for (const s of r.samples) {
    const prompt = typeof s.prompt === 'string' ? s.prompt : JSON.stringify(s.prompt);
    for (const f of r.task.filters) {
      const line: Record<string, unknown> = {
        doc_id: s.doc_id,
        doc: s.doc,
        target: s.target,
        arguments: { gen_args_0: { arg_0: prompt } },
        resps: [s.resps],
        filtered_resps: [s.filtered_resps[f.name]],
        filter: f.name,
        metrics: r.task.metrics.map((m) => m.metric),
        doc_hash: sha256(JSON.stringify(s.doc, null, 2)),
        prompt_hash: sha256(prompt),
        target_hash: sha256(s.target),
      };
      for (const m of r.task.metrics) line[m.metric] = s.scores[`${m.metric},${f.name}`];
      if (s.error !== undefined) Object.assign(line, { error: s.error, failed_requests: s.failed });
      line.attempts = s.attempts;
      lines.push(JSON.stringify(line));
    }
  }
  return lines;
}

/** `results_<stamp><suffix>.json` and one `samples_<task>_<stamp><suffix>.jsonl` per task in DIR; their paths. */
export function writeEvalOutputs(
  dir: string,
  results: readonly TaskResult[],
  info: EvalRunInfo,
  suffix = '',
): { results: string; samples: string[] } {
  mkdirSync(dir, { recursive: true });
  const stamp = evalStamp(info.started);
  const samples = results.map((r) => {
    const file = join(dir, `samples_${r.task.task}_${stamp}${suffix}.jsonl`);
    const lines = sampleLines(r);
    writeFileAtomic(file, lines.join('\n') + (lines.length > 0 ? '\n' : ''));
    return file;
  });
  const file = join(dir, `results_${stamp}${suffix}.json`);
  writeFileAtomic(file, `${JSON.stringify(resultsJson(results, info), null, 2)}\n`);
  return { results: file, samples };
}

/**
 * `meta_env.json` for a matrix row, as the reference's `append_lm_eval_summary` writes it
 * (numbers as numbers, isl/osl as strings). Single-node rows keep their own ep and dp-attention
 * (the reference records ep 1 / false there: a bug, see the evals goldens' README).
 */
export function metaEnvOf(
  row: SingleNodeRow | MultiNodeRow,
  o: { hw: string; conc: number; evalConcs?: number[]; completed?: number[]; failed?: number[] },
): Record<string, unknown> {
  type Shape = Pick<RowWorker, 'tp' | 'pp' | 'ep' | 'dp-attn' | 'dcp-size' | 'pcp-size'>;
  const worker = (w: Shape, workers: number, prefix: string): Record<string, unknown> => ({
    [`${prefix}_tp`]: w.tp,
    [`${prefix}_pp`]: w.pp,
    [`${prefix}_dcp_size`]: w['dcp-size'],
    [`${prefix}_pcp_size`]: w['pcp-size'],
    [`${prefix}_ep`]: w.ep,
    [`${prefix}_dp_attention`]: w['dp-attn'],
    [`${prefix}_num_workers`]: workers,
  });
  const multi = isMultiNodeRow(row);
  // The top-level shape: a multinode row's prefill workers, as the reference records it.
  const lead: Shape = multi ? row.prefill : row;
  const fingerprint = (row as { 'recipe-fingerprint'?: string })['recipe-fingerprint'];
  return {
    is_multinode: multi,
    framework: row.framework,
    precision: row.precision,
    spec_decoding: row['spec-decoding'],
    ...(fingerprint === undefined ? {} : { recipe_fingerprint: fingerprint }),
    tp: lead.tp,
    pp: lead.pp,
    dcp_size: lead['dcp-size'],
    pcp_size: lead['pcp-size'],
    conc: o.conc,
    ...(o.evalConcs
      ? { eval_concs: o.evalConcs, completed_eval_concs: o.completed ?? [], failed_eval_concs: o.failed ?? [] }
      : {}),
    ep: lead.ep,
    dp_attention: lead['dp-attn'],
    ...worker(lead, multi ? row.prefill['num-worker'] : 1, 'prefill'),
    ...worker(multi ? row.decode : row, multi ? row.decode['num-worker'] : 1, 'decode'),
    model: row.model,
    infmax_model_prefix: row['model-prefix'],
    hw: o.hw,
    isl: String(row.isl),
    osl: String(row.osl),
  };
}

export function writeMetaEnv(dir: string, meta: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, 'meta_env.json'), `${JSON.stringify(meta, null, 2)}\n`);
}
