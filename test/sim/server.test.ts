import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerBook, NO_FAULTS, buildTopology, encode, renderChat, startSimServer } from '../../src/sim/index.js';
import type { FaultOptions, SimServer, SimServerOptions } from '../../src/sim/index.js';
import { tempFiles } from '../helpers.js';
import { readSse } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(
  options: Partial<Omit<SimServerOptions, 'faults'>> & { faults?: Partial<FaultOptions> } = {},
): Promise<SimServer> {
  const server = await startSimServer({
    topology: buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' }),
    servedModelName: MODEL,
    maxModelLen: 8192,
    speed: 20,
    seed: 1,
    naturalOutputTokens: 32,
    host: '127.0.0.1',
    port: 0,
    ...options,
    faults: { ...NO_FAULTS, ...options.faults },
  });
  servers.push(server);
  return server;
}

const post = (server: SimServer, path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

interface Stream {
  status: number;
  /** Each event's data: parsed JSON, or the raw text when it is not JSON. */
  events: unknown[];
  /** When each event arrived (epoch ms, the clock the ground truth uses). */
  times: number[];
  done: boolean;
  /** The connection broke before the end. */
  broken: boolean;
}

async function stream(server: SimServer, path: string, body: Record<string, unknown>): Promise<Stream> {
  const res = await post(server, path, { ...body, stream: true });
  const out: Stream = { status: res.status, events: [], times: [], done: false, broken: false };
  if (!res.body) return out;
  try {
    await readSse(res.body, ({ data, at }) => {
      if (data === '[DONE]') out.done = true;
      else {
        try {
          out.events.push(JSON.parse(data));
        } catch {
          out.events.push(data);
        }
        out.times.push(performance.timeOrigin + at);
      }
    });
  } catch {
    out.broken = true;
  }
  return out;
}

type Chunk = {
  id: string;
  object: string;
  model: string;
  choices: { text?: string; delta?: { content?: string; role?: string }; finish_reason: string | null }[];
  usage?: unknown;
};
const textOf = (s: Stream): string =>
  (s.events as Chunk[]).map((e) => e.choices[0]?.text ?? e.choices[0]?.delta?.content ?? '').join('');
const tokenChunks = (s: Stream): Chunk[] =>
  (s.events.filter((e) => typeof e === 'object') as Chunk[]).filter(
    (e) =>
      e.choices.length > 0 &&
      (e.choices[0]!.text !== undefined || e.choices[0]!.delta?.content !== undefined) &&
      !e.choices[0]!.delta?.role,
  );

describe('OpenAI-compatible API, as vLLM serves it', () => {
  it('streams completions token by token, with usage as a separate final chunk', async () => {
    const server = await serve();
    const prompt = 'The quick brown fox jumps over the lazy dog. '.repeat(8);
    const s = await stream(server, '/v1/completions', {
      model: MODEL,
      prompt,
      max_tokens: 24,
      ignore_eos: true,
      stream_options: { include_usage: true },
    });
    expect(s.status).toBe(200);
    expect(s.done).toBe(true);
    const chunks = tokenChunks(s);
    expect(chunks).toHaveLength(24); // one chunk per token
    for (const c of chunks) {
      expect(c).toMatchObject({ object: 'text_completion', model: MODEL, usage: null });
      expect(c.id).toMatch(/^cmpl-/);
    }
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length');
    const usage = s.events.at(-1) as Chunk;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({
      prompt_tokens: encode(prompt).length,
      total_tokens: encode(prompt).length + 24,
      completion_tokens: 24,
    });
    // Real tokens: the client's tokenizer counts the text as the server did.
    expect(encode(textOf(s))).toHaveLength(24);
  });

  it('without include_usage, chunks carry no usage field', async () => {
    const server = await serve();
    const s = await stream(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 3, ignore_eos: true });
    expect(s.events).toHaveLength(3);
    expect((s.events as Chunk[]).every((e) => !('usage' in e))).toBe(true);
  });

  it('streams chat: a role chunk first, then content, usage last', async () => {
    const server = await serve();
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ];
    const s = await stream(server, '/v1/chat/completions', {
      model: MODEL,
      messages,
      max_tokens: 5,
      ignore_eos: true,
      stream_options: { include_usage: true },
    });
    const events = s.events as Chunk[];
    expect(events[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(events[0]!.object).toBe('chat.completion.chunk');
    expect(events[0]!.id).toMatch(/^chatcmpl-/);
    expect(tokenChunks(s)).toHaveLength(5);
    expect((events.at(-1) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(encode(renderChat(messages)).length);
  });

  it('answers without streaming: completions and chat', async () => {
    const server = await serve();
    const completion = (await (
      await post(server, '/v1/completions', { model: MODEL, prompt: [1, 2, 3, 4], max_tokens: 7, ignore_eos: true })
    ).json()) as {
      object: string;
      choices: { text: string; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(completion.object).toBe('text_completion');
    expect(completion.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 7 });
    expect(encode(completion.choices[0]!.text)).toHaveLength(7);
    const chat = (await (
      await post(server, '/v1/chat/completions', {
        model: MODEL,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
        max_tokens: 4,
        ignore_eos: true,
      })
    ).json()) as {
      object: string;
      choices: { message: { role: string; content: string }; finish_reason: string }[];
    };
    expect(chat.object).toBe('chat.completion');
    expect(chat.choices[0]).toMatchObject({ message: { role: 'assistant' }, finish_reason: 'length' });
  });

  it('stops at a stop string, and on its own without ignore_eos', async () => {
    const server = await serve();
    const free = (await (
      await post(server, '/v1/completions', { model: MODEL, prompt: 'Go', max_tokens: 4000, seed: 3 })
    ).json()) as {
      choices: { text: string; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(free.choices[0]!.finish_reason).toBe('stop');
    expect(free.usage.completion_tokens).toBeLessThan(4000);
    // Cut the same output at its third word: the reply ends right before it.
    const words = free.choices[0]!.text.split(' ').filter(Boolean);
    const cut = (await (
      await post(server, '/v1/completions', { model: MODEL, prompt: 'Go', max_tokens: 4000, seed: 3, stop: [` ${words[2]}`] })
    ).json()) as { choices: { text: string; finish_reason: string }[] };
    expect(cut.choices[0]!.finish_reason).toBe('stop');
    expect(cut.choices[0]!.text).toBe(` ${words[0]} ${words[1]}`);
  });

  it('is deterministic for a seed, and for temperature 0', async () => {
    const server = await serve();
    const text = async (body: Record<string, unknown>): Promise<string> =>
      (
        (await (
          await post(server, '/v1/completions', { model: MODEL, prompt: 'Once', max_tokens: 12, ignore_eos: true, ...body })
        ).json()) as { choices: { text: string }[] }
      ).choices[0]!.text;
    expect(await text({ seed: 42 })).toBe(await text({ seed: 42 }));
    expect(await text({ seed: 42 })).not.toBe(await text({ seed: 43 }));
    expect(await text({ temperature: 0 })).toBe(await text({ temperature: 0 }));
  });

  it('rejects bad requests with vLLM-shaped errors', async () => {
    const server = await serve();
    const tooLong = await post(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 9000 });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({
      object: 'error',
      type: 'BadRequestError',
      code: 400,
      message:
        "'max_tokens' or 'max_completion_tokens' is too large: 9000. This model's maximum context length is 8192 tokens and your request has 1 input tokens (9000 > 8192 - 1).",
    });
    expect((await post(server, '/v1/completions', { model: 'other', prompt: 'Hi' })).status).toBe(404);
    const badJson = await fetch(`${server.url}/v1/completions`, { method: 'POST', body: '{nope' });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { message: string }).message).toMatch(/^invalid JSON body/);
    expect((await fetch(`${server.url}/v2/nothing`)).status).toBe(404);
  });

  it('serves /v1/models, /health, /tokenize and /metrics', async () => {
    const server = await serve();
    expect(await (await fetch(`${server.url}/v1/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: MODEL, object: 'model', max_model_len: 8192 }],
    });
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
    expect(await (await post(server, '/tokenize', { prompt: 'Hello world' })).json()).toEqual({
      count: 2,
      max_model_len: 8192,
      tokens: [15496, 995],
      tokenizer: 'gpt2',
    });
    expect(((await (await post(server, '/tokenize', { content: 'Hello world' })).json()) as { tokens: number[] }).tokens).toEqual(
      [15496, 995],
    );

    // While a long stream runs, the gauges show it; afterwards the counters do.
    const res = await post(server, '/v1/completions', {
      model: MODEL,
      prompt: 'Hello world',
      max_tokens: 400,
      ignore_eos: true,
      stream: true,
    });
    const reader = res.body!.getReader();
    await reader.read();
    const during = await (await fetch(`${server.url}/metrics`)).text();
    expect(during).toContain(`vllm:num_requests_running{model_name="${MODEL}"} 1`);
    expect(during).toMatch(/vllm:kv_cache_usage_perc\{model_name="[^"]+"\} 0\.\d+/);
    while (!(await reader.read()).done);
    const after = await (await fetch(`${server.url}/metrics`)).text();
    expect(after).toContain('# TYPE vllm:generation_tokens_total counter');
    expect(after).toContain(`vllm:generation_tokens_total{model_name="${MODEL}"} 400`);
    expect(after).toContain(`vllm:prompt_tokens_total{model_name="${MODEL}"} 2`);
    expect(after).toContain(`vllm:num_requests_running{model_name="${MODEL}"} 0`);
    expect(after).toContain(`vllm:request_success_total{model_name="${MODEL}",finished_reason="length"} 1`);
    expect(after).toContain(`vllm:num_preemptions_total{model_name="${MODEL}"} 0`);
  });

  it('a client that goes away frees its sequence', async () => {
    const server = await serve({ speed: 1 });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, prompt: 'Hi', max_tokens: 5000, ignore_eos: true, stream: true }),
      signal: controller.signal,
    });
    await res.body!.getReader().read();
    expect(server.cluster.inFlight).toBe(1);
    controller.abort();
    await waitFor(() => server.cluster.inFlight === 0, {
      what: () => `the aborted request's sequence to be freed (${server.cluster.inFlight} in flight)`,
    });
    expect(server.cluster.instances[0]!.kvUsedBytes).toBe(0);
  });

  it('serves many concurrent streams, each complete', async () => {
    const server = await serve({ speed: 200 });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        stream(server, '/v1/completions', { model: MODEL, prompt: `request ${i}`, max_tokens: 50, ignore_eos: true }),
      ),
    );
    expect(results.every((r) => r.done && tokenChunks(r).length === 50)).toBe(true);
  });
});

describe('time and ground truth', () => {
  it('writes each token when the simulation produces it, and logs the ground truth', async () => {
    const dir = tempFiles({});
    const file = join(dir, 'truth.jsonl');
    const server = await serve({ speed: 2, groundTruthFile: file });
    const prompt = 'word '.repeat(1000);
    const s = await stream(server, '/v1/completions', { model: MODEL, prompt, max_tokens: 20, ignore_eos: true });
    await server.close();
    servers.length = 0;
    const [truth] = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const times = truth!.token_times as number[];
    expect(truth).toMatchObject({
      status: 'ok',
      prompt_tokens: encode(prompt).length,
      completion_tokens: 20,
      finish_reason: 'length',
    });
    expect(times).toHaveLength(20);
    expect(truth!.first_token).toBe(times[0]);
    // Tokens whose simulated times both passed before a late timer fired go out in one write.
    const simulated = truth!.simulated_times as number[];
    for (let i = 1; i < times.length; i++) {
      expect(simulated[i]!).toBeGreaterThan(simulated[i - 1]!);
      expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
      expect(times[i]!).toBeGreaterThanOrEqual(simulated[i]! - 1);
    }
    expect(times[0]!).toBeGreaterThan(truth!.arrival as number);
    // No token reaches the client before its simulated time; each arrives soon after.
    s.times.forEach((received, i) => {
      expect(received).toBeGreaterThanOrEqual(times[i]! - 1);
      expect(received - times[i]!).toBeLessThan(1000);
    });
  });
});

describe('faults (seeded)', () => {
  const statuses = async (server: SimServer, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++)
      out.push((await post(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 2, ignore_eos: true })).status);
    return out;
  };

  it('answers a share of requests with the given HTTP errors, the same ones for the same seed', async () => {
    const a = await statuses(await serve({ faults: { errorRate: 0.5, errorStatuses: [429, 503] } }), 40);
    const b = await statuses(await serve({ faults: { errorRate: 0.5, errorStatuses: [429, 503] } }), 40);
    expect(a).toEqual(b);
    expect(new Set(a)).toEqual(new Set([200, 429, 503]));
    const c = await statuses(await serve({ seed: 2, faults: { errorRate: 0.5, errorStatuses: [429, 503] } }), 40);
    expect(c).not.toEqual(a);
  });

  it('cuts streams off mid-way', async () => {
    const server = await serve({ faults: { disconnectRate: 1 } });
    const s = await stream(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 50, ignore_eos: true });
    expect(s.done).toBe(false);
    expect(s.broken).toBe(true);
    expect(tokenChunks(s).length).toBeLessThan(50);
  });

  it('stalls a stream for the given time', async () => {
    const server = await serve({ speed: 50, faults: { stallRate: 1, stallMs: 400 } });
    const s = await stream(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 30, ignore_eos: true });
    expect(s.done).toBe(true);
    const gaps = s.times.slice(1).map((t, i) => t - s.times[i]!);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(390);
  });

  it('sends one malformed SSE event', async () => {
    const server = await serve({ faults: { malformedRate: 1 } });
    const s = await stream(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 10, ignore_eos: true });
    expect(s.events.filter((e) => typeof e === 'string')).toHaveLength(1);
    expect(tokenChunks(s)).toHaveLength(10);
  });

  it('crashes after n requests: connections dropped, port closed', async () => {
    let crashed = false;
    const server = await serve({ faults: { crashAfter: 2 }, onCrash: () => (crashed = true) });
    expect((await post(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 2 })).status).toBe(200);
    await post(server, '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 2000, ignore_eos: true }).catch(
      () => undefined,
    );
    await waitFor(() => crashed, { what: 'the server to crash after its 2nd request' });
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('starts slowly: /health and requests answer 503 until loaded', async () => {
    const started = performance.now();
    const server = await serve({ faults: { slowStartMs: 300 } });
    expect((await fetch(`${server.url}/health`)).status).toBe(503);
    expect((await post(server, '/v1/completions', { model: MODEL, prompt: 'Hi' })).status).toBe(503);
    await waitFor(
      async () => {
        const res = await fetch(`${server.url}/health`);
        await res.arrayBuffer();
        return res.status === 200;
      },
      { what: '/health to answer 200' },
    );
    // Loaded, but not before its 300 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('the evals test double', () => {
  const key = (question: string, n: number) => ({ question, right: `So ${n}.\n#### ${n}`, wrong: `So ${n + 1}.\n#### ${n + 1}` });
  const book = (accuracy: number): AnswerBook =>
    AnswerBook.parse(
      [
        key('Tom has 3 apples and buys 4 more. How many apples does he have?', 7),
        key('A train travels 60 km in 1 hour. How far does it go in 3 hours?', 180),
      ]
        .map((k) => JSON.stringify(k))
        .join('\n'),
      accuracy,
      7,
    );
  const ask = async (server: SimServer, prompt: string): Promise<string> =>
    (
      (await (await post(server, '/v1/completions', { model: MODEL, prompt, max_tokens: 256 })).json()) as {
        choices: { text: string }[];
      }
    ).choices[0]!.text;
  const fewShot =
    'Question: Tom has 3 apples and buys 4 more. How many apples does he have?\nAnswer: 7\n\nQuestion: A train travels 60 km in 1 hour. How far does it go in 3 hours?\nAnswer:';

  it('answers the last question of the prompt with its right reply', async () => {
    const server = await serve({ answers: book(1) });
    expect(await ask(server, fewShot)).toBe('So 180.\n#### 180');
  });

  it('answers with the wrong reply with probability 1 - accuracy', async () => {
    const wrong = await serve({ answers: book(0) });
    expect(await ask(wrong, fewShot)).toBe('So 181.\n#### 181');
    const half = await serve({ answers: book(0.5) });
    let right = 0;
    for (let i = 0; i < 200; i++) if ((await ask(half, fewShot)).endsWith('#### 180')) right++;
    expect(right).toBeGreaterThan(70);
    expect(right).toBeLessThan(130);
  });

  it('rejects a malformed answers file with its line, and a key without both replies', () => {
    const good = JSON.stringify(key('q', 1));
    expect(() => AnswerBook.parse(`${good}\nnot json`, 1, 0, 'answers.jsonl')).toThrow(/^answers\.jsonl:2: not JSON/);
    expect(() => AnswerBook.parse('{"question": "q", "answer": "#### 1"}', 1, 0, 'answers.jsonl')).toThrow(
      /^answers\.jsonl:1: expected \{"question", "right", "wrong"\}: write the keys with frontier eval answer-keys/,
    );
  });
});
