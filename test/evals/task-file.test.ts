import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_TASKS_DIR,
  MAX_GEN_TOKS,
  MAX_INCLUDE_DEPTH,
  MAX_NUM_FEWSHOT,
  MAX_REPEATS,
  MAX_TASK_FILE_BYTES,
  TaskFileError,
  builtinTasks,
  fingerprint,
  readTaskFile,
} from '../../src/evals/index.js';
import type { Doc } from '../../src/evals/index.js';
import { REPO, tempFiles } from '../helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/evals');

/** A task file (and its neighbours) in a temporary folder; its path. */
function taskFile(yaml: string, extra: Record<string, string> = {}): string {
  return join(tempFiles({ 'task.yaml': yaml, ...extra }), 'task.yaml');
}

const MINIMAL = `task: t
dataset_path: org/set
test_split: test
doc_to_text: "Q: {{question}}"
doc_to_target: answer
`;

/** The error a task file gives, as the CLI prints it (message and hint). */
function errorOf(yaml: string, extra: Record<string, string> = {}): string {
  try {
    readTaskFile(taskFile(yaml, extra));
  } catch (e) {
    expect(e).toBeInstanceOf(TaskFileError);
    return `${(e as TaskFileError).message}${(e as TaskFileError).hint ? ` | ${(e as TaskFileError).hint}` : ''}`;
  }
  throw new Error('no error');
}

describe('built-in tasks', () => {
  it('are InferenceX utils/evals gsm8k.yaml, gpqa_diamond.yaml and utils.py byte for byte, and Frontier’s aime.yaml', () => {
    for (const f of ['gpqa_diamond.yaml', 'utils.py'])
      expect(readFileSync(join(BUILTIN_TASKS_DIR, f), 'utf8')).toBe(readFileSync(join(FIXTURES, 'inferencex', f), 'utf8'));
    const names = builtinTasks();
    expect([...names.keys()].sort()).toEqual(['aime', 'gpqa_diamond', 'gpqa_diamond_cot_n_shot', 'gsm8k']);
    expect(names.get('gpqa_diamond')).toBe(names.get('gpqa_diamond_cot_n_shot'));
  });

  it('GPQA reads as lm-eval reads it: the train split through process_docs, no generation_kwargs → until the fewshot delimiter', () => {
    const t = readTaskFile(join(FIXTURES, 'inferencex', 'gpqa_diamond.yaml'));
    expect(t).toMatchObject({
      task: 'gpqa_diamond_cot_n_shot',
      dataset: { path: 'Idavidrein/gpqa', name: 'gpqa_diamond' },
      evalSplit: 'train',
      numFewshot: 0,
      repeats: 1,
    });
    expect(t.processDocs?.name).toBe('utils.process_docs');
    expect(t.generation).toEqual({ until: ['\n\n'], maxGenToks: undefined, temperature: 0, extra: {} });
    expect(t.filters.map((f) => [f.name, f.steps.map((s) => s.function)])).toEqual([['extract_abcd', ['regex', 'take_first']]]);
    expect(t.metrics[0]!.options).toMatchObject({ ignoreCase: true, ignorePunctuation: false, regexesToIgnore: [] });
    // The results file's config, as lm-eval's TaskConfig.to_dict dumps it (process_docs as its source).
    expect(Object.keys(t.config)).toEqual([
      'task',
      'dataset_path',
      'dataset_name',
      'training_split',
      'validation_split',
      'process_docs',
      'doc_to_text',
      'doc_to_target',
      'unsafe_code',
      'description',
      'target_delimiter',
      'fewshot_delimiter',
      'metric_list',
      'output_type',
      'generation_kwargs',
      'repeats',
      'filter_list',
      'should_decontaminate',
    ]);
    expect(t.config.process_docs).toMatch(
      /^def process_docs\(dataset: datasets\.Dataset, n_repeats: int = 2, seed: int = 3407\)/,
    );
  });

  it('renders GPQA’s prompt with the trailing newline lm-eval keeps, and its target field as it is', () => {
    const t = readTaskFile('gpqa_diamond');
    const doc = { Question: 'Why?', A: 'a', B: 'b', C: 'c', D: 'd', answer: 'C' };
    expect(t.docToText.render(doc)).toBe(
      "Why?\n\n(A) a\n(B) b\n(C) c\n(D) d\n\nExpress your final answer as the corresponding option 'A', 'B', 'C', or 'D'.\n",
    );
    expect(t.docToTarget.render(doc)).toBe('C');
  });

  it('AIME: 8 samples per problem at temperature 0.6, a \\boxed{} filter that keeps every sample (mean@8)', () => {
    const t = readTaskFile('aime');
    expect(t).toMatchObject({ task: 'aime', evalSplit: 'train', repeats: 8 });
    expect(t.generation).toEqual({
      until: ['</s>', '<|im_end|>'],
      maxGenToks: undefined,
      temperature: 0.6,
      extra: { top_p: 0.95 },
    });
    expect(t.filters[0]!.steps.map((s) => s.function)).toEqual(['regex']);
    expect(t.docToTarget.render({ Answer: 204 })).toBe('204');
  });
});

