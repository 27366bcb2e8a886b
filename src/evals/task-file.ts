import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node, Scalar, ScalarTag } from 'yaml';
import { SAFE_NAME, SAFE_NAME_TEXT } from '../catalog/index.js';
import { compilePy, PyRegexError } from '../pycompat/index.js';
import type { PyRegex } from '../pycompat/index.js';
import { readRegularFile } from '../util/bounded-read.js';
import { UserError } from '../util/user-error.js';
import { plainValue, readYamlDocument } from '../util/yaml-input.js';
import { knownProcessDocs } from './process-docs.js';
import type { ProcessDocs } from './process-docs.js';
import { compileTemplate, TemplateError } from './template.js';
import type { DocTemplate } from './template.js';

/**
 * lm-evaluation-harness task files (YAML), the subset generation tasks such as InferenceX's
 * `utils/evals/gsm8k.yaml` and `gpqa_diamond.yaml` use, read into a TaskSpec with lm-eval's
 * defaults applied (TaskConfig.__post_init__ of lm-eval b315ef3). A key Frontier cannot run as
 * lm-eval would is an error naming the file, line and key, never a silent difference.
 */

export type FilterStep =
  | { function: 'regex'; regex: PyRegex; groupSelect: number; fallback: string }
  | { function: 'take_first' }
  | { function: 'take_first_k'; k: number }
  | { function: 'majority_vote' }
  | { function: 'lowercase' }
  | { function: 'uppercase' };

export interface TaskFilter {
  name: string;
  steps: FilterStep[];
}

export interface ExactMatchOptions {
  regexesToIgnore: PyRegex[];
  ignoreCase: boolean;
  ignorePunctuation: boolean;
  ignoreNumbers: boolean;
}

export interface TaskMetric {
  metric: 'exact_match';
  higherIsBetter: boolean;
  options: ExactMatchOptions;
}

export interface GenerationSettings {
  until: string[];
  maxGenToks: number | undefined;
  temperature: number;
  /** The other generation_kwargs (top_p, top_k…), sent as they are, as lm-eval's API models do. */
  extra: Record<string, unknown>;
}

export interface TaskSpec {
  task: string;
  /** The file it was read from. */
  file: string;
  dataset: { path: string; name: string | null };
  /** The split scored: test_split, else validation_split (lm-eval's eval_docs). */
  evalSplit: string;
  /** Where few-shot examples come from: fewshot_split, else training_split, else validation_split. */
  fewshotSplit: string | null;
  processDocs: ProcessDocs | undefined;
  docToText: DocTemplate;
  docToTarget: DocTemplate;
  description: DocTemplate | undefined;
  numFewshot: number;
  targetDelimiter: string;
  fewshotDelimiter: string;
  generation: GenerationSettings;
  repeats: number;
  filters: TaskFilter[];
  metrics: TaskMetric[];
  version: unknown;
  /** The config as lm-eval dumps it into the results file (`configs.<task>`). */
  config: Record<string, unknown>;
}

export class TaskFileError extends UserError {}

/** The largest task file (or included file, or process_docs module) read: lm-eval's are a few KB (InferenceX's largest is 1.3 KB), so a megabyte is far past any real one. */
export const MAX_TASK_FILE_BYTES = 1 << 20;
/** How many includes may chain: lm-eval's task families use one (a task includes its family's template); eight leaves room for any real layering. */
export const MAX_INCLUDE_DEPTH = 8;
/** `repeats`: lm-eval's self-consistency GSM8K samples 64 times per document (AIME here: 8); each repeat is a request whose response is kept. */
export const MAX_REPEATS = 256;
/** `num_fewshot` (and --num-fewshot): common tasks use up to 25 shots (ARC on the Open LLM Leaderboard); every shot is repeated in every prompt. */
export const MAX_NUM_FEWSHOT = 256;
/** `generation_kwargs.max_gen_toks`: the longest context windows served are about a million tokens; the request's max_tokens is also capped by the server's context. */
export const MAX_GEN_TOKS = 1 << 20;

