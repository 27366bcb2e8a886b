import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench, settleOutcome, gpt2Tokenizer } from '../../src/bench/index.js';
import type { BenchOptions, RequestResult } from '../../src/bench/index.js';
import { benchOptions } from '../../src/cli/bench.js';
import { announcedUrl, CLI, runCliAsync, tempFiles } from '../helpers.js';
import { startLlamaServer } from '../support/llama-server.js';
import { waitFor } from '../support/wait.js';

/** A `frontier sim serve` process (the CLI, as users run it) on a free port. */
async function sim(args: string[]): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'sim', 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await announcedUrl(child);
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A line of the sim's --ground-truth file (the fields these tests read). */
interface Truth {
  id: string;
  arrival: number;
  token_times: number[];
}

const options = (url: string, o: Partial<BenchOptions> = {}): BenchOptions => ({
  baseUrl: url,
  path: '/v1/completions',
  chat: false,
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  ignoreEos: true,
  temperature: 0,
  timeoutMs: 60_000,
  concurrency: 16,
  requestRate: Infinity,
  burstiness: 1,
  seed: 0,
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
  percentiles: [90, 99],
  backend: 'vllm',
  tokenizer: 'gpt2',
  dataset: { kind: 'random', numPrompts: 48, inputLen: 128, outputLen: 32, rangeRatio: 0.8, prefixLen: 0 },
  useChatTemplate: false,
  warmups: 8,
  maxFailureRate: 0.05,
  saveDetailed: false,
  ...o,
});

