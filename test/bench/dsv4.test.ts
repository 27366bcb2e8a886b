import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DatasetError,
  Dsv4EncodingError,
  dsv4ChatPrompt,
  encodeDsv4Messages,
  fileDataset,
  gpt2Tokenizer,
  prepareRequests,
  randomDataset,
} from '../../src/bench/index.js';
import type { Dsv4EncodeOptions, Dsv4Message, Dsv4ReasoningEffort, Dsv4ThinkingMode } from '../../src/bench/index.js';
import { benchOptions } from '../../src/cli/bench.js';
import { loads } from '../../src/pycompat/index.js';
import { stream } from '../adversarial/servers.js';
import { REPO, runCliAsync, tempFiles } from '../helpers.js';

/** A case of scripts/dsv4-encoding-golden.py: the reference encoder's input and what it returned or raised. */
interface GoldenCase {
  name: string;
  messages: unknown[];
  options: {
    thinking_mode: string;
    context?: unknown[];
    drop_thinking?: boolean;
    add_default_bos_token?: boolean;
    reasoning_effort?: string | null;
  };
  expected?: string;
  error?: string;
}

// Read as Python reads it: a `7.0` in a tool schema stays a float, which json.dumps prints as `7.0`.
const golden = loads(readFileSync(join(REPO, 'test/fixtures/bench/dsv4-encoding.json'), 'utf8'), { exactInts: true }) as {
  cases: GoldenCase[];
};

const optionsOf = (o: GoldenCase['options']): Dsv4EncodeOptions => ({
  thinkingMode: o.thinking_mode as Dsv4ThinkingMode,
  context: o.context as Dsv4Message[] | undefined,
  dropThinking: o.drop_thinking,
  addBosToken: o.add_default_bos_token,
  reasoningEffort: o.reasoning_effort as Dsv4ReasoningEffort | null | undefined,
});

const BOS_USER = '<｜begin▁of▁sentence｜><｜User｜>';
const ASSISTANT_THINK = '<｜Assistant｜><think>';

/** The user text inside a `--dsv4` prompt. */
const inner = (prompt: string): string => {
  expect(prompt.startsWith(BOS_USER) && prompt.endsWith(ASSISTANT_THINK), prompt.slice(0, 80)).toBe(true);
  return prompt.slice(BOS_USER.length, prompt.length - ASSISTANT_THINK.length);
};

describe('the DeepSeek-V4 encoder against the reference encoding_dsv4.py', () => {
  it('the fixture covers the benchmark prompts, every role, and the refusals', () => {
    expect(golden.cases.length).toBeGreaterThanOrEqual(80);
    expect(golden.cases.filter((c) => c.name.startsWith('benchmark --dsv4:')).length).toBeGreaterThanOrEqual(10);
    const roles = new Set(golden.cases.flatMap((c) => c.messages.map((m) => (m as { role: string }).role)));
    expect([...roles].sort()).toEqual(['assistant', 'developer', 'latest_reminder', 'narrator', 'system', 'tool', 'user']);
    expect(golden.cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(5);
  });

  for (const c of golden.cases) {
    if (c.error === undefined) {
      it(`byte for byte: ${c.name}`, () => {
        expect(encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options))).toBe(c.expected);
      });
    } else {
      it(`refuses as the reference does (${c.error.split(':')[0]}): ${c.name}`, () => {
        expect(() => encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options))).toThrow(Dsv4EncodingError);
      });
    }
  }

  it('frames a benchmark prompt as the reference client’s _apply_chat_template(prompt, tokenizer, dsv4=True)', () => {
    const bench = golden.cases.filter((c) => c.name.startsWith('benchmark --dsv4:'));
    for (const c of bench) expect(dsv4ChatPrompt((c.messages[0] as { content: string }).content)).toBe(c.expected);
  });

  it('leaves the caller’s messages and context as they were', () => {
    const c = golden.cases.find(
      (x) => x.name === "with context ending in tool calls: results sorted by the context's call order",
    )!;
    expect(c).toBeDefined();
    const before = JSON.stringify(c);
    const out = encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options));
    expect(out).toBe(c.expected);
    expect(out.indexOf('A</tool_result>')).toBeLessThan(out.indexOf('B</tool_result>'));
    expect(JSON.stringify(c)).toBe(before);
  });
});

