// Integration tests against a REAL llama.cpp llama-server (built once from node-llama-cpp@3.21.1's source bundle,
// ~8 min on 2 cores, then cached under .cache/), serving a tiny random-weight llama with the GPT-2 vocabulary.
// They pin down what the real server does, so the simulator and the benchmark client can be checked against it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encode } from 'gpt-tokenizer/encoding/r50k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_MODEL_OPTIONS, ensureLlamaServerAndModel, loadTinyModelScript, startLlamaServer } from './support/llama-server.js';
import type { LlamaServer } from './support/llama-server.js';
import { readSse } from './support/sse.js';
import { REPO } from './helpers.js';

const BUILD_TIMEOUT_MS = 20 * 60_000;
const GPT2_VOCAB_SIZE = 50257;
/** Tokens of the GPT-2 vocab that are NORMAL and complete UTF-8 on their own (the rest are banned, EOS included). */
const GPT2_EMITTABLE = 49912;

let server: LlamaServer;
let model: string;
let vocab: string;

beforeAll(async () => {
  ({ model, vocab } = await ensureLlamaServerAndModel());
  server = await startLlamaServer();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
});

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface Chunk {
  id: string;
  object: string;
  model: string;
  created: number;
  choices: {
    index: number;
    text?: string;
    delta?: { role?: string; content?: string | null };
    finish_reason: string | null;
  }[];
  usage?: Usage;
  timings?: { prompt_n: number; predicted_n: number };
  error?: unknown;
}

interface Stream {
  status: number;
  contentType: string | null;
  /** Each `data:` event, parsed (the raw text when it is not JSON). */
  events: (Chunk | string)[];
  done: boolean;
  ms: number;
}

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function stream(path: string, body: Record<string, unknown>): Promise<Stream> {
  const started = performance.now();
  const res = await post(path, { ...body, stream: true });
  const out: Stream = { status: res.status, contentType: res.headers.get('content-type'), events: [], done: false, ms: 0 };
  if (!res.body) return out;
  const rest = await readSse(res.body, ({ data, isData }) => {
    if (!isData) return;
    if (data === '[DONE]') out.done = true;
    else {
      try {
        out.events.push(JSON.parse(data) as Chunk);
      } catch {
        out.events.push(data);
      }
    }
  });
  expect(rest.trim()).toBe('');
  out.ms = performance.now() - started;
  return out;
}

/** All events as JSON chunks, none of them an error (an `error` event or text that is not JSON). */
function chunksOf(s: Stream): Chunk[] {
  expect(s.status).toBe(200);
  expect(s.contentType).toMatch(/^text\/event-stream/);
  expect(s.events.filter((e) => typeof e === 'string' || e.error !== undefined)).toEqual([]);
  expect(s.done).toBe(true);
  return s.events as Chunk[];
}

const textOf = (chunks: Chunk[]): string => chunks.map((c) => c.choices[0]?.text ?? c.choices[0]?.delta?.content ?? '').join('');
const chatml = (messages: { role: string; content: string }[]): string =>
  messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';

describe('llama-server tokenizer = gpt-tokenizer r50k_base', () => {
  const samples = [
    'Hello world',
    ' Hello world',
    'The quick brown fox jumps over the lazy dog. '.repeat(8),
    "Don't stop believin', it's 2024!",
    'héllo wörld — naïve café, 世界, 🦙🦙',
    '  multiple   spaces\n\nand\tnewlines\r\n',
    '1234567890 3.14159 0xDEADBEEF',
    'def f(x):\n    return x ** 2  # square',
  ];

  it('/tokenize gives the same ids as encode(), with and without add_special (no BOS for gpt-2)', async () => {
    for (const content of samples) {
      const expected = encode(content);
      for (const addSpecial of [false, true]) {
        const res = await post('/tokenize', { content, add_special: addSpecial });
        expect(res.status).toBe(200);
        const { tokens } = (await res.json()) as { tokens: number[] };
        expect({ content, addSpecial, tokens }).toEqual({ content, addSpecial, tokens: expected });
      }
    }
  });

  it('/detokenize inverts it', async () => {
    for (const content of samples) {
      const res = await post('/detokenize', { tokens: encode(content) });
      expect(((await res.json()) as { content: string }).content).toBe(content);
    }
  });

  it('counts prompt tokens as encode() does: completions add no BOS', async () => {
    for (const prompt of samples.slice(0, 4)) {
      const res = await post('/v1/completions', { model: 'tiny', prompt, max_tokens: 1, ignore_eos: true });
      const body = (await res.json()) as { usage: Usage };
      expect(body.usage.prompt_tokens).toBe(encode(prompt).length);
    }
  });
});

