import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MultiNodeRow, RowWorker, SingleNodeRow } from '../matrix/index.js';
import { isMultiNodeRow } from '../matrix/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { FEWSHOT_SEED, NUM_FEWSHOT, TASK, UNTIL } from './gsm8k.js';
import type { Gsm8kResult } from './gsm8k.js';
import { STDERR_NOT_AVAILABLE } from './score.js';

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
  totalDocs: number;
  maxRetries: number;
  timeoutMs: number;
  frontierVersion: string;
  started: Date;
  ended: Date;
}

/** lm-eval's file stamp: `2026-01-15T12-02-17.841203`. */
export const evalStamp = (d: Date): string => `${d.toISOString().slice(0, 23).replace(/:/g, '-')}000`;

const TASK_CONFIG = {
  task: TASK,
  tag: ['math_word_problems'],
  dataset_path: 'openai/gsm8k',
  dataset_name: 'main',
  training_split: 'train',
  test_split: 'test',
  fewshot_split: 'train',
  doc_to_text: 'Question: {{question}}\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:',
  doc_to_target: '{{answer}}',
  target_delimiter: ' ',
  fewshot_delimiter: '\n\n',
  num_fewshot: NUM_FEWSHOT,
  metric_list: [
    {
      metric: 'exact_match',
      aggregation: 'mean',
      higher_is_better: true,
      ignore_case: true,
      ignore_punctuation: false,
      regexes_to_ignore: [',', '\\$', '(?s).*#### ', '\\.$'],
    },
  ],
  output_type: 'generate_until',
  generation_kwargs: { until: UNTIL, do_sample: false, temperature: 0.0 },
  repeats: 1,
  filter_list: [
    {
      name: 'strict-match',
      filter: [{ function: 'regex', group_select: -1, regex_pattern: '#### (\\-?[0-9\\.\\,]+)' }, { function: 'take_first' }],
    },
    {
      name: 'flexible-extract',
      filter: [{ function: 'regex', group_select: -1, regex_pattern: '(-?[$0-9.,]{2,})|(-?[0-9]+)' }, { function: 'take_first' }],
    },
  ],
  should_decontaminate: false,
  metadata: { version: 3.0 },
};

/** lm-eval writes "N/A" for the stderr of fewer than two documents. */
const stderrOf = (x: number): number | string => (Number.isNaN(x) ? STDERR_NOT_AVAILABLE : x);

export function resultsJson(r: Gsm8kResult, info: EvalRunInfo): Record<string, unknown> {
  const model = info.endpoint === 'chat' ? 'local-chat-completions' : 'local-completions';
  const url = `${info.baseUrl.replace(/\/+$/, '')}/v1/${info.endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
  const n = r.samples.length;
  return {
    results: {
      [TASK]: {
        alias: TASK,
        'exact_match,strict-match': r.strict.mean,
        'exact_match_stderr,strict-match': stderrOf(r.strict.stderr),
        'exact_match,flexible-extract': r.flexible.mean,
        'exact_match_stderr,flexible-extract': stderrOf(r.flexible.stderr),
      },
    },
    group_subtasks: { [TASK]: [] },
    configs: { [TASK]: TASK_CONFIG },
    versions: { [TASK]: 3.0 },
    'n-shot': { [TASK]: NUM_FEWSHOT },
    higher_is_better: { [TASK]: { exact_match: true } },
    'n-samples': { [TASK]: { original: info.totalDocs, effective: n } },
    config: {
      model,
      model_args: `model=${info.model},base_url=${url},max_retries=${info.maxRetries},num_concurrent=${info.concurrency},timeout=${info.timeoutMs / 1000},tokenized_requests=False${info.maxLength ? `,max_length=${info.maxLength}` : ''}`,
      batch_size: 1,
      limit: info.limit ?? null,
      gen_kwargs: { max_tokens: info.maxTokens, temperature: 0.0, top_p: 1.0 },
      fewshot_seed: FEWSHOT_SEED,
    },
    date: info.started.getTime() / 1000,
    lm_eval_version: `frontier ${info.frontierVersion} (lm-eval 0.4.9.2 scoring)`,
    model_source: model,
    model_name: info.model,
    model_name_sanitized: info.model.replace(/\//g, '__'),
    max_length: info.maxLength ?? null,
    fewshot_as_multiturn: info.endpoint === 'chat',
    total_evaluation_time_seconds: String(r.durationS),
    frontier: {
      valid: r.valid,
      failed_requests: r.failed,
      failures: r.failures,
      interrupted: r.interrupted,
      started: info.started.toISOString(),
      ended: info.ended.toISOString(),
    },
  };
}

/** `results_<stamp><suffix>.json` and `samples_gsm8k_<stamp><suffix>.jsonl` in DIR; their paths. */
export function writeEvalOutputs(
  dir: string,
  r: Gsm8kResult,
  info: EvalRunInfo,
  suffix = '',
): { results: string; samples: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = evalStamp(info.started);
  const results = join(dir, `results_${stamp}${suffix}.json`);
  const samples = join(dir, `samples_${TASK}_${stamp}${suffix}.jsonl`);
  writeFileAtomic(samples, r.samples.map((s) => JSON.stringify(s)).join('\n') + (r.samples.length > 0 ? '\n' : ''));
  writeFileAtomic(results, `${JSON.stringify(resultsJson(r, info), null, 2)}\n`);
  return { results, samples };
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
