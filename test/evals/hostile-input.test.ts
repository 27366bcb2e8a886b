import { existsSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DatasetError,
  MAX_DATASET_FILE_BYTES,
  MAX_DATASET_ROWS,
  MAX_DATASET_UNPACKED_BYTES,
  MAX_EVAL_REPLY_BYTES,
  MAX_TASK_REQUESTS,
  MAX_TEMPLATE_LENGTH,
  MAX_TEMPLATE_STEPS,
  TaskFileError,
  loadTask,
  readSplit,
  readTaskFile,
  runTask,
} from '../../src/evals/index.js';
import type { Doc, TaskRunOptions } from '../../src/evals/index.js';
import { MAX_ANSWERS_FILE_BYTES } from '../../src/sim/index.js';
import { UserError } from '../../src/util/user-error.js';
import { REPO, runCli, tempFiles } from '../helpers.js';

const TASK = `task: t
dataset_path: org/set
test_split: test
doc_to_text: "Q: {{question}}"
doc_to_target: answer
`;

/** A task file (TASK with `replace` applied) beside a data folder holding `rows` as test.jsonl. */
function taskWith(rows: readonly unknown[], replace: [string, string] = ['', '']): { file: string; data: string } {
  const dir = tempFiles({
    'task.yaml': TASK.replace(...replace),
    'data/test.jsonl': rows.map((r) => JSON.stringify(r)).join('\n'),
  });
  return { file: join(dir, 'task.yaml'), data: join(dir, 'data') };
}

/** The UserError loading a task gives (message | hint). */
async function loadError(task: { file: string; data: string }): Promise<string> {
  try {
    await loadTask(readTaskFile(task.file), task.data);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return `${(e as UserError).message} | ${(e as UserError).hint}`;
  }
  throw new Error('no error');
}