describe('process_docs', () => {
  const input = readFileSync(join(FIXTURES, 'process-docs/input.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Doc);
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'process-docs/expected.json'), 'utf8')) as { default: Doc[] };

  it('InferenceX’s GPQA shuffle gives what the reference function gives (Python 3.11, random.Random(3407))', () => {
    const t = readTaskFile('gpqa_diamond');
    expect(t.processDocs!.apply(input)).toEqual(expected.default);
  });

  it('an edited function is refused, naming the key and its fingerprint; spacing and comments do not matter', () => {
    const utils = readFileSync(join(BUILTIN_TASKS_DIR, 'utils.py'), 'utf8');
    const yaml = readFileSync(join(BUILTIN_TASKS_DIR, 'gpqa_diamond.yaml'), 'utf8');
    const respaced = utils.replace('rng = random.Random(seed)', 'rng = random.Random( seed )  # same');
    expect(fingerprint(respaced, 'process_docs')).toBe(fingerprint(utils, 'process_docs'));
    expect(() => readTaskFile(taskFile(yaml, { 'utils.py': respaced }))).not.toThrow();
    const edited = utils.replace('seed: int = 3407', 'seed: int = 7');
    expect(errorOf(yaml, { 'utils.py': edited })).toMatch(
      /task\.yaml:11: process_docs: !function utils\.process_docs: Frontier does not know this function \(fingerprint [0-9a-f]{8}\) \| Frontier runs no Python/,
    );
    expect(errorOf(yaml)).toMatch(/task\.yaml:11: process_docs: !function utils\.process_docs: .*utils\.py not found/);
  });
});