/** TaskConfig's fields in declaration order: the order of lm-eval's `configs` dump. */
const FIELDS = [
  'task',
  'task_alias',
  'tag',
  'custom_dataset',
  'dataset_path',
  'dataset_name',
  'dataset_kwargs',
  'training_split',
  'validation_split',
  'test_split',
  'fewshot_split',
  'process_docs',
  'doc_to_text',
  'doc_to_target',
  'doc_to_image',
  'doc_to_audio',
  'unsafe_code',
  'doc_to_choice',
  'process_results',
  'use_prompt',
  'description',
  'target_delimiter',
  'fewshot_delimiter',
  'fewshot_config',
  'num_fewshot',
  'metric_list',
  'output_type',
  'generation_kwargs',
  'repeats',
  'filter_list',
  'should_decontaminate',
  'doc_to_decontamination_query',
  'gen_prefix',
  'metadata',
] as const;
const DEFAULTS: Record<string, unknown> = {
  unsafe_code: false,
  description: '',
  target_delimiter: ' ',
  fewshot_delimiter: '\n\n',
  output_type: 'generate_until',
  repeats: 1,
  should_decontaminate: false,
};
/** Keys lm-eval has that change what is asked or scored in ways Frontier does not run, and why. */
const UNSUPPORTED: Record<string, string> = {
  custom_dataset: 'a Python dataset builder; lay the data out as the hub exports it and use dataset_path',
  dataset_kwargs: 'arguments to datasets.load_dataset; lay the files out as the hub exports them under --data',
  doc_to_image: 'multimodal tasks are not run',
  doc_to_audio: 'multimodal tasks are not run',
  doc_to_choice:
    'multiple-choice targets: write the target itself in doc_to_target (e.g. a letter) and extract it with a regex filter',
  process_results: 'custom Python scoring: score with filter_list (regex, take_first…) and metric_list exact_match',
  use_prompt: 'promptsource prompts: write doc_to_text and doc_to_target as Jinja templates',
  gen_prefix: 'an assistant prefix',
  doc_to_decontamination_query: 'decontamination is not run',
};
const FILTERS = ['regex', 'take_first', 'take_first_k', 'majority_vote', 'lowercase', 'uppercase'] as const;
const METRIC_KEYS = new Set([
  'metric',
  'aggregation',
  'higher_is_better',
  'hf_evaluate',
  'ignore_case',
  'ignore_punctuation',
  'ignore_numbers',
  'regexes_to_ignore',
]);

/** The folder of the task files Frontier ships (a copy of InferenceX's utils/evals tasks, and aime.yaml). */
export const BUILTIN_TASKS_DIR = fileURLToPath(new URL('./tasks/', import.meta.url));

/** The built-in task files: name (the file's stem and its `task`) → path. */
export function builtinTasks(): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(BUILTIN_TASKS_DIR)) return out;
  for (const f of readdirSync(BUILTIN_TASKS_DIR)
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    const path = join(BUILTIN_TASKS_DIR, f);
    out.set(f.replace(/\.yaml$/, ''), path);
    const task = /^task:\s*(\S+)/m.exec(readFileSync(path, 'utf8'))?.[1];
    if (task) out.set(task, path);
  }
  return out;
}

/** A task argument: a path to a task YAML, or the name of a built-in task. */
export function resolveTaskFile(arg: string): string {
  if (arg.endsWith('.yaml') || arg.endsWith('.yml') || arg.includes('/')) {
    if (!existsSync(arg)) throw new TaskFileError(`${arg}: no such task file`);
    return resolve(arg);
  }
  const builtin = builtinTasks().get(arg);
  if (!builtin)
    throw new TaskFileError(`unknown task "${arg}"`, {
      hint: `pass a task YAML, or one of the built-in tasks: ${[...new Set(builtinTasks().keys())].join(', ')}`,
    });
  return builtin;
}