describe('datasets with --dsv4', () => {
  const tokenizer = gpt2Tokenizer();
  const random = { numPrompts: 6, inputLen: 200, outputLen: 16, rangeRatio: 1, prefixLen: 0, seed: 5 };

  it('random prompts are framed after their length is drawn, the template’s own tokens taken off first', async () => {
    const requests = await randomDataset(tokenizer, { ...random, useChatTemplate: true, dsv4: true });
    // The reference's chat_template_dummy: the framing of "a", less the one token of "a".
    const overhead = (await tokenizer.encode(dsv4ChatPrompt('a'))).length - 1;
    expect(overhead).toBeGreaterThan(10);
    for (const r of requests) {
      expect(r.prompt).toBe(dsv4ChatPrompt(inner(r.prompt)));
      expect((await tokenizer.encode(inner(r.prompt))).length).toBe(200 - overhead);
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt)).length);
    }
    const plain = await randomDataset(tokenizer, { ...random, useChatTemplate: true });
    expect(plain[0]!.prompt.startsWith('<|im_start|>user\n')).toBe(true);
  });

  it('JSONL prompts are framed whole', async () => {
    const dir = tempFiles({ 'p.jsonl': `${JSON.stringify({ prompt: ' two  spaces\n', output_len: 3 })}\n"plain"\n` });
    const requests = await fileDataset(join(dir, 'p.jsonl'), tokenizer, 8, { useChatTemplate: true, dsv4: true });
    expect(requests.map((r) => r.prompt)).toEqual([
      `${BOS_USER} two  spaces\n${ASSISTANT_THINK}`,
      `${BOS_USER}plain${ASSISTANT_THINK}`,
    ]);
  });

  it('--dsv4 without --use-chat-template is refused, as the reference refuses it', async () => {
    await expect(randomDataset(tokenizer, { ...random, useChatTemplate: false, dsv4: true })).rejects.toThrow(DatasetError);
    await expect(randomDataset(tokenizer, { ...random, useChatTemplate: false, dsv4: true })).rejects.toThrow(
      /--dsv4 requires --use-chat-template to be set: add --use-chat-template/,
    );
  });
});

describe('frontier bench --dsv4', () => {
  let server: Server;
  let url: string;
  const prompts: string[] = [];
  beforeAll(async () => {
    // A completions server that records each prompt and streams the tokens asked for.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        if (req.url !== '/v1/completions') return void res.writeHead(404).end();
        const json = JSON.parse(body) as { prompt: string; max_tokens: number };
        prompts.push(json.prompt);
        stream(res, json.max_tokens, { prompt_tokens: 1, completion_tokens: json.max_tokens });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const args = (dataset: string[] = ['--dataset-name', 'random', '--num-prompts', '8']): string[] => [
    '--base-url',
    url,
    '--model',
    'deepseek-ai/DeepSeek-V4',
    '--tokenizer',
    'gpt2',
    ...dataset,
    '--random-input-len',
    '96',
    '--random-output-len',
    '4',
    '--random-range-ratio',
    '0.5',
    '--max-concurrency',
    '2',
    '--num-warmups',
    '0',
    '--seed',
    '3',
    '--ignore-eos',
    '--use-chat-template',
  ];

  it('sends every random prompt in DeepSeek-V4’s encoding, and counts the encoded prompt', async () => {
    prompts.length = 0;
    const file = join(tempFiles({}), 'r.json');
    const result = await runCliAsync(['bench', ...args(), '--dsv4', '--result-file', file]);
    expect(result.stderr).toContain(`result written to ${file}`);
    expect(result.status).toBe(0);
    expect(prompts).toHaveLength(8);
    const tokenizer = gpt2Tokenizer();
    // The reference's chat_template_dummy: the framing of "a", less the one token of "a".
    const overhead = (await tokenizer.encode(dsv4ChatPrompt('a'))).length - 1;
    for (const p of prompts) {
      expect(p).toBe(dsv4ChatPrompt(inner(p)));
      const own = (await tokenizer.encode(inner(p))).length;
      expect(own).toBeGreaterThanOrEqual(Math.floor((96 - overhead) * 0.5));
      expect(own).toBeLessThanOrEqual(96 - overhead);
    }
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { input_lens: number[] };
    const counted = await Promise.all(prompts.map(async (p) => (await tokenizer.encode(p)).length));
    expect([...raw.input_lens].sort()).toEqual(counted.sort());
  });

  it('sends each JSONL prompt exactly as the reference encoder frames it', async () => {
    prompts.length = 0;
    const texts = ['plain', '  padded\t\n', 'e\u0301 👩‍👩‍👧 مرحبا 你好 \ufffd', '<｜User｜>{content}</think>'];
    const dir = tempFiles({ 'p.jsonl': texts.map((t) => JSON.stringify(t)).join('\n') });
    const jsonl = ['--dataset-name', 'jsonl', '--dataset-path', join(dir, 'p.jsonl')];
    const result = await runCliAsync(['bench', ...args(jsonl), '--dsv4']);
    expect(result.status).toBe(0);
    // dsv4ChatPrompt is checked against the reference's own output above.
    expect([...prompts].sort()).toEqual(texts.map(dsv4ChatPrompt).sort());
    expect(prompts).toContain(`${BOS_USER}  padded\t\n${ASSISTANT_THINK}`);
  });

  it('without --dsv4 the same flags frame prompts with the tokenizer’s template', async () => {
    const parsed = (await benchOptions(args()))!;
    const requests = await prepareRequests(parsed.options, gpt2Tokenizer());
    for (const r of requests) {
      expect(r.prompt.startsWith('<|im_start|>user\n')).toBe(true);
      expect(r.prompt).not.toContain('<｜User｜>');
    }
  });

  it('refuses --dsv4 without --use-chat-template before reaching for the server (exit 2)', async () => {
    const result = await runCliAsync(['bench', '--base-url', 'http://127.0.0.1:9', '--dsv4']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^usage: frontier bench .*\nfrontier bench: error: --dsv4 requires --use-chat-template to be set: add --use-chat-template \(.*\)\n$/s,
    );
  });
});
