import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHATML_TEMPLATE,
  chatTemplate,
  computeMetrics,
  fileDataset,
  gpt2Tokenizer,
  huggingFaceTokenizer,
  randomDataset,
  runLoad,
  schedule,
} from '../../src/bench/index.js';
import type { BenchRequest, Outcome, RequestResult } from '../../src/bench/index.js';
import { tempFiles } from '../helpers.js';

const tokenizer = gpt2Tokenizer();

describe('the random dataset (the reference’s sample_random_requests)', () => {
  const options = {
    numPrompts: 50,
    inputLen: 300,
    outputLen: 100,
    rangeRatio: 0.8,
    prefixLen: 0,
    seed: 3,
    useChatTemplate: false,
  };

  it('prompts have exactly the lengths drawn, in [floor(L·r), L]', async () => {
    const requests = await randomDataset(tokenizer, options);
    expect(requests).toHaveLength(50);
    for (const r of requests) {
      expect((await tokenizer.encode(r.prompt)).length).toBe(r.promptLen);
      expect(r.promptLen).toBeGreaterThanOrEqual(240);
      expect(r.promptLen).toBeLessThanOrEqual(300);
      expect(r.outputLen).toBeGreaterThanOrEqual(80);
      expect(r.outputLen).toBeLessThanOrEqual(100);
    }
    expect(new Set(requests.map((r) => r.promptLen)).size).toBeGreaterThan(10);
  });

  it('is the same for the same seed, different for another', async () => {
    const a = await randomDataset(tokenizer, options);
    expect(await randomDataset(tokenizer, options)).toEqual(a);
    expect((await randomDataset(tokenizer, { ...options, seed: 4 }))[0]!.prompt).not.toBe(a[0]!.prompt);
  });

  it('range ratio 1 gives every prompt the full length; a shared prefix starts every prompt', async () => {
    const fixed = await randomDataset(tokenizer, { ...options, rangeRatio: 1, prefixLen: 20, numPrompts: 5 });
    for (const r of fixed) expect(r.promptLen).toBe(320);
    const prefix = (await tokenizer.encode(fixed[0]!.prompt)).slice(0, 15);
    for (const r of fixed) expect((await tokenizer.encode(r.prompt)).slice(0, 15)).toEqual(prefix);
  });

  it('with the chat template, the rendered prompt (template included) is what is counted', async () => {
    const chat = await randomDataset(tokenizer, { ...options, rangeRatio: 1, numPrompts: 5, useChatTemplate: true });
    for (const r of chat) {
      expect(r.prompt.startsWith('<|im_start|>user\n')).toBe(true);
      expect(r.prompt.endsWith('<|im_end|>\n<|im_start|>assistant\n')).toBe(true);
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt)).length);
      // The template's own tokens are taken off the target, as the reference does.
      expect(Math.abs(r.promptLen - 300)).toBeLessThanOrEqual(3);
    }
    expect(CHATML_TEMPLATE).toContain('add_generation_prompt');
  });

  it('refuses impossible settings', async () => {
    await expect(randomDataset(tokenizer, { ...options, rangeRatio: 1.5 })).rejects.toThrow(
      /--random-range-ratio must be in \[0, 1\]/,
    );
  });
});

