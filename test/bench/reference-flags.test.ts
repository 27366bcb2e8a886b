// The reference client's flags that are not about the workload or the metrics (benchmark_serving.py's
// --profile, --best-of, --logprobs, --disable-tqdm, --tokenizer-mode, --trust-remote-code,
// --random-num-workers, and run_benchmark_serving's --server-pid): each works as there, or is refused
// saying why, or provably changes nothing.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { benchOptions, runBenchCommand } from '../../src/cli/bench.js';
import { stream } from '../adversarial/servers.js';
import { CLI, announcedUrl, runCliAsync, tempFiles } from '../helpers.js';
import type { CliResult } from '../helpers.js';
import { waitFor } from '../support/wait.js';

interface Call {
  url: string;
  body: Record<string, unknown>;
  /** Completion responses already ended when this request arrived. */
  finishedBefore: number;
}

interface Recorder {
  url: string;
  calls: Call[];
}

const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/**
 * An OpenAI-style server that records every POST in arrival order. Completions stream `max_tokens`
 * one-token chunks with usage after 50 ms (or never answer, with `hang`); /start_profile and /stop_profile
 * answer as `profiler` says (vLLM answers 200 with an empty body; without its profiler, 404).
 */
async function recorder(profiler: 200 | 404 | 500, hang = false): Promise<Recorder> {
  const self: Recorder = { url: '', calls: [] };
  let finished = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      // POSTs only: the bench's GETs of /metrics (its spec-decode counters) are not what these tests follow.
      if (req.method === 'POST') self.calls.push({ url: req.url ?? '', body, finishedBefore: finished });
      if (req.url === '/v1/completions') {
        if (hang) return;
        const n = body.max_tokens as number;
        // A while to answer, as an engine takes: a run of instant answers keeps the client busy, which is invalid.
        setTimeout(() => {
          stream(res, n, { prompt_tokens: 8, completion_tokens: n, total_tokens: 8 + n });
          finished++;
        }, 50);
      } else if (profiler === 200 && (req.url === '/start_profile' || req.url === '/stop_profile')) res.writeHead(200).end();
      else if (profiler === 500 && req.url === '/start_profile') res.writeHead(500).end('profiler busy');
      else res.writeHead(404).end('{"detail":"Not Found"}');
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}

/** The bench's command line against `url`: 6 prompts of 4 tokens after 2 warmups, 2 at a time. */
const argv = (url: string, ...extra: string[]): string[] => [
  '--base-url',
  url,
  '--model',
  'm',
  '--tokenizer',
  'gpt2',
  '--random-input-len',
  '16',
  '--random-output-len',
  '4',
  '--random-range-ratio',
  '1',
  '--num-prompts',
  '6',
  '--max-concurrency',
  '2',
  '--num-warmups',
  '2',
  '--ignore-eos',
  ...extra,
];

/**
 * The run was carried out and every request succeeded. (Not its validity: on a busy machine a run
 * this short can find the client's CPU over the bar, which is no concern of these tests.)
 */
function ran(cli: CliResult, completed = 6): void {
  expect(cli.stdout, cli.stderr).toMatch(new RegExp(`Successful requests: +${completed}\nFailed requests: +0\n`));
  expect(cli.status, cli.stdout + cli.stderr).toBe(/✓ valid run/.test(cli.stdout) ? 0 : 1);
}

/** The completions part of the reference's request body, in its key order. */
const REFERENCE_KEYS = ['model', 'prompt', 'temperature', 'best_of', 'max_tokens', 'logprobs', 'stream', 'stream_options'];