/** `!function module.name` (lm-eval's tag for Python functions in the module beside the file). */
interface FunctionRef {
  function: string;
}
const functionTag = {
  tag: '!function',
  resolve: (value: string) => ({ function: value }),
  identify: () => false,
} as unknown as ScalarTag;
const isFunctionRef = (v: unknown): v is FunctionRef =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as FunctionRef).function === 'string';

interface Located {
  value: Record<string, unknown>;
  /** The line of a key path (1-based), for messages. */
  lineOf: (path: (string | number)[]) => number | undefined;
  file: string;
}

/** A task file's text; `where` says who asked for it in errors (the file itself, or an include's file:line: key). */
function readTaskText(file: string, where: string): string {
  const bytes = readRegularFile(file, MAX_TASK_FILE_BYTES);
  if (!Buffer.isBuffer(bytes))
    throw new TaskFileError(`${where}${where === file ? '' : `: ${file}`} ${bytes.refused}`, {
      hint: 'a task file is a small YAML file of lm-eval task keys',
    });
  return bytes.toString('utf8');
}

function readYaml(file: string, text: string): Located {
  const { doc, lines } = readYamlDocument(text, file, { version: '1.1', customTags: [functionTag] }, TaskFileError);
  const value = plainValue(doc);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new TaskFileError(`${file}: a task file is a mapping of lm-eval task keys (task, dataset_path, doc_to_text…)`);
  const lineOf = (path: (string | number)[]): number | undefined => {
    let node: unknown = doc.contents;
    let line: number | undefined;
    for (const key of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && (p.key as Scalar).value === key);
        if (!pair) break;
        const keyNode = pair.key as Node;
        if (keyNode.range) line = lines.linePos(keyNode.range[0]).line;
        node = pair.value;
      } else if (isSeq(node) && typeof key === 'number') {
        node = node.items[key];
        const range = (node as Node | undefined)?.range;
        if (range) line = lines.linePos(range[0]).line;
      } else break;
    }
    return line;
  };
  return { value: value as Record<string, unknown>, lineOf, file };
}

/** Under `root` (or `root` itself), both real paths. */
const isUnder = (path: string, root: string): boolean => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The real path of `include: <path>` written in `from`: beside `from`, else in the built-in tasks'
 * folder; it must lie (links resolved) under the main task file's folder or the built-in tasks'.
 */
function includedFile(include: string, from: Located, mainDir: string): string {
  const at = `${from.file}:${from.lineOf(['include']) ?? 1}: include: ${include}`;
  const path = [resolve(dirname(from.file), include), resolve(BUILTIN_TASKS_DIR, include)].find((p) => existsSync(p));
  if (path === undefined) throw new TaskFileError(`${at}: no such file beside ${from.file} or among the built-in tasks`);
  const real = realpathSync(path);
  const roots = [realpathSync(mainDir), realpathSync(BUILTIN_TASKS_DIR)];
  if (!roots.some((root) => isUnder(real, root)))
    throw new TaskFileError(`${at}: ${real} is outside the task file's folder (${roots[0]}) and the built-in tasks`, {
      hint: 'copy the included file beside the task file',
    });
  return real;
}

