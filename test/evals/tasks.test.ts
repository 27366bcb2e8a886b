import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { announcedUrl, CLI, REPO, runCliAsync, tempFiles } from '../helpers.js';
import { singleRow } from '../launch/fixtures.js';
import { startLlamaServer } from '../support/llama-server.js';

// GPQA- and AIME-schema tasks end to end: answer keys, the sim's evals double at a set accuracy,
// `frontier eval run`, then check and collect. The data are invented for the tests, in each
// dataset's schema and the hub's layout.

const GPQA_ROWS = 150; // × 2 passes of InferenceX's answer shuffle = 300 documents
const AIME_ROWS = 30; // × 8 samples each

function gpqaRow(i: number): Record<string, unknown> {
  return {
    'Record ID': `rec${i}`,
    'High-level domain': ['Physics', 'Chemistry', 'Biology'][i % 3],
    Question: `Invented question ${i}: which of these is the right one?`,
    'Correct Answer': `the right answer to ${i}`,
    'Incorrect Answer 1': `a wrong answer to ${i}`,
    'Incorrect Answer 2': `another wrong answer to ${i}`,
    'Incorrect Answer 3': `a third wrong answer to ${i}`,
  };
}
const aimeRow = (i: number): Record<string, unknown> => ({
  ID: `2024-I-${i}`,
  Problem: `Invented problem ${i}: find the remainder when ${i * 37 + 5} is divided by 1000.`,
  Solution: 'By inspection.',
  Answer: (i * 37 + 5) % 1000,
});
const jsonl = (rows: Record<string, unknown>[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

const DATA = tempFiles({
  'Idavidrein/gpqa/gpqa_diamond/train-00000-of-00001.jsonl': jsonl(Array.from({ length: GPQA_ROWS }, (_, i) => gpqaRow(i))),
  'Maxwell-Jia/AIME_2024/data/train-00000-of-00001.jsonl': jsonl(Array.from({ length: AIME_ROWS }, (_, i) => aimeRow(i))),
});
const KEYS = join(tempFiles({}), 'keys.jsonl');
const THRESHOLDS = join(tempFiles({ 't.yaml': 'default:\n  gpqa_diamond_cot_n_shot: 0.30\n  aime: 0.40\n' }), 't.yaml');

const servers: ChildProcess[] = [];
afterAll(() => servers.forEach((c) => c.kill('SIGTERM')));
async function sim(accuracy: number, keys = KEYS): Promise<string> {
  const child = spawn(
    process.execPath,
    [CLI, 'sim', 'serve', '--port', '0', '--speed', '1000', '--answers', keys, '--accuracy', String(accuracy)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  servers.push(child);
  return announcedUrl(child);
}

/** `frontier eval run` of these tasks on the test data against a server, into `out`. */
const evalRun = (tasks: string, url: string, out: string, extra: string[] = [], data = DATA) =>
  runCliAsync([
    'eval',
    'run',
    '--task',
    tasks,
    '--data',
    data,
    '--base-url',
    url,
    '--concurrency',
    '32',
    '--max-tokens',
    '256',
    '--out',
    out,
    ...extra,
  ]);

type Results = {
  results: Record<string, Record<string, number>>;
  'n-samples': Record<string, { effective: number }>;
  frontier: Record<string, unknown>;
};
const resultsIn = (dir: string): Results =>
  JSON.parse(
    readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => /^results_.*\.json$/.test(f))!,
      ),
      'utf8',
    ),
  ) as Results;

describe('GPQA and AIME against the sim’s answer double', () => {
  it('writes answer keys the tasks score right and wrong', async () => {
    const r = await runCliAsync([
      'eval',
      'answer-keys',
      '--task',
      'gpqa_diamond',
      '--task',
      'aime',
      '--data',
      DATA,
      '--out',
      KEYS,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const keys = readFileSync(KEYS, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { question: string; right: string; wrong: string });
    expect(keys).toHaveLength(2 * GPQA_ROWS + AIME_ROWS);
    expect(keys[0]!.question).toMatch(
      /^Invented question 0: .*\n\n\(A\) .*\n\(B\) .*\n\(C\) .*\n\(D\) .*\n\nExpress your final answer/s,
    );
    expect(keys[0]!.right).toMatch(/ [A-D]$/);
    expect(keys[0]!.wrong).toMatch(/ [A-D]$/);
    expect(keys[0]!.wrong).not.toBe(keys[0]!.right);
    expect(keys.at(-1)!.right).toMatch(/\\boxed\{\d+\}/);
  });

  it('at accuracy 0.7 both score within the statistical band, AIME’s mean@8 with its smaller standard error, and pass the check', async () => {
    const url = await sim(0.7);
    const out = tempFiles({ 'row.json': JSON.stringify(singleRow({ conc: 32, 'eval-tasks': ['gpqa_diamond', 'aime'] })) });
    const run = await evalRun('gpqa_diamond,aime', url, out, ['--row', join(out, 'row.json')]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/gpqa_diamond_cot_n_shot\s+exact_match,extract_abcd\s+0\.\d{4} ± 0\.\d{4}\s+300\s+1 /);
    expect(run.stdout).toMatch(/aime\s+exact_match,extract_boxed\s+0\.\d{4} ± 0\.\d{4}\s+30\s+8 /);
    const r = resultsIn(out);
    expect(r['n-samples']).toEqual({
      gpqa_diamond_cot_n_shot: { original: 300, effective: 300 },
      aime: { original: 30, effective: 30 },
    });
    const gpqa = r.results.gpqa_diamond_cot_n_shot!;
    expect(Math.abs(gpqa['exact_match,extract_abcd']! - 0.7)).toBeLessThan(4 * Math.sqrt((0.7 * 0.3) / 300));
    expect(gpqa['exact_match_stderr,extract_abcd']).toBeCloseTo(Math.sqrt((0.7 * 0.3) / 300), 2);
    // 240 sampled answers over 30 problems: the mean's spread is that of 240 draws, not 30.
    const aime = r.results.aime!;
    const sampled = Math.sqrt((0.7 * 0.3) / (8 * AIME_ROWS));
    expect(Math.abs(aime['exact_match,extract_boxed']! - 0.7)).toBeLessThan(4 * sampled);
    expect(aime['exact_match_stderr,extract_boxed']).toBeGreaterThan(sampled / 2);
    expect(aime['exact_match_stderr,extract_boxed']).toBeLessThan(Math.sqrt((0.7 * 0.3) / AIME_ROWS) / 1.5);
    expect(r.frontier).toMatchObject({ valid: true, failed_requests: 0, tasks: { aime: { requests: 240, repeats: 8 } } });
    // One samples file per task, lm-eval's form; AIME's lines carry the 8 responses and a fraction.
    const samples = readdirSync(out)
      .filter((f) => f.startsWith('samples_'))
      .sort();
    expect(samples).toEqual([
      expect.stringMatching(/^samples_aime_.*\.jsonl$/),
      expect.stringMatching(/^samples_gpqa_diamond_cot_n_shot_.*\.jsonl$/),
    ]);
    const line = JSON.parse(readFileSync(join(out, samples[0]!), 'utf8').split('\n')[0]!) as {
      resps: string[][];
      filtered_resps: string[][];
      exact_match: number;
    };
    expect(line.resps[0]).toHaveLength(8);
    expect(line.filtered_resps[0]).toHaveLength(8);
    expect(line.exact_match * 8).toBe(Math.round(line.exact_match * 8));

    const check = await runCliAsync(['eval', 'check', out, '--thresholds', THRESHOLDS]);
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/PASS: aime exact_match,extract_boxed = 0\.\d{4} \(>= 0\.4 from default\)/);
    expect(check.stdout).toMatch(/PASS: gpqa_diamond_cot_n_shot exact_match,extract_abcd = 0\.\d{4} \(>= 0\.3 from default\)/);
    expect(check.status).toBe(0);

    const collected = tempFiles({});
    const c = await runCliAsync(['eval', 'collect', out, '--out', join(collected, 'agg.json')]);
    expect(c.status).toBe(0);
    const rows = JSON.parse(readFileSync(join(collected, 'agg.json'), 'utf8')) as {
      task: string;
      em_flexible: number;
      n_eff: number;
    }[];
    expect(rows.map((x) => [x.task, x.n_eff])).toEqual([
      ['gpqa_diamond_cot_n_shot', 300],
      ['aime', 30],
    ]);
  }, 180_000);

  it('at accuracy 0.15 the reference GPQA threshold (0.30) fails it', async () => {
    const url = await sim(0.15);
    const out = tempFiles({});
    const run = await evalRun('gpqa_diamond', url, out);
    expect(run.status).toBe(0);
    const check = await runCliAsync(['eval', 'check', out]);
    expect(check.status).toBe(1);
    expect(check.stderr).toMatch(
      /FAIL: gpqa_diamond_cot_n_shot exact_match,extract_abcd = 0\.[0-2]\d{3} \(< 0\.3 from default\)/,
    );
  }, 60_000);

  it('reads the hub’s parquet files: the bundled GPQA shards, every answer right, then every answer wrong', async () => {
    const hub = join(REPO, 'test/fixtures/evals/datasets/hub');
    const keys = join(tempFiles({}), 'keys.jsonl');
    expect((await runCliAsync(['eval', 'answer-keys', '--task', 'gpqa_diamond', '--data', hub, '--out', keys])).status).toBe(0);
    for (const accuracy of [1, 0]) {
      const url = await sim(accuracy, keys);
      const out = tempFiles({});
      const run = await evalRun('gpqa_diamond', url, out, [], hub);
      expect(run.status).toBe(0);
      const r = resultsIn(out);
      expect(r['n-samples'].gpqa_diamond_cot_n_shot!.effective).toBe(24);
      expect(r.results.gpqa_diamond_cot_n_shot!['exact_match,extract_abcd']).toBe(accuracy);
    }
  }, 60_000);

  it('a task whose data is missing names the split, the folders looked in and the fix', async () => {
    const run = await evalRun('aime', 'http://127.0.0.1:9', tempFiles({}), ['--model', 'm'], tempFiles({}));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /no "train" split of Maxwell-Jia\/AIME_2024 .*looked in .*huggingface-cli download Maxwell-Jia\/AIME_2024/,
    );
    // Without --task, the tasks come from the row's eval-tasks.
    const row = join(tempFiles({ 'row.json': JSON.stringify(singleRow({ 'eval-tasks': ['aime'] })) }), 'row.json');
    const none = await runCliAsync([
      'eval',
      'run',
      '--row',
      row,
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      '--max-tokens',
      '8',
    ]);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/aime needs its data \(Maxwell-Jia\/AIME_2024\): pass --data DIR/);
  });
});

describe('GPQA and AIME against a real llama.cpp server', () => {
  it('complete with every request answered (the stop strings, seeds and sampling settings are accepted)', async () => {
    const server = await startLlamaServer({ parallel: 4, ctx: 2048 });
    try {
      const out = tempFiles({});
      const run = await runCliAsync(
        ['eval', 'run', '--task', 'gpqa_diamond,aime', '--data', join(REPO, 'test/fixtures/evals/datasets/hub')].concat([
          '--base-url',
          server.url,
          '--limit',
          '3',
          '--concurrency',
          '4',
          '--max-tokens',
          '16',
          '--out',
          out,
        ]),
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const r = resultsIn(out);
      expect(r.frontier).toMatchObject({ valid: true, failed_requests: 0, tasks: { aime: { requests: 24 } } });
      for (const [task, metric] of [
        ['gpqa_diamond_cot_n_shot', 'exact_match,extract_abcd'],
        ['aime', 'exact_match,extract_boxed'],
      ] as const) {
        expect(r['n-samples'][task]!.effective).toBe(3);
        expect(r.results[task]![metric]).toBeGreaterThanOrEqual(0);
        expect(r.results[task]![metric]).toBeLessThanOrEqual(1);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});