describe('llama-server streaming (real shapes)', () => {
  it('/v1/completions: exactly max_tokens tokens, finish_reason "length", usage on the finish_reason chunk', async () => {
    const prompt = 'Once upon a time';
    const s = await stream('/v1/completions', {
      model: 'tiny',
      prompt,
      max_tokens: 32,
      ignore_eos: true,
      seed: 1,
      stream_options: { include_usage: true },
    });
    const chunks = chunksOf(s);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.object).toBe('text_completion');
      expect(c.id).toMatch(/^chatcmpl-/); // llama.cpp uses chatcmpl- ids for completions too (OpenAI: cmpl-)
      expect(c.id).toBe(chunks[0]!.id);
      expect(c.model).toBe(model); // without --alias, the model id is the -m path (the request's `model` is ignored)
      expect(c.choices).toHaveLength(1); // no separate `choices: []` usage chunk, unlike OpenAI and vLLM
      expect(c.choices[0]!.index).toBe(0);
      expect(typeof c.choices[0]!.text).toBe('string');
    }
    // Real llama.cpp: `usage` (and `timings`) ride on the LAST chunk, the one with finish_reason; earlier chunks have none.
    const last = chunks.at(-1)!;
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null && c.usage === undefined)).toBe(true);
    expect(last.choices[0]!.finish_reason).toBe('length');
    const promptTokens = encode(prompt).length;
    expect(last.usage).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: 32, total_tokens: promptTokens + 32 });
    expect(last.timings).toMatchObject({ prompt_n: promptTokens, predicted_n: 32 });
    // Chunks ≤ tokens: a token whose text is held back (partial UTF-8) or empty sends no chunk of its own.
    const textChunks = chunks.filter((c) => c.choices[0]!.text !== '');
    expect(textChunks.length).toBeGreaterThan(0);
    expect(textChunks.length).toBeLessThanOrEqual(32);
    expect(textOf(chunks).length).toBeGreaterThan(0);

    // Same request seed → same text (random weights, but deterministic sampling).
    const again = chunksOf(await stream('/v1/completions', { model: 'tiny', prompt, max_tokens: 32, ignore_eos: true, seed: 1 }));
    expect(textOf(again)).toBe(textOf(chunks));
    // llama.cpp sends completions usage whether or not stream_options.include_usage asks for it (OpenAI: only when asked).
    expect(again.at(-1)!.usage).toMatchObject({ completion_tokens: 32 });
  });

  it('/v1/chat/completions: a role chunk, content deltas, a finish_reason chunk, then a separate choices: [] usage chunk', async () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ];
    const s = await stream('/v1/chat/completions', {
      model: 'tiny',
      messages,
      max_tokens: 16,
      ignore_eos: true,
      seed: 2,
      stream_options: { include_usage: true },
    });
    const chunks = chunksOf(s);
    for (const c of chunks) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(c.id).toMatch(/^chatcmpl-/);
      expect(c.id).toBe(chunks[0]!.id);
    }
    // First: the role, with content null (OpenAI sends content "").
    expect(chunks[0]!.choices).toHaveLength(1);
    expect(chunks[0]!.choices[0]).toMatchObject({ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null });
    // Last: usage alone, `choices: []` (as OpenAI does).
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    // The prompt is the GGUF's ChatML template rendered; with the GPT-2 vocab <|im_start|> is plain text.
    const promptTokens = encode(chatml(messages)).length;
    expect(usageChunk.usage).toMatchObject({
      prompt_tokens: promptTokens,
      completion_tokens: 16,
      total_tokens: promptTokens + 16,
    });
    expect(usageChunk.timings).toMatchObject({ predicted_n: 16 });
    // Before it: the finish_reason chunk with an empty delta, and no usage on it.
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]).toMatchObject({ finish_reason: 'length', delta: {} });
    expect(finish.usage).toBeUndefined();
    // In between: content deltas only.
    const content = chunks.slice(1, -2);
    expect(content.length).toBeGreaterThan(0);
    expect(content.length).toBeLessThanOrEqual(16);
    for (const c of content) {
      expect(c.choices[0]!.finish_reason).toBeNull();
      expect(c.choices[0]!.delta?.role).toBeUndefined();
      expect(typeof c.choices[0]!.delta?.content).toBe('string');
    }
    expect(textOf(content).length).toBeGreaterThan(0);

    // Without include_usage there is no usage chunk; the finish_reason chunk ends the stream and carries `timings`.
    const plain = chunksOf(
      await stream('/v1/chat/completions', { model: 'tiny', messages, max_tokens: 16, ignore_eos: true, seed: 2 }),
    );
    expect(plain.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    expect(plain.at(-1)!.choices[0]!.finish_reason).toBe('length');
    expect(plain.at(-1)!.timings).toMatchObject({ predicted_n: 16 });
    expect(textOf(plain)).toBe(textOf(content)); // same seed, same text
  });

  it('16 concurrent streams (4 slots) all complete, without error events', async () => {
    const requests = Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0
        ? stream('/v1/completions', {
            model: 'tiny',
            prompt: `Request ${i}: the quick brown fox`,
            max_tokens: 32,
            ignore_eos: true,
            seed: i,
            stream_options: { include_usage: true },
          })
        : stream('/v1/chat/completions', {
            model: 'tiny',
            messages: [{ role: 'user', content: `Request ${i}: tell me a story` }],
            max_tokens: 32,
            ignore_eos: true,
            seed: i,
            stream_options: { include_usage: true },
          }),
    );
    const results = await Promise.all(requests);
    const ids = new Set<string>();
    for (const s of results) {
      const chunks = chunksOf(s);
      const usage = chunks.findLast((c) => c.usage !== undefined)?.usage;
      expect(usage?.completion_tokens).toBe(32);
      expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0]!.finish_reason)).toEqual(['length']);
      ids.add(chunks[0]!.id);
    }
    expect(ids.size).toBe(16);
  });
});