describe('a Hugging Face tokenizer.json', () => {
  const tokenizerJson = {
    version: '1.0',
    added_tokens: [
      { id: 9, content: '<|eot|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '?',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab: { '?': 0, h: 1, e: 2, l: 3, o: 4, he: 5, ll: 6, llo: 7, hello: 8 },
      merges: ['h e', 'l l', 'll o', 'he llo'],
    },
  };
  const config = {
    chat_template:
      '{% for m in messages %}[{{ m.role }}] {{ m.content }}{% endfor %}{% if add_generation_prompt %} [assistant]{% endif %}',
    bos_token: '<s>',
  };

  it('encodes with its merges, knows its vocabulary size and its chat template', async () => {
    const dir = tempFiles({ 'tokenizer.json': JSON.stringify(tokenizerJson), 'tokenizer_config.json': JSON.stringify(config) });
    const t = await huggingFaceTokenizer(join(dir, 'tokenizer.json'));
    expect(await t.encode('hello hell')).toEqual([8, 5, 6]);
    expect(await t.decode([8, 5, 6])).toBe('hellohell');
    expect(t.vocabSize).toBe(10);
    expect(chatTemplate(t)('hello')).toBe('[user] hello [assistant]');
  });

  it('says what is wrong with a missing or unreadable file', async () => {
    const dir = tempFiles({ 'bad/tokenizer.json': '{not json' });
    await expect(huggingFaceTokenizer(join(dir, 'none/tokenizer.json'))).rejects.toThrow(
      /none\/tokenizer\.json: no such tokenizer\.json/,
    );
    await expect(huggingFaceTokenizer(join(dir, 'bad/tokenizer.json'))).rejects.toThrow(/bad\/tokenizer\.json: /);
  });
});

describe('a JSONL dataset', () => {
  it('reads strings and {prompt, output_len} objects', async () => {
    const dir = tempFiles({ 'p.jsonl': '"Hello there"\n\n{"prompt": "Count to five", "output_len": 7}\n{"text": "Why?"}\n' });
    const requests = await fileDataset(join(dir, 'p.jsonl'), tokenizer, 32, { useChatTemplate: false });
    expect(requests.map((r) => [r.prompt, r.outputLen])).toEqual([
      ['Hello there', 32],
      ['Count to five', 7],
      ['Why?', 32],
    ]);
    expect(requests[0]!.promptLen).toBe(2);
  });

  it('names the line of a bad record', async () => {
    const dir = tempFiles({ 'p.jsonl': '"ok"\n{"prompt": 3}\n' });
    await expect(fileDataset(join(dir, 'p.jsonl'), tokenizer, 32, { useChatTemplate: false })).rejects.toThrow(
      /p\.jsonl:2: expected a string or \{"prompt"/,
    );
    await expect(fileDataset(join(dir, 'missing.jsonl'), tokenizer, 32, { useChatTemplate: false })).rejects.toThrow(
      /missing\.jsonl: ENOENT/,
    );
  });
});

describe('load', () => {
  it('closed loop: everything due at once', () => {
    expect(schedule(4, { concurrency: 2, requestRate: Infinity, burstiness: 1, seed: 0 })).toEqual([0, 0, 0, 0]);
  });

  it('open loop: gamma gaps with mean 1/rate; burstiness sets their spread', () => {
    const gaps = (burstiness: number): number[] => {
      const due = schedule(20001, { concurrency: undefined, requestRate: 50, burstiness, seed: 1 });
      return due.slice(1).map((t, i) => t - due[i]!);
    };
    const stats = (xs: number[]): { mean: number; cv: number } => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
      return { mean: m, cv: sd / m };
    };
    const poisson = stats(gaps(1));
    expect(poisson.mean).toBeGreaterThan(19.4); // 1000 ms / 50 per second
    expect(poisson.mean).toBeLessThan(20.6);
    expect(poisson.cv).toBeGreaterThan(0.95);
    expect(poisson.cv).toBeLessThan(1.05);
    const smooth = stats(gaps(4));
    expect(smooth.cv).toBeGreaterThan(0.45); // 1/sqrt(4)
    expect(smooth.cv).toBeLessThan(0.55);
    expect(stats(gaps(0.25)).cv).toBeGreaterThan(1.8); // bursty: 1/sqrt(0.25) = 2
  });

  it('keeps at most `concurrency` in flight and reuses their slots', async () => {
    let inFlight = 0;
    let peak = 0;
    const slots = new Set<number>();
    const requests: BenchRequest[] = Array.from({ length: 40 }, () => ({ prompt: 'x', promptLen: 1, outputLen: 1 }));
    const results = await runLoad(
      requests,
      { concurrency: 5, requestRate: Infinity, burstiness: 1, seed: 0 },
      async (_r, i, slot) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        slots.add(slot);
        // The request's time (a fixed 1–3 ms, as a server's would be): what keeps `concurrency` of them in flight.
        await new Promise((resolve) => setTimeout(resolve, 1 + (i % 3)));
        inFlight--;
        return i;
      },
    );
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(peak).toBe(5);
    expect([...slots].sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('metrics (the reference’s calculate_metrics)', () => {
  const result = (ttft: number, itl: number[], latency: number, error?: string): RequestResult => ({
    id: 'x',
    ttft,
    itl,
    latency,
    text: '',
    tokenChunks: itl.length + 1,
    usage: undefined,
    finishReason: 'length',
    error,
    errorDetail: undefined,
    done: true,
    sentAt: 0,
    scheduledAt: undefined,
    endAt: latency,
    status: 200,
    retries: 0,
  });
  const outcome = (r: RequestResult, outputTokens: number, promptLen = 10): Outcome => ({
    result: r,
    request: { prompt: 'p', promptLen, outputLen: outputTokens },
    success: r.error === undefined,
    reason: r.error,
    outputTokens: r.error ? 0 : outputTokens,
    tokensFrom: 'usage',
  });

  it('TPOT = (E2EL − TTFT)/(n − 1); failures count as zero output; throughputs over the duration', () => {
    const outcomes = [
      outcome(result(100, [10, 20, 30], 160), 4),
      outcome(result(50, [], 50), 1),
      outcome(result(0, [], 0, 'HTTP 503: busy'), 4),
    ];
    const m = computeMetrics(outcomes, 2000, {
      percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
      percentiles: [50, 99.9],
      goodput: { ttft: 60 },
    });
    expect(m.completed).toBe(2);
    expect(m.failed).toBe(1);
    expect(m.totalInput).toBe(20);
    expect(m.totalOutput).toBe(5);
    expect(m.outputLens).toEqual([4, 1, 0]);
    expect(m.inputLens).toEqual([10, 10, 10]);
    expect(m.requestThroughput).toBe(1);
    expect(m.outputThroughput).toBe(2.5);
    expect(m.totalTokenThroughput).toBe(12.5);
    expect(m.tpots).toEqual([20, 0]);
    expect(m.latency.mean_tpot_ms).toBe(20); // only requests with more than one token
    expect(m.latency.mean_ttft_ms).toBe(75);
    expect(m.latency.median_itl_ms).toBe(20);
    expect(Object.keys(m.latency)).toEqual([
      ...['mean', 'median', 'std', 'p50', 'p99.9'].map((s) => `${s}_ttft_ms`),
      ...['mean', 'median', 'std', 'p50', 'p99.9'].map((s) => `${s}_tpot_ms`),
      ...['mean', 'median', 'std', 'p50', 'p99.9'].map((s) => `${s}_itl_ms`),
      ...['mean', 'median', 'std', 'p50', 'p99.9'].map((s) => `${s}_e2el_ms`),
    ]);
    expect(m.requestGoodput).toBe(0.5); // one request within TTFT 60 ms, over 2 s
    expect(m.failures).toEqual({ 'HTTP 503: busy': 1 });
  });
});