describe('frontier bench against frontier sim', () => {
  let server: Awaited<ReturnType<typeof sim>>;
  let truthFile: string;
  beforeAll(async () => {
    truthFile = join(tempFiles({}), 'truth.jsonl');
    server = await sim(['--speed', '5', '--ground-truth', truthFile]);
  });
  afterAll(() => server.stop());

  /** The sim's ground truth of these requests, by id, once it has all of them (it writes each as it ends). */
  const truthOf = async (ids: string[]): Promise<Map<string, Truth>> => {
    let truth = new Map<string, Truth>();
    await waitFor(
      () => {
        const text = readFileSync(truthFile, 'utf8');
        truth = new Map(
          text
            .slice(0, text.lastIndexOf('\n') + 1) // whole lines only: the last may be half-written
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Truth)
            .map((t) => [t.id, t]),
        );
        return ids.every((id) => truth.has(id));
      },
      { what: () => `the sim's ground truth of ${ids.filter((id) => !truth.has(id)).length} of the ${ids.length} requests` },
    );
    return truth;
  };

  it('accepts the reference client’s command line as InferenceX writes it, and writes its result keys', async () => {
    const dir = tempFiles({});
    const result = await runCliAsync([
      'bench',
      '--model',
      'meta-llama/Llama-3.1-8B-Instruct',
      '--backend',
      'vllm',
      '--base-url',
      server.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '256',
      '--random-output-len',
      '32',
      '--random-range-ratio',
      '0.8',
      '--num-prompts',
      '80',
      '--max-concurrency',
      '8',
      '--request-rate',
      'inf',
      '--ignore-eos',
      '--save-result',
      '--num-warmups',
      '16',
      '--percentile-metrics',
      'ttft,tpot,itl,e2el',
      '--metric-percentiles',
      '90,99,99.9',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
      '--trust-remote-code',
    ]);
    expect(result.stderr).toContain(`result written to ${join(dir, 'run.json')}`);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('============ Serving Benchmark Result ============');
    expect(result.stdout).toContain('✓ valid run');
    const raw = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(raw).slice(0, 21)).toEqual([
      'date',
      'backend',
      'model_id',
      'tokenizer_id',
      'best_of',
      'num_prompts',
      'request_rate',
      'burstiness',
      'max_concurrency',
      'duration',
      'benchmark_start_time_unix',
      'benchmark_end_time_unix',
      'completed',
      'total_input_tokens',
      'total_output_tokens',
      'request_throughput',
      'request_goodput:',
      'output_throughput',
      'total_token_throughput',
      'input_lens',
      'output_lens',
    ]);
    expect(raw).toMatchObject({
      backend: 'vllm',
      num_prompts: 80,
      request_rate: 'inf',
      max_concurrency: 8,
      completed: 80,
      'request_goodput:': null,
    });
    for (const m of ['ttft', 'tpot', 'itl', 'e2el'])
      for (const s of ['mean', 'median', 'std', 'p90', 'p99', 'p99.9']) expect(raw).toHaveProperty(`${s}_${m}_ms`);
    const outputs = raw.output_lens as number[];
    expect(raw.total_output_tokens).toBe(outputs.reduce((a, b) => a + b, 0));
    for (const n of outputs) expect(n >= 25 && n <= 32).toBe(true); // usage, not chunks: [floor(32·0.8), 32]
    expect(raw.duration as number).toBeGreaterThan(0);
    expect((raw.output_throughput as number) * (raw.duration as number)).toBeCloseTo(raw.total_output_tokens as number, 6);
  });

  it('measures what the server really did: per-request TTFT and every gap close to its ground truth', async () => {
    const report = await runBench(
      options(server.url, {
        concurrency: 32,
        saveDetailed: true,
        dataset: { kind: 'random', numPrompts: 128, inputLen: 128, outputLen: 48, rangeRatio: 0.8, prefixLen: 0 },
      }),
    );
    expect(report.valid).toBe(true);
    const truth = await truthOf(report.outcomes.map((o) => o.result.id!));
    const ttftErr: number[] = [];
    const itlErr: number[] = [];
    for (const o of report.outcomes) {
      const t = truth.get(o.result.id!)!;
      expect(t, `ground truth for ${o.result.id}`).toBeDefined();
      ttftErr.push(Math.abs(o.result.ttft - (t.token_times[0]! - t.arrival)));
      const gaps = t.token_times.slice(1).map((x, k) => x - t.token_times[k]!);
      expect(o.result.itl).toHaveLength(gaps.length);
      o.result.itl.forEach((g, k) => itlErr.push(Math.abs(g - gaps[k]!)));
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    // npm run perf measures the real figure (under a millisecond); a loaded CI machine gets slack.
    expect(median(itlErr)).toBeLessThan(3);
    expect(median(ttftErr)).toBeLessThan(20);
  });

  it('--time-scale reports a sped-up engine in its own time', async () => {
    // The sim runs 5× faster than its model; scaled by 5, the client reports the model's times.
    const started = performance.now();
    const report = await runBench(
      options(server.url, {
        timeScale: 5,
        saveDetailed: true,
        dataset: { kind: 'random', numPrompts: 32, inputLen: 128, outputLen: 32, rangeRatio: 0.8, prefixLen: 0 },
      }),
    );
    const wall = performance.now() - started;
    const wallStartMs = performance.timeOrigin + started;
    expect(report.valid).toBe(true);
    expect(report.result.frontier).toMatchObject({ time_scale: 5 });
    const truth = await truthOf(report.outcomes.map((o) => o.result.id!));
    let measured = 0;
    let real = 0;
    for (const o of report.outcomes) {
      const t = truth.get(o.result.id!)!;
      measured += o.result.itl.reduce((a, b) => a + b, 0);
      real += t.token_times.at(-1)! - t.token_times[0]!;
    }
    expect(measured / real).toBeGreaterThan(4.5);
    expect(measured / real).toBeLessThan(5.5);
    // The benchmark's duration is in model time too: more than the wall time it took to measure.
    expect(report.result.duration as number).toBeGreaterThan(wall / 1000);
    // The window is on the run's clock (anchored at the bench's start here), as the telemetry of a
    // simulated run is: its length is the duration, not the wall time.
    const start = report.result.benchmark_start_time_unix as number;
    const end = report.result.benchmark_end_time_unix as number;
    expect(Math.abs(end - start - (report.result.duration as number))).toBeLessThan(0.05 * (end - start) + 0.05);
    expect(start * 1000).toBeGreaterThanOrEqual(wallStartMs - 5);
    expect(start * 1000).toBeLessThan(wallStartMs + wall);
  });

  it('chat: the role-only chunk does not count as the first token', async () => {
    const report = await runBench(options(server.url, { path: '/v1/chat/completions', chat: true, useChatTemplate: false }));
    expect(report.valid).toBe(true);
    for (const o of report.outcomes) {
      expect(o.tokensFrom).toBe('usage');
      expect(o.result.tokenChunks).toBe(o.outputTokens);
      expect(o.result.itl).toHaveLength(o.outputTokens - 1);
    }
  });

  it('open loop: latencies are also reported from when each request was due', async () => {
    const report = await runBench(
      options(server.url, {
        concurrency: undefined,
        requestRate: 200,
        dataset: { kind: 'random', numPrompts: 60, inputLen: 64, outputLen: 16, rangeRatio: 1, prefixLen: 0 },
      }),
    );
    const frontier = report.result.frontier as { from_schedule: Record<string, number> };
    expect(report.result.request_rate).toBe(200);
    expect(frontier.from_schedule.mean_ttft_ms).toBeGreaterThanOrEqual(report.result.mean_ttft_ms as number);
    expect(frontier.from_schedule.mean_e2el_ms).toBeGreaterThanOrEqual(report.result.mean_e2el_ms as number);
    // Sent on schedule: 60 requests at 200/s take about 0.3 s to send.
    expect(report.result.duration as number).toBeGreaterThan(0.25);
  });
});