/** Reads a task file (with its `include`s) into a TaskSpec; every problem names the file, line and key. */
export function readTaskFile(arg: string): TaskSpec {
  const file = resolveTaskFile(arg);
  const main = readYaml(file, readTaskText(file, file));
  const origin = new Map<string, Located>();
  const merged: Record<string, unknown> = {};
  const absorb = (located: Located, seen: string[]): void => {
    const include = located.value.include;
    if (include !== undefined) {
      const at = `${located.file}:${located.lineOf(['include']) ?? 1}: include`;
      if (typeof include !== 'string') throw new TaskFileError(`${at}: expected the path of a task file`);
      const path = includedFile(include, located, dirname(file));
      if (seen.includes(path)) throw new TaskFileError(`${at}: ${include} includes itself`);
      if (seen.length > MAX_INCLUDE_DEPTH)
        throw new TaskFileError(`${at}: more than ${MAX_INCLUDE_DEPTH} includes in a chain`, {
          hint: 'merge the included files into fewer',
        });
      absorb(readYaml(path, readTaskText(path, `${at}: ${include}`)), [...seen, path]);
    }
    for (const [k, v] of Object.entries(located.value)) {
      if (k === 'include') continue;
      merged[k] = v;
      origin.set(k, located);
    }
  };
  absorb(main, [realpathSync(file)]);
  const fail = (path: (string | number)[], message: string, hint?: string): never => {
    const at = origin.get(String(path[0])) ?? main;
    const line = at.lineOf(path);
    // A key that is no identifier is not shown: a file that is not a task file (a config naming
    // /etc/shadow as its task) must not have its lines printed.
    const shown = path.map((p) => (typeof p === 'string' && !/^[A-Za-z_]\w*$/.test(p) ? '(a key not shown)' : p));
    throw new TaskFileError(`${at.file}${line ? `:${line}` : ''}: ${shown.join('.')}: ${message}`, { hint });
  };
  return buildSpec(merged, file, fail, (key) => dirname((origin.get(key) ?? main).file));
}

type Fail = (path: (string | number)[], message: string, hint?: string) => never;

