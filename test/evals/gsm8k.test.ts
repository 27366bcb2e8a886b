import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetError, ensureGsm8k, fewshotFor, loadTask, maxTokensFor, promptOf, readTaskFile } from '../../src/evals/index.js';
import type { Doc } from '../../src/evals/index.js';
import { announcedUrl, CLI, REPO, runCliAsync, tempFiles } from '../helpers.js';
import { singleRow } from '../launch/fixtures.js';
import { startLlamaServer } from '../support/llama-server.js';
import { waitFor } from '../support/wait.js';

const DATA = join(REPO, 'test/fixtures/gsm8k');
const GSM8K = await loadTask(readTaskFile('gsm8k'), DATA);
const docToText = (d: Doc): string => GSM8K.spec.docToText.render(d) as string;

/** The sim's answer keys for GSM8K, as `frontier eval answer-keys` writes them. */
const KEYS = join(tempFiles({}), 'keys.jsonl');
const written = await runCliAsync(['eval', 'answer-keys', '--task', 'gsm8k', '--data', DATA, '--out', KEYS]);
if (written.status !== 0) throw new Error(written.stderr);

/** A `frontier sim serve` answering GSM8K from its answer keys, right with probability `accuracy`. */
async function sim(accuracy: number, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const args = ['sim', 'serve', '--port', '0', '--speed', '1000', '--answers', KEYS, '--accuracy', String(accuracy)];
  const child = spawn(process.execPath, [CLI, ...args, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await announcedUrl(child);
  servers.push(child);
  return { url, child };
}
const servers: ChildProcess[] = [];
afterAll(() => servers.forEach((c) => c.kill('SIGTERM')));

const resultsOf = (dir: string): Record<string, unknown>[] =>
  readdirSync(dir)
    .filter((f) => /^results_.*\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>);
const score = (r: Record<string, unknown>, metric: string): number =>
  (r.results as Record<string, Record<string, number>>).gsm8k![metric]!;

describe('the GSM8K task', () => {
  it('prompts as the reference: 5 shots from train as earlier chat turns, then the question', () => {
    const doc = GSM8K.docs[0]!;
    const shots = fewshotFor(GSM8K.fewshot, 0, 5);
    expect(shots).toHaveLength(5);
    expect(new Set(shots).size).toBe(5);
    const messages = promptOf(GSM8K.spec, doc, shots, 'chat') as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual([...Array<string[]>(5).fill(['user', 'assistant']).flat(), 'user']);
    expect(messages[0]!.content).toBe(docToText(shots[0]!));
    expect(messages[1]!.content).toBe(shots[0]!.answer);
    expect(messages.at(-1)!.content).toBe(
      `Question: ${doc.question as string}\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:`,
    );
    expect(promptOf(GSM8K.spec, doc, shots, 'completions')).toBe(
      `${shots.map((s) => `${docToText(s)} ${s.answer as string}`).join('\n\n')}\n\n${docToText(doc)}`,
    );
  });

  it('draws each doc’s shots from its own seed: the same whatever the limit or order', () => {
    const train = GSM8K.fewshot;
    expect(fewshotFor(train, 7, 5)).toEqual(fewshotFor(train, 7, 5));
    expect(fewshotFor(train, 7, 5)).not.toEqual(fewshotFor(train, 8, 5));
    expect(fewshotFor(train, 7, 5, 42)).not.toEqual(fewshotFor(train, 7, 5));
    // Drawing from the eval split itself, a doc is never its own shot.
    for (let id = 0; id < 50; id++) expect(fewshotFor(train.slice(0, 6), id % 6, 5, 1234, true)).not.toContain(train[id % 6]);
  });

  it('budgets max_tokens from the context length as the reference: min(16384, ctx > 4096 ? ctx − 4096 : ctx / 2)', () => {
    expect([2048, 4096, 4097, 10240, 9472, 131072].map(maxTokensFor)).toEqual([1024, 2048, 1, 6144, 5376, 16384]);
  });
});

describe('frontier eval gsm8k against the sim', () => {
  it('a full run at accuracy 0.93 lands within the statistical bound and passes the 0.90 threshold', async () => {
    const { url } = await sim(0.93);
    const out = tempFiles({ 'row.json': JSON.stringify(singleRow({ conc: 64, isl: 8192, osl: 1024 })) });
    const run = await runCliAsync(
      ['eval', 'gsm8k', '--base-url', url, '--dataset', DATA, '--concurrency', '64', '--out', out].concat([
        '--row',
        join(out, 'row.json'),
        '--max-tokens',
        '256',
      ]),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [result] = resultsOf(out);
    const n = 1319;
    const bound = 3.5 * Math.sqrt((0.93 * 0.07) / n);
    for (const metric of ['exact_match,strict-match', 'exact_match,flexible-extract']) {
      expect(Math.abs(score(result!, metric) - 0.93)).toBeLessThan(bound);
    }
    expect(result!['n-samples']).toEqual({ gsm8k: { original: n, effective: n } });
    const samples = readdirSync(out).find((f) => f.startsWith('samples_gsm8k_'))!;
    const lines = readFileSync(join(out, samples), 'utf8').trim().split('\n');
    // lm-eval's --log_samples form: one line per document and filter.
    expect(lines).toHaveLength(2 * n);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      doc_id: 0,
      target: GSM8K.docs[0]!.answer,
      filter: 'strict-match',
      metrics: ['exact_match'],
      attempts: 1,
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ doc_id: 0, filter: 'flexible-extract' });
    expect(JSON.parse(readFileSync(join(out, 'meta_env.json'), 'utf8'))).toMatchObject({
      infmax_model_prefix: 'llama3.1-8b',
      conc: 64,
      isl: '8192',
      osl: '1024',
      hw: 'h100',
    });
    const check = await runCliAsync(['eval', 'check', out]);
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/PASS: gsm8k exact_match,strict-match = 0\.9\d{3} \(>= 0\.9 from default\)/);
  }, 120_000);

  it('at accuracy 0.80 the same check fails it', async () => {
    const { url } = await sim(0.8);
    const out = tempFiles({ 'row.json': JSON.stringify(singleRow({ conc: 32 })) });
    const run = await runCliAsync(
      ['eval', 'gsm8k', '--base-url', url, '--dataset', DATA, '--limit', '400', '--concurrency', '32'].concat([
        '--out',
        out,
        '--row',
        join(out, 'row.json'),
        '--max-tokens',
        '256',
      ]),
    );
    expect(run.status).toBe(0);
    const check = await runCliAsync(['eval', 'check', out]);
    expect(check.status).toBe(1);
    expect(check.stderr).toMatch(/FAIL: gsm8k exact_match,strict-match = 0\.[78]\d{3}/);
  }, 60_000);

  it('retries 503s with backoff; a 400 is not retried, counts as incorrect, and over 5% of them make the run invalid', async () => {
    const flaky = await sim(1, ['--fault-error-rate', '0.3', '--fault-error-status', '503']);
    const out1 = tempFiles({});
    // The sim draws its faults in arrival order, which the scheduler decides: with the default 5
    // retries a doc fails outright when 6 draws in a row land on it (a few % of runs); 20 retries
    // make that 0.3^21 whatever the interleaving.
    const retried = await runCliAsync(
      ['eval', 'gsm8k', '--base-url', flaky.url, '--dataset', DATA, '--limit', '100'].concat([
        '--concurrency',
        '8',
        '--out',
        out1,
        '--max-tokens',
        '256',
        '--retry-backoff',
        '0.01',
        '--max-retries',
        '20',
      ]),
    );
    expect(retried.status).toBe(0);
    const [r1] = resultsOf(out1);
    expect(score(r1!, 'exact_match,strict-match')).toBe(1);
    expect(r1!.frontier).toMatchObject({ valid: true, failed_requests: 0 });
    const samples1 = readFileSync(
      join(
        out1,
        readdirSync(out1).find((f) => f.startsWith('samples_'))!,
      ),
      'utf8',
    );
    expect(samples1).toMatch(/"attempts":[2-9]/);

    const broken = await sim(1, ['--fault-error-rate', '0.2', '--fault-error-status', '400']);
    const out2 = tempFiles({});
    const failing = await runCliAsync(
      ['eval', 'gsm8k', '--base-url', broken.url, '--dataset', DATA, '--limit', '100'].concat([
        '--concurrency',
        '8',
        '--out',
        out2,
        '--max-tokens',
        '256',
        '--retry-backoff',
        '0.01',
      ]),
    );
    expect(failing.status).toBe(1);
    expect(failing.stdout).toMatch(/no \(\d+ of 100 requests failed: HTTP 400 ×\d+\)/);
    const [r2] = resultsOf(out2);
    const failed = (r2!.frontier as { failed_requests: number }).failed_requests;
    expect(failed).toBeGreaterThan(5);
    // Failed requests count as incorrect.
    expect(score(r2!, 'exact_match,strict-match')).toBeCloseTo((100 - failed) / 100, 10);
  }, 60_000);

  it('an interrupt keeps the finished samples; --resume asks only for the rest', async () => {
    const truth = join(tempFiles({}), 'truth.jsonl');
    // Slow enough (a quarter of real time) to interrupt mid-way.
    const child = spawn(
      process.execPath,
      [CLI, 'sim', 'serve', '--port', '0', '--speed', '0.25', '--answers', KEYS, '--ground-truth', truth],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    servers.push(child);
    const url = await new Promise<string>((resolve) => {
      let s = '';
      child.stdout!.on('data', (d: Buffer) => {
        s += d.toString();
        const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(s);
        if (m) resolve(m[1]!);
      });
    });
    const out = tempFiles({});
    const args = [
      'eval',
      'gsm8k',
      '--base-url',
      url,
      '--dataset',
      DATA,
      '--limit',
      '60',
      '--concurrency',
      '4',
      '--out',
      out,
      '--max-tokens',
      '64',
    ];
    const first = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
    const partial = join(out, '.samples_gsm8k.partial.jsonl');
    const lines = (): number => (existsSync(partial) ? readFileSync(partial, 'utf8').split('\n').length : 0);
    await waitFor(() => lines() >= 12, { timeoutMs: 20_000, what: () => `11 finished samples in ${partial} (${lines()} lines)` });
    first.kill('SIGINT');
    expect(await new Promise((r) => first.on('exit', r))).toBe(130);
    const kept = readFileSync(partial, 'utf8').trim().split('\n');
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(60);
    const refused = await runCliAsync(args);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('pass --resume');
    const resumed = await runCliAsync([...args, '--resume']);
    expect(resumed.status).toBe(0);
    const final = readFileSync(
      join(
        out,
        readdirSync(out).find((f) => f.startsWith('samples_'))!,
      ),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { doc_id: number; filter: string; resps: string[][] });
    expect(final).toHaveLength(2 * 60);
    // The kept samples are in the final file as they were.
    for (const line of kept) {
      const k = JSON.parse(line) as { doc_id: number; resps: string[] };
      expect(final.find((f) => f.doc_id === k.doc_id)!.resps).toEqual([k.resps]);
    }
    expect(existsSync(partial)).toBe(false);
    // The server saw the kept samples once: at most the 4 cut off in flight were asked again. Its ground truth is
    // complete once it has stopped (it closes the file before it exits).
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
    const requests = readFileSync(truth, 'utf8').trim().split('\n').length;
    expect(requests).toBeLessThanOrEqual(60 + 4);
  }, 60_000);
});

describe('the dataset', () => {
  it('downloads a missing split once, keeping it only when its sha256 is the pinned one', async () => {
    const test = gunzipSync(readFileSync(join(DATA, 'test.jsonl.gz')));
    expect(createHash('sha256').update(test).digest('hex')).toBe(
      '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14',
    );
    let served = test;
    const server = createServer((req, res) => {
      if (req.url === '/data/test.jsonl') res.writeHead(200).end(served);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const source = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data`;
    try {
      const cacheDir = join(tempFiles({}), 'cache');
      mkdirSync(cacheDir);
      // train is already there: only test is fetched.
      writeFileSync(join(cacheDir, 'train.jsonl'), gunzipSync(readFileSync(join(DATA, 'train.jsonl.gz'))));
      expect(await ensureGsm8k({ cacheDir, source })).toBe(cacheDir);
      expect((await loadTask(readTaskFile('gsm8k'), cacheDir)).docs).toHaveLength(1319);

      served = Buffer.concat([test, Buffer.from('{"question": "x", "answer": "#### 1"}\n')]);
      const other = join(tempFiles({}), 'cache');
      mkdirSync(other);
      writeFileSync(join(other, 'train.jsonl'), 'x');
      await expect(ensureGsm8k({ cacheDir: other, source })).rejects.toThrow(
        /sha256 [0-9a-f]{64}, expected 3730d312.*nothing was cached/,
      );
      expect(existsSync(join(other, 'test.jsonl'))).toBe(false);
      await expect(ensureGsm8k({ cacheDir: join(tempFiles({}), 'c'), source })).rejects.toThrow(DatasetError);
    } finally {
      server.close();
    }
  });
});

describe('frontier eval gsm8k against a real llama.cpp server', () => {
  it('completes against the tiny model, whose accuracy is ~0: the check fails it', async () => {
    const server = await startLlamaServer({ parallel: 4, ctx: 2048 });
    try {
      const out = tempFiles({ 'row.json': JSON.stringify(singleRow({ conc: 4 })) });
      const run = await runCliAsync(
        ['eval', 'gsm8k', '--base-url', server.url, '--dataset', DATA, '--limit', '12', '--concurrency', '4'].concat([
          '--out',
          out,
          '--row',
          join(out, 'row.json'),
          '--max-tokens',
          '24',
        ]),
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const [result] = resultsOf(out);
      expect(result!.frontier).toMatchObject({ valid: true, failed_requests: 0 });
      expect(score(result!, 'exact_match,strict-match')).toBe(0);
      const samples = readFileSync(
        join(
          out,
          readdirSync(out).find((f) => f.startsWith('samples_'))!,
        ),
        'utf8',
      )
        .trim()
        .split('\n');
      expect(samples).toHaveLength(2 * 12);
      // It answered (gibberish): every response is text, none is a failure.
      for (const line of samples) expect((JSON.parse(line) as { resps: string[][] }).resps[0]![0]!.length).toBeGreaterThan(0);
      const check = await runCliAsync(['eval', 'check', out]);
      expect(check.status).toBe(1);
      expect(check.stderr).toMatch(/FAIL: gsm8k exact_match,strict-match = 0\.0000/);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
