// `frontier bench` (the built CLI, as users run it) against servers that misbehave: every run
// writes its result, counts each failure under its reason, never re-sends a request the server may
// have seen, and is invalid where its numbers cannot be trusted.
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliAsync, tempFiles } from '../helpers.js';
import { adversary, event, startStream, stream } from './servers.js';
import type { Adversary, Behaviour } from './servers.js';

interface Result {
  completed: number;
  total_output_tokens: unknown;
  output_throughput: number;
  frontier: {
    valid: boolean;
    problems: string[];
    failures: Record<string, number>;
    failure_examples: Record<string, string>;
    retries: number;
    usage_check: { checked: number; mismatched: number; example: string | null; error: string | null };
  };
}

const started: Adversary[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

async function serve(behaviour: Behaviour, options: { tokenize?: boolean } = {}): Promise<Adversary> {
  const server = await adversary(behaviour, options);
  started.push(server);
  return server;
}

/** Run the bench (4 prompts of 4 output tokens, one at a time, no warm-up) and read its result file. */
async function bench(server: Adversary, flags: Record<string, string> = {}) {
  const file = join(tempFiles({}), 'result.json');
  const all: Record<string, string> = {
    '--model': 'm',
    '--tokenizer': 'gpt2',
    '--random-input-len': '8',
    '--random-output-len': '4',
    '--random-range-ratio': '1',
    '--num-prompts': '4',
    '--max-concurrency': '1',
    '--num-warmups': '0',
    '--timeout': '2',
    ...flags,
  };
  const args = ['bench', '--base-url', server.url, '--result-file', file];
  for (const [flag, value] of Object.entries(all)) if (value !== '') args.push(flag, value);
  const cli = await runCliAsync(args);
  expect(existsSync(file), `${cli.stdout}\n${cli.stderr}`).toBe(true);
  return { cli, result: JSON.parse(readFileSync(file, 'utf8')) as Result };
}

const honest = (_n: number, res: ServerResponse): void => stream(res, 4, { prompt_tokens: 8, completion_tokens: 4 });

describe('frontier bench against misbehaving servers', () => {
  it('an honest server: a valid run, no failures, no retries (the baseline the others differ from)', async () => {
    const server = await serve(honest);
    const { cli, result } = await bench(server);
    expect(cli.status, cli.stdout).toBe(0);
    expect(result.frontier).toMatchObject({ valid: true, failures: {}, retries: 0 });
    expect(result.frontier.usage_check).toMatchObject({ checked: 4, mismatched: 0 });
    expect(result.total_output_tokens).toBe(16);
    expect(cli.stdout).toContain('retries: 0');
    expect(server.completions).toBe(4);
  });

  it('a server that stalls past --timeout on a kept-alive connection: those requests fail, and are not sent again', async () => {
    // Request 1 gets no answer at all; request 2 a head, then nothing.
    const server = await serve((n, res) => (n === 1 ? undefined : n === 2 ? startStream(res) : honest(n, res)));
    const { cli, result } = await bench(server, { '--timeout': '0.3' });
    expect(cli.status).toBe(1);
    expect(result.completed).toBe(2);
    expect(result.frontier.failures).toEqual({
      'connection error: no data for 0.3 s': 1,
      'stream error: no data for 0.3 s': 1,
    });
    expect(result.frontier.retries).toBe(0);
    expect(result.frontier.valid).toBe(false);
    expect(server.completions).toBe(4);
  });

  it('a server that drops the connection after receiving a request: a failure with its reason, not a re-send', async () => {
    const server = await serve((n, res, req) => (n === 1 ? req.socket.destroy() : honest(n, res)));
    const { cli, result } = await bench(server);
    expect(cli.status).toBe(1);
    expect(result.completed).toBe(3);
    const reasons = Object.keys(result.frontier.failures);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^connection error: (ECONNRESET|the server closed the connection before responding \(not re-sent: it may have seen the request\))$/,
    );
    expect(result.frontier.retries).toBe(0);
    expect(server.completions).toBe(4);
    expect(cli.stdout).toMatch(/✗ invalid run: 1 of 4 requests failed/);
  });

  it('a server that drips a byte a beat forever: the total --request-deadline ends the request', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await serve((n, res) => {
      if (n !== 0) return honest(n, res);
      startStream(res);
      timers.push(setInterval(() => res.write(':\n'), 50)); // an SSE comment: bytes, never an event
    });
    try {
      const { result } = await bench(server, { '--timeout': '0.3', '--request-deadline': '1' });
      expect(result.frontier.failures).toEqual({ 'stream error: no complete response within 1 s': 1 });
      expect(result.completed).toBe(3);
      expect(server.completions).toBe(4);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('a server that sends one endless SSE line: the request fails past the event size limit, memory bounded', async () => {
    const server = await serve((n, res) => {
      if (n !== 0) return honest(n, res);
      startStream(res);
      res.write('data: ');
      const mb = 'x'.repeat(1 << 20);
      for (let i = 0; i < 17; i++) res.write(mb);
    });
    const { result } = await bench(server);
    expect(result.frontier.failures).toEqual({ 'event too large': 1 });
    expect(result.frontier.failure_examples['event too large']).toMatch(/grew past 16 Mi characters/);
    expect(result.completed).toBe(3);
    expect(server.completions).toBe(4);
  });

  for (const [name, usage, reason] of [
    ['a string', '7', 'invalid usage: completion_tokens is not a non-negative integer'],
    ['negative', -4, 'invalid usage: completion_tokens is not a non-negative integer'],
    ['absurd', 1e13, 'invalid usage: completion_tokens exceeds the max_tokens asked for'],
  ] as const) {
    it(`usage that is ${name}: the requests fail, the total stays a number, the run is invalid`, async () => {
      // One request in four lies: under the 5% failure gate alone it would pass; bad accounting does not.
      const server = await serve((n, res) => (n === 2 ? stream(res, 4, { completion_tokens: usage }) : honest(n, res)));
      const { cli, result } = await bench(server, { '--max-failure-rate': '0.5' });
      expect(cli.status).toBe(1);
      expect(result.frontier.failures).toEqual({ [reason]: 1 });
      expect(result.total_output_tokens).toBe(12);
      expect(result.output_throughput).toBeGreaterThan(0);
      expect(result.frontier.valid).toBe(false);
      expect(result.frontier.problems).toContain("the server's usage cannot be trusted: 1 request(s) reported invalid usage");
      expect(cli.stdout).toContain('Total generated tokens:                         12');
    });
  }

  it('usage far from what was streamed: reported, and the run invalid', async () => {
    // Claims 64 tokens, streams 2.
    const server = await serve((_n, res) => stream(res, 2, { prompt_tokens: 8, completion_tokens: 64 }));
    const { cli, result } = await bench(server, { '--random-output-len': '64' });
    expect(cli.status).toBe(1);
    expect(result.frontier.usage_check).toEqual({ checked: 4, mismatched: 4, example: 'usage 64, text 2 tokens', error: null });
    expect(result.frontier.valid).toBe(false);
    expect(result.frontier.problems).toContain(
      "the server's usage disagrees with the streamed text in 4 of 4 requests checked (e.g. usage 64, text 2 tokens)",
    );
    expect(cli.stdout).toContain('note: usage disagrees with the streamed text in 4 of 4 requests checked');
  });

  it('malformed events of different content share one bucket, with an example', async () => {
    const server = await serve((n, res) => {
      startStream(res);
      res.end(`${event(' the')}data: {"broken ${n}\n\ndata: [DONE]\n\n`);
    });
    const { result } = await bench(server);
    expect(result.frontier.failures).toEqual({ 'malformed event (not JSON)': 4 });
    expect(result.frontier.failure_examples['malformed event (not JSON)']).toBe('{"broken 0');
  });

  it('an engine killed mid-run, with the server tokenizer: per-request failures, one counted retry, a result written', async () => {
    // No usage in its streams, so output tokens are counted with the server's /tokenize: which is gone
    // when the run ends. Request 2 is cut mid-stream by the crash; request 3 finds nothing listening.
    const server = await serve(
      (n, res, _req, self) => {
        if (n < 2) return stream(res, 4);
        startStream(res);
        res.write(event(' the'));
        setTimeout(() => self.crash(), 20);
      },
      { tokenize: true },
    );
    const { cli, result } = await bench(server, { '--tokenizer': '' });
    expect(cli.status).toBe(1);
    expect(cli.stderr).not.toMatch(/unhandled|TypeError/i);
    expect(result.completed).toBe(0);
    expect(result.frontier.failures).toEqual({
      'output tokens could not be counted (no usage, and the tokenizer failed)': 2,
      'stream error: the connection closed mid-response': 1,
      'connection error: ECONNREFUSED': 1,
    });
    expect(result.frontier.failure_examples['output tokens could not be counted (no usage, and the tokenizer failed)']).toMatch(
      /\/tokenize: ECONNREFUSED/,
    );
    // The refused connection was tried once more (nothing had been written); nothing else was re-sent.
    expect(result.frontier.retries).toBe(1);
    expect(server.completions).toBe(3);
    expect(result.frontier.valid).toBe(false);
  });
});