function buildSpec(raw: Record<string, unknown>, file: string, fail: Fail, dirOf: (key: string) => string): TaskSpec {
  if (raw.group !== undefined || Array.isArray(raw.task)) fail(['group'], 'a group of tasks', 'pass each task file of the group');
  for (const key of Object.keys(raw))
    if (!(FIELDS as readonly string[]).includes(key))
      fail([key], 'not an lm-eval task key', `the keys are: ${FIELDS.join(', ')}`);
  for (const [key, why] of Object.entries(UNSUPPORTED))
    if (raw[key] !== undefined && raw[key] !== null) fail([key], `not supported by Frontier (${why})`);

  const str = (key: string, required: boolean): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) {
      if (required) fail([key], 'missing', `add ${key}: <string>`);
      return undefined;
    }
    if (typeof v !== 'string') fail([key], `expected a string, got ${JSON.stringify(v)}`);
    return v as string;
  };
  const int = (key: string, min: number, max: number, fallback: number): number => {
    const v = raw[key];
    if (v === undefined || v === null) return fallback;
    if (!Number.isInteger(v) || (v as number) < min || (v as number) > max)
      fail([key], `expected an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return v as number;
  };
  /** A value that becomes part of a file or folder name (the samples file, the dataset's folders). */
  const name = (key: string, required: boolean): string | undefined => {
    const value = str(key, required);
    if (value !== undefined && !SAFE_NAME.test(value))
      fail([key], `${JSON.stringify(value)} becomes part of a file or folder name: use ${SAFE_NAME_TEXT}`);
    return value;
  };

  const task = name('task', true)!;
  const outputType = str('output_type', false) ?? 'generate_until';
  if (outputType !== 'generate_until')
    fail(
      ['output_type'],
      `${outputType} is not run by Frontier`,
      'Frontier runs generate_until tasks (the model writes its answer; filters extract it)',
    );
  const datasetPath = str('dataset_path', true)!;
  // A hub id, <owner>/<name> or <name>: each part a folder under --data.
  const parts = datasetPath.split('/');
  if (parts.length > 2 || !parts.every((part) => SAFE_NAME.test(part)))
    fail(['dataset_path'], `${JSON.stringify(datasetPath)}: expected a hub id, <owner>/<name>, each of ${SAFE_NAME_TEXT}`);
  if (datasetPath.startsWith('princeton-nlp/SWE-bench'))
    fail(
      ['dataset_path'],
      'SWE-bench is scored by running each generated patch against the repository’s tests (InferenceX’s swebench_score.py, on Docker or Modal), which Frontier does not do; its task file’s exact_match is a placeholder',
    );
  const datasetName = name('dataset_name', false) ?? null;
  const trainingSplit = name('training_split', false);
  const validationSplit = name('validation_split', false);
  const testSplit = name('test_split', false);
  const fewshotSplitKey = name('fewshot_split', false);
  const evalSplit = testSplit ?? validationSplit;
  if (evalSplit === undefined) fail(['test_split'], 'no split to score: set test_split or validation_split');

  const template = (key: string, required: boolean): DocTemplate | undefined => {
    const v = raw[key];
    if (v === undefined || v === null || (key === 'description' && v === '')) {
      if (required) fail([key], 'missing', `add ${key}: "{{field}}" (a Jinja template or a field name)`);
      return undefined;
    }
    if (isFunctionRef(v))
      fail([key], `!function ${v.function} is not supported`, 'write it as a Jinja template over the doc fields');
    if (typeof v !== 'string') fail([key], `expected a Jinja template or a field name, got ${JSON.stringify(v)}`);
    try {
      return compileTemplate(v as string);
    } catch (e) {
      if (e instanceof TemplateError) fail([key], e.message);
      throw e;
    }
  };
  const docToText = template('doc_to_text', true)!;
  const docToTarget = template('doc_to_target', true)!;
  const description = template('description', false);

  let processDocs: ProcessDocs | undefined;
  if (raw.process_docs !== undefined && raw.process_docs !== null) {
    const ref = raw.process_docs;
    if (!isFunctionRef(ref)) fail(['process_docs'], 'expected !function <module>.<function>');
    const known = knownProcessDocs((ref as FunctionRef).function, dirOf('process_docs'));
    if ('error' in known) fail(['process_docs'], known.error, known.hint);
    processDocs = (known as { fn: ProcessDocs }).fn;
  }

  const targetDelimiter = raw.target_delimiter === undefined ? ' ' : str('target_delimiter', false)!;
  const fewshotDelimiter = raw.fewshot_delimiter === undefined ? '\n\n' : str('fewshot_delimiter', false)!;
  const numFewshot = int('num_fewshot', 0, MAX_NUM_FEWSHOT, 0);
  const fewshotSplit = fewshotSplitKey ?? trainingSplit ?? validationSplit ?? null;
  if (numFewshot > 0 && fewshotSplit === null)
    fail(['num_fewshot'], `${numFewshot} shots but no split to draw them from`, 'set fewshot_split');
  if (raw.fewshot_config !== undefined && raw.fewshot_config !== null) {
    const fc = raw.fewshot_config as Record<string, unknown>;
    if (
      typeof fc !== 'object' ||
      Object.keys(fc).some((k) => k !== 'sampler') ||
      (fc.sampler !== undefined && fc.sampler !== 'default')
    )
      fail(['fewshot_config'], 'only the default sampler is supported', 'remove fewshot_config');
  }
  const repeats = int('repeats', 1, MAX_REPEATS, 1);

  // generation_kwargs as TaskConfig.__post_init__ leaves them.
  let gen = raw.generation_kwargs as Record<string, unknown> | undefined | null;
  if (gen === undefined || gen === null) gen = { until: [fewshotDelimiter], do_sample: false, temperature: 0 };
  else {
    if (typeof gen !== 'object' || Array.isArray(gen)) fail(['generation_kwargs'], 'expected a mapping');
    gen = { ...gen };
    if (gen.temperature !== undefined) {
      if (typeof gen.temperature !== 'number') fail(['generation_kwargs', 'temperature'], 'expected a number');
    }
    if (gen.until === undefined) gen.until = [fewshotDelimiter];
  }
  const untilRaw = gen.until;
  const until = typeof untilRaw === 'string' ? [untilRaw] : untilRaw === null ? [] : untilRaw;
  if (!Array.isArray(until) || until.some((u) => typeof u !== 'string'))
    fail(['generation_kwargs', 'until'], 'expected a string or a list of strings');
  const maxGenToks = gen.max_gen_toks;
  if (
    maxGenToks !== undefined &&
    (!Number.isInteger(maxGenToks) || (maxGenToks as number) < 1 || (maxGenToks as number) > MAX_GEN_TOKS)
  )
    fail(['generation_kwargs', 'max_gen_toks'], `expected an integer from 1 to ${MAX_GEN_TOKS}`);
  const { until: _u, max_gen_toks: _m, do_sample: _d, temperature, max_tokens: _t, ...extra } = gen;
  const generation: GenerationSettings = {
    until: until as string[],
    maxGenToks: maxGenToks as number | undefined,
    temperature: (temperature as number | undefined) ?? 0,
    extra,
  };

  const filters = readFilters(raw.filter_list, fail);
  const metrics = readMetrics(raw.metric_list, fail);
  const metadata = raw.metadata as Record<string, unknown> | undefined;

  // The dump: every field that is not None, in declaration order, with the defaults lm-eval fills.
  const config: Record<string, unknown> = {};
  for (const key of FIELDS) {
    let v: unknown = raw[key] ?? DEFAULTS[key];
    if (key === 'generation_kwargs') v = gen;
    if (key === 'process_docs' && processDocs) v = processDocs.source;
    if (v !== undefined && v !== null) config[key] = v;
  }
  return {
    task,
    file,
    dataset: { path: datasetPath, name: datasetName },
    evalSplit: evalSplit!,
    fewshotSplit,
    processDocs,
    docToText,
    docToTarget,
    description,
    numFewshot,
    targetDelimiter,
    fewshotDelimiter,
    generation,
    repeats,
    filters,
    metrics,
    version: metadata && typeof metadata === 'object' ? metadata.version : undefined,
    config,
  };
}

function compileAt(pattern: unknown, path: (string | number)[], fail: Fail, ignoreCase = false): PyRegex {
  if (typeof pattern !== 'string') return fail(path, 'expected a regular expression (a string)');
  try {
    return compilePy(pattern, { ignoreCase });
  } catch (e) {
    if (e instanceof PyRegexError) fail(path, e.message);
    throw e;
  }
}

function readFilters(list: unknown, fail: Fail): TaskFilter[] {
  // No filter_list: lm-eval's "none" filter, take_first.
  if (list === undefined || list === null) return [{ name: 'none', steps: [{ function: 'take_first' }] }];
  if (!Array.isArray(list)) return fail(['filter_list'], 'expected a list of {name, filter}');
  const names = new Set<string>();
  return list.map((entry, i): TaskFilter => {
    const e = entry as Record<string, unknown>;
    if (typeof e !== 'object' || e === null || typeof e.name !== 'string')
      fail(['filter_list', i], 'expected {name: <string>, filter: [...]}');
    if (names.has(e.name as string)) fail(['filter_list', i], `a second filter named ${e.name as string}`);
    names.add(e.name as string);
    if (!Array.isArray(e.filter) || e.filter.length === 0) fail(['filter_list', i, 'filter'], 'expected a list of {function, …}');
    let reduced = false;
    const steps = (e.filter as unknown[]).map((s, j): FilterStep => {
      const step = s as Record<string, unknown>;
      const at = ['filter_list', i, 'filter', j];
      const fn = step?.function;
      if (typeof fn !== 'string' || !(FILTERS as readonly string[]).includes(fn))
        fail(
          [...at, 'function'],
          `${JSON.stringify(fn)} is not a filter Frontier runs`,
          `the filters are: ${FILTERS.join(', ')}`,
        );
      const allowed: Record<string, string[]> = { regex: ['regex_pattern', 'group_select', 'fallback'], take_first_k: ['k'] };
      for (const key of Object.keys(step)) {
        if (key !== 'function' && !(allowed[fn as string] ?? []).includes(key))
          fail(
            [...at, key],
            `not an argument of the ${fn as string} filter`,
            `its arguments: ${(allowed[fn as string] ?? []).join(', ') || 'none'}`,
          );
      }
      if (reduced) fail(at, `${fn as string} after take_first: take_first must be the last step of a filter`);
      switch (fn) {
        case 'regex': {
          const groupSelect = step.group_select ?? 0;
          if (!Number.isInteger(groupSelect)) fail([...at, 'group_select'], 'expected an integer');
          const fallback = step.fallback ?? '[invalid]';
          if (typeof fallback !== 'string') fail([...at, 'fallback'], 'expected a string');
          return {
            function: 'regex',
            regex: compileAt(step.regex_pattern ?? '#### (\\-?[0-9\\.\\,]+)', [...at, 'regex_pattern'], fail),
            groupSelect: groupSelect as number,
            fallback: fallback as string,
          };
        }
        case 'take_first_k': {
          if (!Number.isInteger(step.k) || (step.k as number) < 1) fail([...at, 'k'], 'expected a positive integer');
          return { function: 'take_first_k', k: step.k as number };
        }
        case 'take_first':
          reduced = true;
          return { function: 'take_first' };
        default:
          return { function: fn as 'majority_vote' | 'lowercase' | 'uppercase' };
      }
    });
    return { name: e.name as string, steps };
  });
}

function readMetrics(list: unknown, fail: Fail): TaskMetric[] {
  // No metric_list: generate_until's default metric, exact_match.
  if (list === undefined || list === null)
    return [
      {
        metric: 'exact_match',
        higherIsBetter: true,
        options: { regexesToIgnore: [], ignoreCase: false, ignorePunctuation: false, ignoreNumbers: false },
      },
    ];
  if (!Array.isArray(list) || list.length === 0) return fail(['metric_list'], 'expected a list of {metric, …}');
  return list.map((entry, i): TaskMetric => {
    const m = entry as Record<string, unknown>;
    const at = ['metric_list', i];
    if (typeof m !== 'object' || m === null || m.metric === undefined) fail(at, "'metric' key not provided");
    if (m.metric !== 'exact_match')
      fail(
        [...at, 'metric'],
        `${JSON.stringify(m.metric)} is not a metric Frontier scores`,
        'use exact_match (with regexes_to_ignore, ignore_case…) after a regex filter',
      );
    for (const key of Object.keys(m))
      if (!METRIC_KEYS.has(key))
        fail([...at, key], 'not an option of exact_match', `its options: ${[...METRIC_KEYS].join(', ')}`);
    if (m.aggregation !== undefined && m.aggregation !== 'mean')
      fail([...at, 'aggregation'], `${JSON.stringify(m.aggregation)}: exact_match aggregates by mean`);
    if (m.hf_evaluate === true)
      fail([...at, 'hf_evaluate'], 'the Hugging Face evaluate library is not run', 'remove hf_evaluate');
    const flag = (key: string): boolean => {
      if (m[key] === undefined || m[key] === null) return false;
      if (typeof m[key] !== 'boolean') fail([...at, key], 'expected true or false');
      return m[key] as boolean;
    };
    const ignore = m.regexes_to_ignore ?? [];
    if (!Array.isArray(ignore)) fail([...at, 'regexes_to_ignore'], 'expected a list of regular expressions');
    return {
      metric: 'exact_match',
      higherIsBetter: m.higher_is_better === undefined ? true : m.higher_is_better === true,
      options: {
        regexesToIgnore: (ignore as unknown[]).map((p, j) => compileAt(p, [...at, 'regexes_to_ignore', j], fail)),
        ignoreCase: flag('ignore_case'),
        ignorePunctuation: flag('ignore_punctuation'),
        ignoreNumbers: flag('ignore_numbers'),
      },
    };
  });
}