describe('malformed task files are errors naming the file, line and key', () => {
  const cases: [string, string, RegExp][] = [
    ['not a mapping', '- a\n- b\n', /task\.yaml: a task file is a mapping/],
    ['bad YAML', 'task: [\n', /task\.yaml:\d+: not YAML/],
    ['no task', MINIMAL.replace('task: t\n', ''), /task\.yaml: task: missing/],
    ['unknown key', `${MINIMAL}num_shots: 5\n`, /task\.yaml:6: num_shots: not an lm-eval task key \| the keys are: task, /],
    [
      'a loglikelihood task',
      `${MINIMAL}output_type: multiple_choice\n`,
      /task\.yaml:6: output_type: multiple_choice is not run by Frontier/,
    ],
    [
      'custom scoring',
      `${MINIMAL}process_results: !function utils.process_results\n`,
      /task\.yaml:6: process_results: not supported by Frontier \(custom Python scoring/,
    ],
    ['no split', MINIMAL.replace('test_split: test\n', ''), /test_split: no split to score/],
    ['no prompt', MINIMAL.replace('doc_to_text: "Q: {{question}}"\n', ''), /doc_to_text: missing/],
    ['a broken template', MINIMAL.replace('{{question}}', '{{question'), /task\.yaml:4: doc_to_text: not a Jinja template/],
    [
      'an unknown filter',
      `${MINIMAL}filter_list:\n  - name: f\n    filter:\n      - function: regexp\n`,
      /task\.yaml:9: filter_list\.0\.filter\.0\.function: "regexp" is not a filter Frontier runs \| the filters are: regex, take_first/,
    ],
    [
      'a bad regex',
      `${MINIMAL}filter_list:\n  - name: f\n    filter:\n      - function: regex\n        regex_pattern: "(a"\n`,
      /task\.yaml:10: filter_list\.0\.filter\.0\.regex_pattern: /,
    ],
    [
      'a step after take_first',
      `${MINIMAL}filter_list:\n  - name: f\n    filter:\n      - function: take_first\n      - function: lowercase\n`,
      /filter_list\.0\.filter\.1: lowercase after take_first/,
    ],
    [
      'an unknown filter argument',
      `${MINIMAL}filter_list:\n  - name: f\n    filter:\n      - function: regex\n        pattern: x\n`,
      /task\.yaml:10: filter_list\.0\.filter\.0\.pattern: not an argument of the regex filter \| its arguments: regex_pattern, group_select, fallback/,
    ],
    [
      'another metric',
      `${MINIMAL}metric_list:\n  - metric: bleu\n`,
      /task\.yaml:7: metric_list\.0\.metric: "bleu" is not a metric Frontier scores/,
    ],
    [
      'another aggregation',
      `${MINIMAL}metric_list:\n  - metric: exact_match\n    aggregation: median\n`,
      /task\.yaml:8: metric_list\.0\.aggregation: "median": exact_match aggregates by mean/,
    ],
    ['repeats 0', `${MINIMAL}repeats: 0\n`, /task\.yaml:6: repeats: expected an integer from 1 to 256, got 0/],
    ['shots without a split', `${MINIMAL}num_fewshot: 3\n`, /num_fewshot: 3 shots but no split/],
    [
      'until not strings',
      `${MINIMAL}generation_kwargs:\n  until: [1]\n`,
      /task\.yaml:7: generation_kwargs\.until: expected a string or a list of strings/,
    ],
    ['a group file', 'group: g\ntask:\n  - a\n  - b\n', /group: a group of tasks \| pass each task file/],
    [
      'an unknown process_docs',
      `${MINIMAL}process_docs: !function utils.shuffle\n`,
      /process_docs: !function utils\.shuffle: .*utils\.py not found/,
    ],
  ];
  for (const [what, yaml, message] of cases) it(what, () => expect(errorOf(yaml)).toMatch(message));

  it('InferenceX’s SWE-bench task file is refused: its score comes from running the patches, not from exact_match', () => {
    expect(() => readTaskFile(join(FIXTURES, 'inferencex', 'swebench_lite.yaml'))).toThrow(
      /swebench_lite\.yaml:3: dataset_path: SWE-bench is scored by running each generated patch/,
    );
  });

  it('an include is read first and overridden by the including file; a missing one is named', () => {
    const dir = tempFiles({
      'base.yaml': MINIMAL.replace('task: t', 'task: base'),
      'task.yaml': 'include: base.yaml\ntask: derived\nrepeats: 3\n',
    });
    expect(readTaskFile(join(dir, 'task.yaml'))).toMatchObject({ task: 'derived', repeats: 3, evalSplit: 'test' });
    writeFileSync(join(dir, 'task.yaml'), 'include: nope.yaml\n');
    expect(() => readTaskFile(join(dir, 'task.yaml'))).toThrow(/task\.yaml:1: include: nope\.yaml: no such file/);
  });

  it('an unknown task name lists the built-in ones', () => {
    expect(() => readTaskFile('mmlu')).toThrow(/unknown task "mmlu"/);
  });

  it('a template over a field the doc lacks fails when rendered, as jinja2’s StrictUndefined does', () => {
    const t = readTaskFile(taskFile(MINIMAL));
    expect(t.docToText.render({ question: 'x' })).toBe('Q: x');
    expect(() => t.docToText.render({ q: 'x' })).toThrow(/'question' is undefined/);
  });
});

describe('hostile task files are refused with an error naming the file, line and key', () => {
  it.each([
    ['task', 'task: ../../../escaped'],
    ['task', 'task: a/b'],
    ['dataset_name', 'dataset_name: ..'],
    ['test_split', 'test_split: ../../etc/x'],
    ['training_split', 'training_split: .hidden'],
  ])('%s that would become a path outside its folder: %s', (key, line) => {
    const yaml = MINIMAL.replace(new RegExp(`^${key}:.*$`, 'm'), '').concat(`${line}\n`);
    expect(errorOf(yaml)).toMatch(
      new RegExp(`task\\.yaml:\\d+: ${key}: ".*" becomes part of a file or folder name: use letters, digits, "\\.", "_" and "-"`),
    );
  });

  it.each(['../../etc', '/abs', 'a/b/c', 'org/../x'])('dataset_path %s', (path) => {
    expect(errorOf(MINIMAL.replace('org/set', path))).toMatch(
      /task\.yaml:2: dataset_path: ".*": expected a hub id, <owner>\/<name>/,
    );
  });

  it('an include outside the task file’s folder is refused before it is read, and its content never shown', () => {
    const outside = tempFiles({ 'secret.yaml': 's3cret-line: 1\n' });
    const dir = tempFiles({});
    mkdirSync(join(dir, 'sub'));
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'linked.yaml'));
    for (const include of [
      join(outside, 'secret.yaml'),
      `../${outside.split('/').at(-1)!}/secret.yaml`,
      'linked.yaml',
      '/etc/passwd',
    ]) {
      writeFileSync(join(dir, 'task.yaml'), `${MINIMAL}include: ${include}\n`);
      let message = '';
      try {
        readTaskFile(join(dir, 'task.yaml'));
      } catch (e) {
        expect(e).toBeInstanceOf(TaskFileError);
        message = `${(e as TaskFileError).message} ${(e as TaskFileError).hint}`;
      }
      expect(message).toMatch(/task\.yaml:6: include: .*: .* is outside the task file's folder \(.*\) and the built-in tasks/);
      expect(message).not.toMatch(/s3cret|root:/);
    }
  });

  it('a file that is not a task file has no line printed, whoever names it', () => {
    const file = join(tempFiles({ shadow: 'root:$6$s3cret:20228:0:99999:7:::\n' }), 'shadow');
    expect(() => readTaskFile(file)).toThrow(/shadow:1: \(a key not shown\): not an lm-eval task key$/);
    expect(() => readTaskFile(file)).not.toThrow(/s3cret/);
  });

  it('an include that is not a regular file (a FIFO, a device, a folder) is refused without opening it', () => {
    const dir = tempFiles({});
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    mkdirSync(join(dir, 'folder.yaml'));
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    for (const [include, why] of [
      ['fifo.yaml', 'is not a regular file'],
      ['folder.yaml', 'is not a regular file'],
      ['zero.yaml', 'is outside the task file'],
    ]) {
      writeFileSync(join(dir, 'task.yaml'), `include: ${include}\n${MINIMAL}`);
      expect(() => readTaskFile(join(dir, 'task.yaml'))).toThrow(new RegExp(`task\\.yaml:1: include: ${include}.* ${why}`));
    }
    expect(() => readTaskFile(join(dir, 'fifo.yaml'))).toThrow(/fifo\.yaml is not a regular file/);
    expect(() => readTaskFile('/dev/zero')).toThrow(/^\/dev\/zero is not a regular file/);
  });

  it(`an include larger than ${MAX_TASK_FILE_BYTES} bytes is refused`, () => {
    const big = `# ${'x'.repeat(MAX_TASK_FILE_BYTES)}\n`;
    expect(errorOf(`include: big.yaml\n${MINIMAL}`, { 'big.yaml': big })).toMatch(
      /task\.yaml:1: include: big\.yaml: .*big\.yaml is larger than 1,048,576 bytes \(1,048,579\)/,
    );
  });

  it(`more than ${MAX_INCLUDE_DEPTH} includes in a chain are refused; the built-in tasks can be included by name`, () => {
    const chain = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}.yaml`, `include: t${i + 1}.yaml\n`]));
    expect(errorOf('include: t0.yaml\n', { ...chain, 't12.yaml': MINIMAL })).toMatch(
      /t7\.yaml:1: include: more than 8 includes in a chain/,
    );
    expect(readTaskFile(taskFile('include: gsm8k.yaml\ntask: my_gsm8k\nnum_fewshot: 0\n'))).toMatchObject({
      task: 'my_gsm8k',
      dataset: { path: 'openai/gsm8k' },
      numFewshot: 0,
    });
  });

  it('an alias bomb is an error at its line (the yaml package’s ReferenceError escaped)', () => {
    const bomb = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
      .concat(Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`))
      .join('\n');
    expect(errorOf(`${MINIMAL}metadata:\n  ${bomb.replace(/\n/g, '\n  ')}\n`)).toMatch(
      /task\.yaml:12: with its aliases expanded the YAML stands for more than 1,000,000 values \(\*a4 and the aliases before it\)/,
    );
  });

  it.each([
    ['repeats', 'repeats: 1000000000', `repeats: expected an integer from 1 to ${MAX_REPEATS}, got 1000000000`],
    ['num_fewshot', 'num_fewshot: 100000\nfewshot_split: test', `num_fewshot: expected an integer from 0 to ${MAX_NUM_FEWSHOT}`],
    [
      'max_gen_toks',
      'generation_kwargs:\n  max_gen_toks: 1000000000000',
      `generation_kwargs.max_gen_toks: expected an integer from 1 to ${MAX_GEN_TOKS}`,
    ],
  ])('%s past its limit', (_, line, message) => {
    expect(errorOf(`${MINIMAL}${line}\n`)).toContain(message);
  });
});

describe('process_docs modules', () => {
  it('a module that is not a regular file is refused without opening it', () => {
    const dir = tempFiles({ 'task.yaml': `${MINIMAL}process_docs: !function utils.process_docs\n` });
    execFileSync('mkfifo', [join(dir, 'utils.py')]);
    expect(() => readTaskFile(join(dir, 'task.yaml'))).toThrow(
      /task\.yaml:6: process_docs: !function utils\.process_docs: .*utils\.py is not a regular file/,
    );
  });
});