describe('--profile', () => {
  it('starts the profiler after the warmups and before the first measured request, and stops it after the last, with the reference’s requests', async () => {
    const server = await recorder(200);
    // The test's own process is alive throughout: watching it must not stop the run.
    const cli = await runCliAsync(['bench', ...argv(server.url, '--profile', '--server-pid', String(process.pid))]);
    ran(cli);
    expect(server.calls.map((c) => c.url)).toEqual([
      ...Array<string>(2).fill('/v1/completions'),
      '/start_profile',
      ...Array<string>(6).fill('/v1/completions'),
      '/stop_profile',
    ]);
    const [start, stop] = [server.calls[2]!, server.calls[9]!];
    expect(start.finishedBefore).toBe(2); // the warmups had ended
    expect(stop.finishedBefore).toBe(8); // and so had every measured request
    // The reference's request function posts its completions payload for the first prompt, plus extra_body.
    const first = server.calls[0]!.body;
    expect(start.body).toEqual({
      model: 'm',
      prompt: first.prompt,
      temperature: 0,
      best_of: 1,
      max_tokens: first.max_tokens,
      logprobs: null,
      stream: true,
      stream_options: { include_usage: true },
      ignore_eos: true,
      num_steps: 1,
      merge_profiles: true,
      profile_by_stage: true,
    });
    expect(Object.keys(start.body)).toEqual([...REFERENCE_KEYS, 'ignore_eos', 'num_steps', 'merge_profiles', 'profile_by_stage']);
    // Its stop request has neither ignore_eos nor the extra body.
    expect(Object.keys(stop.body)).toEqual(REFERENCE_KEYS);
    expect(stop.body.prompt).toBe(first.prompt);
    expect(cli.stdout).toMatch(
      /^Starting profiler\.\.\.\nProfiler started\nStopping profiler\.\.\.\nProfiler stopped\n=+ Serving Benchmark Result/,
    );
    expect(cli.stderr).not.toContain('warning');
  });

  it('against a server without profiler endpoints: says so, and the run goes on, as the reference’s does', async () => {
    const server = await recorder(404);
    const cli = await runCliAsync(['bench', ...argv(server.url, '--profile')]);
    ran(cli);
    expect(cli.stdout).not.toContain('Profiler started');
    expect(cli.stdout).not.toContain('Profiler stopped');
    expect(server.calls.filter((c) => c.url === '/v1/completions')).toHaveLength(8);
    const lines = cli.stderr.trim().split('\n');
    expect(lines).toEqual([
      `frontier bench: warning: --profile: POST ${server.url}/start_profile failed: HTTP 404: the server has no profiler endpoints. vLLM serves /start_profile and /stop_profile only when started with VLLM_TORCH_PROFILER_DIR set (recent releases: --profiler-config); SGLang serves them always. The run goes on without the profiler, as the reference client’s does.`,
      // The stop is still sent, as the reference does; why it fails has been said.
      `frontier bench: warning: --profile: POST ${server.url}/stop_profile failed: HTTP 404. The profile may be missing or incomplete.`,
    ]);
  });

  it('another failure is reported with what the server said', async () => {
    const server = await recorder(500);
    const cli = await runCliAsync(['bench', ...argv(server.url, '--profile')]);
    ran(cli);
    expect(cli.stderr).toContain(`--profile: POST ${server.url}/start_profile failed: HTTP 500 (profiler busy). The run goes on`);
  });

  it('frontier sim serves the profiler as vLLM does: only with VLLM_TORCH_PROFILER_DIR, where a stop writes a trace of the run', async () => {
    const dir = join(tempFiles({}), 'traces');
    const withProfiler = await sim({ VLLM_TORCH_PROFILER_DIR: dir });
    const cli = await runCliAsync([
      'bench',
      ...argv(withProfiler, '--profile', '--num-prompts', '8', '--served-model-name', SIM_MODEL),
    ]);
    ran(cli, 8);
    expect(cli.stdout).toContain('Profiler started\n');
    expect(cli.stdout).toContain('Profiler stopped\n');
    const traces = readdirSync(dir);
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatch(/^frontier-sim_\d+\.\d+\.pt\.trace\.json$/);
    const trace = JSON.parse(readFileSync(join(dir, traces[0]!), 'utf8')) as {
      traceEvents: { ph: string; dur: number; args: { requests_finished: number } }[];
    };
    // The profiled span holds the 8 measured requests, not the 2 warmups before it.
    expect(trace.traceEvents[0]).toMatchObject({ ph: 'X', args: { requests_finished: 8 } });
    expect(trace.traceEvents[0]!.dur).toBeGreaterThan(0);

    const without = await sim({ VLLM_TORCH_PROFILER_DIR: '' });
    for (const path of ['/start_profile', '/stop_profile'])
      expect((await fetch(`${without}${path}`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

const SIM_MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

/** `frontier sim serve` (the CLI) with `env`; its URL. */
async function sim(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'sim', 'serve', '--port', '0', '--speed', '20'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return announcedUrl(child);
}

describe('--best-of and --logprobs', () => {
  it('go into every completions request (warmups too) as best_of and logprobs; best_of into the result', async () => {
    const server = await recorder(404);
    const file = join(tempFiles({}), 'r.json');
    const cli = await runCliAsync(['bench', ...argv(server.url, '--best-of', '3', '--logprobs', '2', '--result-file', file)]);
    ran(cli);
    const bodies = server.calls.map((c) => c.body);
    expect(bodies).toHaveLength(8);
    for (const b of bodies) expect(b).toMatchObject({ best_of: 3, logprobs: 2 });
    expect((JSON.parse(readFileSync(file, 'utf8')) as { best_of: number }).best_of).toBe(3);
  });

  it('without them, neither is sent (the server’s defaults: the reference’s best_of 1 and logprobs null) and the result says best_of 1', async () => {
    const server = await recorder(404);
    const file = join(tempFiles({}), 'r.json');
    const cli = await runCliAsync(['bench', ...argv(server.url, '--result-file', file)]);
    ran(cli);
    for (const c of server.calls) {
      expect(c.body).not.toHaveProperty('best_of');
      expect(c.body).not.toHaveProperty('logprobs');
    }
    expect((JSON.parse(readFileSync(file, 'utf8')) as { best_of: number }).best_of).toBe(1);
  });

  it('are refused with chat, where the reference drops them, and when out of range', async () => {
    for (const chat of [
      ['--backend', 'openai-chat'],
      ['--endpoint', 'chat'],
    ])
      for (const [flag, value] of [
        ['--best-of', '2'],
        ['--logprobs', '1'],
      ] as const)
        await expect(benchOptions(argv('http://127.0.0.1:9', ...chat, flag, value))).rejects.toThrow(
          `argument ${flag}: the reference client sends it only to the completions API (with chat it drops it); drop ${flag}, or bench /v1/completions (--endpoint completions, without --backend openai-chat)`,
        );
    await expect(benchOptions(argv('http://127.0.0.1:9', '--best-of', '0'))).rejects.toThrow(
      'argument --best-of: must be an integer >= 1, got 0',
    );
    await expect(benchOptions(argv('http://127.0.0.1:9', '--logprobs', '-1'))).rejects.toThrow(
      'argument --logprobs: must be an integer >= 0, got -1',
    );
  });
});

describe('--tokenizer-mode', () => {
  it('refuses the Python-only tokenizers, saying what to do instead', async () => {
    for (const [mode, what] of [
      ['slow', "transformers' slow tokenizer"],
      ['mistral', "mistral_common's tokenizer"],
      ['custom', "a tokenizer registered in vLLM's Python process"],
    ])
      await expect(benchOptions(argv('http://127.0.0.1:9', '--tokenizer-mode', mode!))).rejects.toThrow(
        `argument --tokenizer-mode: ${mode} loads ${what}, which only Python has; Frontier tokenizes with a tokenizer.json, gpt2 or the server's /tokenize. Drop --tokenizer-mode, and pass --tokenizer server to count with the server's own tokenizer`,
      );
    await expect(benchOptions(argv('http://127.0.0.1:9', '--tokenizer-mode', 'fast'))).rejects.toThrow(
      "argument --tokenizer-mode: invalid choice: 'fast'",
    );
  });

  it('accepts auto and deepseek_v4 (the same tokens); deepseek_v4’s chat template needs --dsv4', async () => {
    const plain = (await benchOptions(argv('http://127.0.0.1:9')))!.options;
    for (const mode of ['auto', 'deepseek_v4'])
      expect((await benchOptions(argv('http://127.0.0.1:9', '--tokenizer-mode', mode)))!.options).toEqual(plain);
    await expect(
      benchOptions(argv('http://127.0.0.1:9', '--tokenizer-mode', 'deepseek_v4', '--use-chat-template')),
    ).rejects.toThrow(
      'argument --tokenizer-mode: deepseek_v4 with --use-chat-template renders prompts with the DeepSeek-V4 template; add --dsv4, which renders that template here',
    );
    await expect(
      benchOptions(argv('http://127.0.0.1:9', '--tokenizer-mode', 'deepseek_v4', '--use-chat-template', '--dsv4')),
    ).resolves.toBeDefined();
  });
});

describe('flags that mean nothing here', () => {
  it('--trust-remote-code and --random-num-workers change no option of the run', async () => {
    const plain = await benchOptions(argv('http://127.0.0.1:9'));
    const flagged = await benchOptions(argv('http://127.0.0.1:9', '--trust-remote-code', '--random-num-workers', '4'));
    expect(flagged).toEqual(plain);
    // Still argparse's int, as in the reference.
    await expect(benchOptions(argv('http://127.0.0.1:9', '--random-num-workers', 'many'))).rejects.toThrow(
      "argument --random-num-workers: invalid int value: 'many'",
    );
  });

  it('each says why in the help', async () => {
    const cli = await runCliAsync(['bench', '--help']);
    expect(cli.stdout).not.toContain('Accepted for compatibility; no effect.\n  --profile');
    expect(cli.stdout).toMatch(/--trust-remote-code\s+No effect: it lets the Python client run tokenizer code/);
    expect(cli.stdout).toMatch(/--random-num-workers RANDOM_NUM_WORKERS\s+No effect: the Python processes/);
  });
});

describe('--disable-tqdm', () => {
  /** runBenchCommand in this process with stderr a terminal; what it wrote to stderr. */
  async function stderrOnTerminal(args: string[]): Promise<string> {
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    let written = '';
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += chunk.toString();
      return true;
    });
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await runBenchCommand(args);
    } finally {
      err.mockRestore();
      out.mockRestore();
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
      process.exitCode = undefined;
    }
    return written;
  }

  it('takes the progress line off the terminal', async () => {
    const server = await recorder(404);
    expect(await stderrOnTerminal(argv(server.url))).toMatch(/\r {2}6\/6 requests · [\d,]+ tok\/s/);
    expect(await stderrOnTerminal(argv(server.url, '--disable-tqdm'))).not.toContain('requests ·');
  });
});

describe('--server-pid', () => {
  it('refuses a process that is not running, and what is no process id', async () => {
    await expect(benchOptions(argv('http://127.0.0.1:9', '--server-pid', '0'))).rejects.toThrow(
      'argument --server-pid: must be a process id (> 0), got 0',
    );
    const gone = spawn('true');
    await once(gone, 'exit');
    const cli = await runCliAsync(['bench', ...argv('http://127.0.0.1:9', '--server-pid', String(gone.pid))]);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(
      `--server-pid ${gone.pid}: no such process; give the server's process id (in a script, $! after starting it in the background)`,
    );
  });

  it('stops the run with an error when the server’s process dies during it, as run_benchmark_serving does', async () => {
    // A server whose requests never end: without the watch, the run would wait for them.
    const server = await recorder(404, true);
    const stand = spawn('sleep', ['600']);
    children.push(stand);
    const dir = tempFiles({});
    const bench = runCliAsync([
      'bench',
      ...argv(server.url, '--server-pid', String(stand.pid), '--result-file', join(dir, 'r.json')),
    ]);
    await waitFor(() => server.calls.length > 0, { what: 'the first request' });
    stand.kill('SIGKILL');
    const cli = await bench;
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain(
      `frontier bench: error: server process ${stand.pid} (--server-pid) died during the benchmark; stopped without a result (see the server's log for why)`,
    );
    expect(existsSync(join(dir, 'r.json'))).toBe(false);
  });
});