describe('result file', () => {
  it('an absolute --result-filename ignores --result-dir, as the reference client’s os.path.join does', async () => {
    const args = ['--model', 'm', '--save-result', '--result-dir', '/workspace/'];
    // AMD's multi-node bench.sh names its results by absolute path under the job's log folder.
    expect((await benchOptions([...args, '--result-filename', '/run_logs/job/c1.json']))!.out).toBe('/run_logs/job/c1.json');
    expect((await benchOptions([...args, '--result-filename', 'c1.json']))!.out).toBe('/workspace/c1.json');
  });
});

describe('validity', () => {
  it('a run with more than 5% failures is invalid: exit 1, result still written, failures by reason', async () => {
    const server = await sim(['--speed', '20', '--fault-error-rate', '0.3', '--fault-error-status', '503,429', '--seed', '5']);
    try {
      const dir = tempFiles({});
      const result = await runCliAsync([
        'bench',
        '--base-url',
        server.url,
        '--max-concurrency',
        '4',
        '--num-prompts',
        '40',
        '--random-input-len',
        '32',
        '--random-output-len',
        '8',
        '--ignore-eos',
        '--result-file',
        join(dir, 'r.json'),
      ]);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/✗ invalid run: \d+ of 40 requests failed \(\d+\.\d% > 5\.0%\)/);
      expect(result.stdout).toMatch(/failed ×\d+: HTTP 503: injected fault: HTTP 503/);
      const raw = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
        completed: number;
        frontier: { valid: boolean; failures: Record<string, number> };
      };
      expect(raw.frontier.valid).toBe(false);
      expect(Object.keys(raw.frontier.failures).sort()).toEqual([
        'HTTP 429: injected fault: HTTP 429',
        'HTTP 503: injected fault: HTTP 503',
      ]);
      expect(raw.completed + Object.values(raw.frontier.failures).reduce((a, b) => a + b, 0)).toBe(40);
    } finally {
      await server.stop();
    }
  });

  it('streams cut off mid-way fail with the reason, not as short successes', async () => {
    const server = await sim(['--speed', '20', '--fault-disconnect-rate', '1']);
    try {
      const report = await runBench(
        options(server.url, {
          concurrency: 4,
          warmups: 0,
          dataset: { kind: 'random', numPrompts: 8, inputLen: 32, outputLen: 64, rangeRatio: 1, prefixLen: 0 },
        }),
      );
      expect(report.valid).toBe(false);
      expect(report.metrics.completed).toBe(0);
      // A reset (RST) or a close (FIN) mid-response, depending on timing: both are stream errors.
      expect(Object.keys(report.metrics.failures).length).toBeGreaterThan(0);
      for (const reason of Object.keys(report.metrics.failures))
        expect(reason).toMatch(/^stream error: (ECONNRESET|the connection closed mid-response)$/);
    } finally {
      await server.stop();
    }
  });

  it('a response without usage is counted with the client tokenizer, and flagged', async () => {
    const text = ' one two three';
    const result = {
      id: 'x',
      ttft: 5,
      itl: [1, 1],
      latency: 7,
      text,
      tokenChunks: 3,
      usage: undefined,
      finishReason: 'stop',
      error: undefined,
      errorDetail: undefined,
      done: true,
      sentAt: 0,
      scheduledAt: undefined,
      endAt: 7,
      status: 200,
      retries: 0,
    } satisfies RequestResult;
    const o = await settleOutcome(result, { prompt: 'p', promptLen: 1, outputLen: 3 }, gpt2Tokenizer());
    expect(o).toMatchObject({ success: true, outputTokens: 3, tokensFrom: 'tokenizer' });
    const empty = await settleOutcome(
      { ...result, text: '', tokenChunks: 0 },
      { prompt: 'p', promptLen: 1, outputLen: 3 },
      gpt2Tokenizer(),
    );
    expect(empty).toMatchObject({ success: false, reason: 'no output tokens' });
  });
});