describe('tiny model generator', () => {
  it('writes a byte-identical GGUF for the same seed, and reports the emittable tokens', async () => {
    const tiny = await loadTinyModelScript();
    const vocabBytes = readFileSync(vocab);
    const a = tiny.makeTinyLlamaWithInfo(vocabBytes, TINY_MODEL_OPTIONS);
    const b = tiny.makeTinyLlamaWithInfo(vocabBytes, TINY_MODEL_OPTIONS);
    expect(a.buffer.equals(b.buffer)).toBe(true);
    expect(a.buffer.equals(readFileSync(model))).toBe(true); // the file the server runs
    expect(tiny.makeTinyLlama(vocabBytes, { ...TINY_MODEL_OPTIONS, seed: 2 }).equals(a.buffer)).toBe(false);
    expect(a.info).toMatchObject({ nVocab: GPT2_VOCAB_SIZE, emittable: GPT2_EMITTABLE, nEmbd: 64, nLayer: 2, size: 28_025_600 });
    expect(tiny.makeTinyLlamaWithInfo(vocabBytes, { ...TINY_MODEL_OPTIONS, allowEos: true }).info.emittable).toBe(
      GPT2_EMITTABLE + 1,
    );

    const gguf = tiny.readGguf(a.buffer);
    expect(gguf.version).toBe(3);
    expect(gguf.metadata.get('general.architecture')?.value).toBe('llama');
    expect(gguf.metadata.get('tokenizer.chat_template')?.value).toBe(tiny.CHATML_TEMPLATE);
    expect(gguf.tensors.map((t) => t.name).slice(0, 4)).toEqual([
      'token_embd.weight',
      'output_norm.weight',
      'output.weight',
      'blk.0.attn_norm.weight',
    ]);
    expect(gguf.tensors).toHaveLength(3 + 9 * 2);
    // Every tokenizer key is copied unchanged from the vocab.
    const source = tiny.readGguf(vocabBytes).metadata;
    for (const [key, entry] of source) if (key.startsWith('tokenizer.')) expect(gguf.metadata.get(key)).toEqual(entry);
  });

  it('CLI: same output for the same arguments, prints size, vocab and emittable tokens', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiny-model-'));
    try {
      const run = (out: string, env: Record<string, string> = {}): string => {
        const r = spawnSync(
          process.execPath,
          ['scripts/tiny-model.mjs', vocab, join(dir, out), '64', '2', '4', '256', '4096', '1'],
          {
            cwd: REPO,
            encoding: 'utf8',
            env: { ...process.env, ALLOW_EOS: '', ...env },
          },
        );
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        return r.stdout;
      };
      const first = run('a.gguf');
      expect(first).toContain(`vocab ${GPT2_VOCAB_SIZE} tokens, ${GPT2_EMITTABLE} emittable`);
      expect(first).toContain('28025600 bytes');
      run('b.gguf');
      expect(readFileSync(join(dir, 'a.gguf')).equals(readFileSync(join(dir, 'b.gguf')))).toBe(true);
      expect(readFileSync(join(dir, 'a.gguf')).equals(readFileSync(model))).toBe(true);
      expect(run('c.gguf', { ALLOW_EOS: '1' })).toContain(`${GPT2_EMITTABLE + 1} emittable (EOS allowed)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
