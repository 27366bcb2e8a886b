import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { maxTokensFor } from './task-run.js';
import { UserError } from '../util/user-error.js';

/**
 * What lm-evaluation-harness's `python3 -m lm_eval` becomes under the stand-ins, as InferenceX's
 * run_lm_eval calls it: `frontier eval run` with the same meaning (the tasks, the server and
 * model from --model_args, its concurrency, context length, timeout and retries, the sampling of
 * --gen_kwargs, --limit), writing lm-eval's files where lm-eval would:
 * `<output_path>/<model, sanitized>/results_*.json` and `samples_<task>_*.jsonl`. The datasets are
 * the run's (`--eval-data`, as $FRONTIER_EVAL_DATA), else frontier eval run's own. What Frontier's
 * eval cannot express is refused by name.
 */

const MODEL_ARGS = new Set([
  'model',
  'base_url',
  'api_key',
  'num_concurrent',
  'timeout',
  'max_retries',
  'max_length',
  'tokenized_requests',
  'eos_string',
]);
const GEN_KWARGS = new Set(['max_tokens', 'max_gen_toks', 'temperature', 'top_p']);
const ENDPOINTS: Record<string, string> = { 'local-chat-completions': 'chat', 'local-completions': 'completions' };

function refuse(what: string, hint?: string): never {
  throw new UserError(`lm_eval stand-in: ${what}`, hint ? { hint } : {});
}

/** `k=v,k=v` (lm-eval's --model_args and --gen_kwargs). */
function pairs(text: string, flag: string, known: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of text.split(',').filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) refuse(`${flag}: expected key=value, got '${item}'`);
    const key = item.slice(0, eq);
    if (!known.has(key)) refuse(`${flag}: ${key} is not supported`, `supported: ${[...known].join(', ')}`);
    out.set(key, item.slice(eq + 1));
  }
  return out;
}

/** lm-eval's directory name for a model: runs of `"<>:/|\?*[]` become `__`. */
export const sanitizedModel = (model: string): string => model.replace(/["<>:/|\\?*[\]]+/g, '__');

/** `lm_eval ARGS…` (after `-m lm_eval`) as `frontier eval run` arguments. */
export function lmEvalArgs(args: readonly string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): string[] {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) refuse(`unexpected argument '${a}'`);
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (name === 'apply_chat_template' || name === 'log_samples') flags.set(name, true);
    else if (eq > 0) flags.set(name, a.slice(eq + 1));
    else if (i + 1 < args.length) flags.set(name, args[++i]!);
    else refuse(`--${name} needs a value`);
  }
  const known = [
    'model',
    'tasks',
    'output_path',
    'model_args',
    'gen_kwargs',
    'limit',
    'include_path',
    'apply_chat_template',
    'log_samples',
  ];
  for (const name of flags.keys())
    if (!known.includes(name)) refuse(`--${name} is not supported`, `supported: --${known.join(', --')}`);
  const endpoint = ENDPOINTS[String(flags.get('model'))];
  if (!endpoint)
    refuse(`--model ${String(flags.get('model'))}: only ${Object.keys(ENDPOINTS).join(' and ')} (an OpenAI-compatible server)`);
  const model = pairs(String(flags.get('model_args') ?? ''), '--model_args', MODEL_ARGS);
  const gen = pairs(String(flags.get('gen_kwargs') ?? ''), '--gen_kwargs', GEN_KWARGS);
  if (model.get('tokenized_requests')?.toLowerCase() === 'true')
    refuse('--model_args tokenized_requests=True: the eval sends text');
  const name = model.get('model') ?? refuse('--model_args has no model');
  const baseUrl = (model.get('base_url') ?? refuse('--model_args has no base_url')).replace(/\/v1\/(chat\/)?completions\/?$/, '');
  const outputPath = typeof flags.get('output_path') === 'string' ? String(flags.get('output_path')) : refuse('no --output_path');
  const maxLength = model.get('max_length');
  const maxTokens = gen.get('max_tokens') ?? gen.get('max_gen_toks');
  if (maxTokens !== undefined && maxLength !== undefined && Number(maxTokens) !== maxTokensFor(Number(maxLength)))
    refuse(
      `--gen_kwargs max_tokens=${maxTokens}: frontier eval run caps output at ${maxTokensFor(Number(maxLength))} for max_length=${maxLength} (InferenceX's run_lm_eval rule)`,
    );
  const include = flags.get('include_path');
  const tasks = String(flags.get('tasks') ?? refuse('no --tasks'))
    .split(',')
    .filter(Boolean)
    .map((t) => {
      const inInclude = typeof include === 'string' ? join(resolve(cwd, include), `${t}.yaml`) : undefined;
      return inInclude && existsSync(inInclude) ? inInclude : t.endsWith('.yaml') ? resolve(cwd, t) : t;
    });
  const option = (flag: string, value: string | undefined): string[] => (value === undefined ? [] : [flag, value]);
  return [
    'run',
    ...tasks.flatMap((t) => ['--task', t]),
    // The run's datasets; without them, frontier eval run's own (GSM8K: $FRONTIER_GSM8K, else its cache).
    ...option('--data', env.FRONTIER_EVAL_DATA || undefined),
    '--base-url',
    baseUrl,
    '--model',
    name,
    '--endpoint',
    endpoint,
    ...option('--api-key', model.get('api_key')),
    ...option('--concurrency', model.get('num_concurrent')),
    ...option('--timeout', model.get('timeout')),
    ...option('--max-retries', model.get('max_retries')),
    ...option('--max-model-len', maxLength),
    ...option('--temperature', gen.get('temperature')),
    ...option('--top-p', gen.get('top_p')),
    ...option('--limit', typeof flags.get('limit') === 'string' ? String(flags.get('limit')) : undefined),
    '--out',
    join(resolve(cwd, outputPath), sanitizedModel(name)),
  ];
}