describe('the command line', () => {
  it('rejects an unknown flag the way argparse does (exit 2)', async () => {
    const result = await runCliAsync(['bench', '--base-url', 'http://127.0.0.1:9', '--no-such-flag']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^usage: frontier bench .*\nfrontier bench: error: unrecognized arguments: --no-such-flag\n$/s);
  });

  it('says clearly when the server is not there', async () => {
    const result = await runCliAsync(['bench', '--base-url', 'http://127.0.0.1:9']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^frontier: error: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models .*is the server up\? \(or pass --model\)\n$/,
    );
  });
});

describe('frontier bench against a real llama.cpp server', () => {
  let llama: Awaited<ReturnType<typeof startLlamaServer>>;
  beforeAll(async () => {
    llama = await startLlamaServer();
  }, 20 * 60_000);
  afterAll(() => llama?.stop());

  for (const chat of [false, true]) {
    it(`${chat ? 'chat' : 'completions'}: every request completes with exactly the tokens asked for`, async () => {
      const report = await runBench(
        options(llama.url, {
          model: 'tiny',
          path: chat ? '/v1/chat/completions' : '/v1/completions',
          chat,
          concurrency: 4,
          warmups: 2,
          tokenizer: 'server',
          dataset: { kind: 'random', numPrompts: 12, inputLen: 64, outputLen: 24, rangeRatio: 1, prefixLen: 0 },
        }),
      );
      expect(report.problems).toEqual([]);
      expect(report.metrics.completed).toBe(12);
      for (const o of report.outcomes) {
        expect(o.tokensFrom).toBe('usage');
        expect(o.outputTokens).toBe(24);
        expect(o.result.ttft).toBeGreaterThan(0);
        expect(o.result.usage?.prompt_tokens).toBeGreaterThan(0);
      }
      // The server's own tokenizer built the prompts: they are exactly 64 tokens for it (chat adds its template).
      if (!chat) for (const o of report.outcomes) expect(o.result.usage?.prompt_tokens).toBe(64);
    });
  }
});