describe('dataset rows whose values cannot make a prompt are errors naming the file, row and field', () => {
  it('an answer that is an object, a list or null where the target is a field', async () => {
    for (const [answer, what] of [
      [{ a: 1 }, 'a mapping'],
      [[1, 2], 'a list'],
      [null, 'null'],
    ] as const) {
      const task = taskWith([
        { question: 'q1', answer: '1' },
        { question: 'q2', answer },
      ]);
      expect(await loadError(task)).toBe(
        `${join(task.data, 'test.jsonl')}:2: field "answer" is ${what}, not text or a number (doc_to_target of ${task.file}) | fix the row, or write the template to pick the text out of it`,
      );
    }
  });

  it('a question that is a number where doc_to_text is the field', async () => {
    const task = taskWith([{ question: 7, answer: '1' }], ['"Q: {{question}}"', 'question']);
    expect(await loadError(task)).toMatch(/test\.jsonl:1: field "question" is 7, not text \(doc_to_text of /);
  });

  it('a template that fails on a row (an object where a string method is called) names the row, the key and the odd field', async () => {
    const task = taskWith(
      [
        { question: 'q', answer: '#### 1' },
        { question: 'q', answer: { n: 1 } },
      ],
      ['doc_to_target: answer', `doc_to_target: "{{answer.split('#### ')[-1]}}"`],
    );
    expect(await loadError(task)).toMatch(
      /test\.jsonl:2: doc_to_target of .*task\.yaml fails on this row: .*\(field "answer" is a mapping\) \| fix the template, or the row$/,
    );
  });
});

describe('Jinja templates', () => {
  it.each([
    ['{{ question.__class__ }}', '.__class__: private attributes are not readable'],
    ["{{ ''.constructor.constructor('return process')() }}", '.constructor: private attributes are not readable'],
    ["{{ question['__proto__'] }}", '.__proto__: private attributes are not readable'],
    [
      '{% for i in range(1000000000) %}x{% endfor %}',
      "range(): templates call no functions, only the doc values' methods and filters",
    ],
    ['{% macro m() %}x{% endmacro %}{{ m() }}', 'macros are not supported'],
  ])('%s is refused when the task file is read, at its line and key', (template, message) => {
    const task = taskWith([], ['"Q: {{question}}"', JSON.stringify(template)]);
    expect(() => readTaskFile(task.file)).toThrow(`task.yaml:4: doc_to_text: ${message}`);
  });

  it('string repetition, a runaway loop and a value past the length limit are refused on the row, before the value is made', async () => {
    const cases: [string, Doc, string][] = [
      ['{{ question * 1000000000 }}', { question: 'ab' }, 'Unknown operator "\\*" between StringValue and IntegerValue'],
      [
        "{% set w = question.split(' ') %}{% for a in w %}{% for b in w %}{% for c in w %}x{% endfor %}{% endfor %}{% endfor %}",
        { question: Array(100).fill('x').join(' ') },
        `the render takes more than ${MAX_TEMPLATE_STEPS} steps`,
      ],
      ['Q: {{ question ~ question }}', { question: 'x'.repeat(MAX_TEMPLATE_LENGTH / 2 + 1) }, 'longer than 4194304 characters'],
    ];
    for (const [template, row, message] of cases) {
      const task = taskWith([{ answer: '1', ...row }], ['"Q: {{question}}"', JSON.stringify(template)]);
      expect(await loadError(task)).toMatch(
        new RegExp(`test\\.jsonl:1: doc_to_text of .*task\\.yaml fails on this row: .*${message}`),
      );
    }
  });
});

describe('dataset files', () => {
  const ref = { path: 'org/set' };

  it(`a gzip file that unpacks to more than ${MAX_DATASET_UNPACKED_BYTES} bytes is refused as it unpacks`, async () => {
    const dir = tempFiles({});
    writeFileSync(join(dir, 'test.jsonl.gz'), gzipSync(Buffer.alloc(MAX_DATASET_UNPACKED_BYTES + 1, 32), { level: 1 }));
    await expect(readSplit(dir, ref, 'test')).rejects.toThrow(`test.jsonl.gz unpacks to more than 268,435,456 bytes`);
  });

  it(`a file larger than ${MAX_DATASET_FILE_BYTES} bytes is refused unread, and a split of more than ${MAX_DATASET_ROWS} rows`, async () => {
    const dir = tempFiles({ 'test.jsonl': '', 'train.jsonl': '{}\n'.repeat(MAX_DATASET_ROWS + 1) });
    truncateSync(join(dir, 'test.jsonl'), MAX_DATASET_FILE_BYTES + 1);
    await expect(readSplit(dir, ref, 'test')).rejects.toThrow(/test\.jsonl is larger than 268,435,456 bytes \(268,435,457\)/);
    await expect(readSplit(dir, ref, 'train')).rejects.toThrow(DatasetError);
    await expect(readSplit(dir, ref, 'train')).rejects.toThrow(/train\.jsonl: the split has more than 1,000,000 rows/);
  });

  // No parquet writer is installed: the GPQA fixture's two shards against smaller limits.
  it('a parquet file is refused by its metadata, before its pages are decoded: rows past the split limit, pages unpacking past the limit', async () => {
    const hub = join(REPO, 'test/fixtures/evals/datasets/hub');
    const gpqa = { path: 'Idavidrein/gpqa', name: 'gpqa_diamond' };
    const limits = { fileBytes: MAX_DATASET_FILE_BYTES, unpackedBytes: MAX_DATASET_UNPACKED_BYTES, rows: MAX_DATASET_ROWS };
    const rows = (await readSplit(hub, gpqa, 'train', limits)).length;
    expect(rows).toBeGreaterThan(1);
    await expect(readSplit(hub, gpqa, 'train', { ...limits, rows: rows - 1 })).rejects.toThrow(
      `train-00001-of-00002.parquet: the split has more than ${rows - 1} rows`,
    );
    await expect(readSplit(hub, gpqa, 'train', { ...limits, unpackedBytes: 1000 })).rejects.toThrow(
      'train-00000-of-00002.parquet unpacks to more than 1,000 bytes',
    );
  });
});

describe('eval replies and requests', () => {
  const servers: { close(): void }[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  /** A server on 127.0.0.1 that answers every chat completion with `message` as the reply's message. */
  async function replying(message: unknown): Promise<string> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ index: 0, message, text: message }] }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const options = async (baseUrl: string, docs: Doc[]): Promise<TaskRunOptions> => ({
    baseUrl,
    model: 'm',
    endpoint: 'chat',
    task: readTaskFile(taskWith([]).file),
    docs,
    fewshot: [],
    concurrency: 2,
    maxTokens: 16,
    timeoutMs: 5000,
    maxRetries: 0,
    backoffMs: 1,
  });
  const docs = [
    { question: 'a', answer: '1' },
    { question: 'b', answer: '2' },
  ];

  it.each([
    ['a number', { content: 1 }, 'a number'],
    ['null without reasoning', { content: null }, 'null'],
    ['missing', { role: 'assistant' }, 'missing'],
    ['a list', { content: ['1'] }, 'a list'],
  ])('a reply whose content is %s is a failed request, never a valid answer', async (_, message, kind) => {
    const result = await runTask(await options(await replying(message), docs));
    expect(result.failures).toEqual({ [`the reply's content is not text (${kind})`]: 2 });
    expect(result).toMatchObject({ failed: 2, valid: false });
    expect(result.samples.map((s) => s.scores['exact_match,none'])).toEqual([0, 0]);
  });

  it('a completion whose text is not a string is a failed request', async () => {
    const o = { ...(await options(await replying(5), docs)), endpoint: 'completions' as const };
    const result = await runTask(o);
    expect(result.failures).toEqual({ "the completion's text is not a string (a number)": 2 });
    expect(result).toMatchObject({ failed: 2, valid: false });
  });

  it('content null with reasoning reads the reasoning, and empty content is an empty answer, as the reference reads them', async () => {
    const reasoned = await runTask(await options(await replying({ content: null, reasoning_content: '1' }), docs));
    expect(reasoned).toMatchObject({ failed: 0, valid: true });
    expect(reasoned.samples.map((s) => s.resps)).toEqual([['1'], ['1']]);
    const empty = await runTask(await options(await replying({ content: '' }), docs));
    expect(empty).toMatchObject({ failed: 0, valid: true });
  });

  it(`a reply body past ${MAX_EVAL_REPLY_BYTES} bytes fails its request, and the server's connection is closed`, async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.setHeader('content-type', 'application/json');
      const piece = Buffer.alloc(1 << 20, 0x20);
      const more = (): void => {
        while (!res.destroyed && written < 4 * MAX_EVAL_REPLY_BYTES) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const result = await runTask(await options(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, docs.slice(0, 1)));
    expect(result.failures).toEqual({ 'the reply is larger than 67,108,864 bytes': 1 });
    expect(result).toMatchObject({ failed: 1, valid: false });
    expect(written).toBeLessThan(4 * MAX_EVAL_REPLY_BYTES);
  });

  it(`more than ${MAX_TASK_REQUESTS} requests (documents × repeats) are refused before any is sent`, async () => {
    const o = await options('http://127.0.0.1:9', []);
    o.task = { ...o.task, repeats: 256 };
    o.docs = Array.from({ length: 4000 }, (_, i) => ({ question: `q${i}`, answer: '1' }));
    await expect(runTask(o)).rejects.toThrow(TaskFileError);
    await expect(runTask(o)).rejects.toThrow(/task\.yaml: repeats: 256 × 4000 documents is more than 1,000,000 requests/);
  });
});

describe('the CLI', () => {
  it('`task: ../../../X` is refused before anything is written, inside --out or outside it', () => {
    const task = taskWith([{ question: 'q', answer: '1' }], ['task: t', 'task: ../../../escaped']);
    const out = join(dirname(task.file), 'a/b/out');
    const r = runCli([
      'eval',
      'run',
      '--task',
      task.file,
      '--data',
      task.data,
      '--out',
      out,
      '--model',
      'm',
      '--max-tokens',
      '8',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^frontier: error: .*task\.yaml:1: task: "\.\.\/\.\.\/\.\.\/escaped" becomes part of a file or folder name/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dirname(task.file)).sort()).toEqual(['data', 'task.yaml']);
  });

  it(`frontier sim serve refuses an answers file that unpacks to more than ${MAX_ANSWERS_FILE_BYTES} bytes`, () => {
    const dir = tempFiles({});
    writeFileSync(join(dir, 'keys.jsonl.gz'), gzipSync(Buffer.alloc(MAX_ANSWERS_FILE_BYTES + 1, 32), { level: 1 }));
    const r = runCli(['sim', 'serve', '--answers', join(dir, 'keys.jsonl.gz'), '--port', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `frontier: error: --answers ${join(dir, 'keys.jsonl.gz')} unpacks to more than 268,435,456 bytes\n    hint: pass the keys frontier eval answer-keys writes\n`,
    );
  });
});
