import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GPT2_NAME, GPT2_VOCAB_SIZE, gpt2Encoding } from '../util/gpt2.js';
import { UserError } from '../util/user-error.js';

/**
 * The tokenizers the load generator can count and build prompts with: GPT-2's (built in, via
 * `gpt-tokenizer`), any Hugging Face `tokenizer.json` (via `@huggingface/tokenizers`), or the
 * server's own (`/tokenize` and `/detokenize`, so client and server cannot disagree).
 */
export interface Tokenizer {
  /** What results record as `tokenizer_id`. */
  readonly name: string;
  readonly vocabSize: number;
  /** Jinja chat template (a tokenizer_config.json's `chat_template`), when the tokenizer has one. */
  readonly chatTemplate?: string | undefined;
  readonly specialTokens?: { bos?: string | undefined; eos?: string | undefined } | undefined;
  encode(text: string): Promise<number[]>;
  decode(ids: readonly number[]): Promise<string>;
}

const require = createRequire(import.meta.url);

export function gpt2Tokenizer(): Tokenizer {
  const enc = gpt2Encoding();
  return {
    name: GPT2_NAME,
    vocabSize: GPT2_VOCAB_SIZE,
    encode: (text) => Promise.resolve(enc.encode(text)),
    decode: (ids) => Promise.resolve(enc.decode(ids)),
  };
}

/** A Hugging Face tokenizer from its `tokenizer.json` (and `tokenizer_config.json` beside it, when there is one). */
export async function huggingFaceTokenizer(path: string): Promise<Tokenizer> {
  const read = async (file: string): Promise<Record<string, unknown> | undefined> => {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new UserError(`${file}: ${(e as Error).message}`);
    }
  };
  const json = await read(path);
  if (!json) throw new UserError(`${path}: no such tokenizer.json`);
  const config = (await read(join(dirname(path), 'tokenizer_config.json'))) ?? {};
  const { Tokenizer: HfTokenizer } = require('@huggingface/tokenizers') as {
    Tokenizer: new (
      json: unknown,
      config: unknown,
    ) => {
      encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
      decode(ids: readonly number[], options?: { skip_special_tokens?: boolean }): string;
    };
  };
  let tokenizer;
  try {
    tokenizer = new HfTokenizer(json, config);
  } catch (e) {
    throw new UserError(`${path}: not a tokenizer.json this library reads (${(e as Error).message})`);
  }
  const model = (json.model ?? {}) as { vocab?: Record<string, number> | [string, number][] };
  const ids = [
    ...(Array.isArray(model.vocab) ? model.vocab.map((_, i) => i) : Object.values(model.vocab ?? {})),
    ...((json.added_tokens ?? []) as { id: number }[]).map((t) => t.id),
  ];
  const token = (v: unknown): string | undefined =>
    typeof v === 'string'
      ? v
      : typeof (v as { content?: unknown })?.content === 'string'
        ? (v as { content: string }).content
        : undefined;
  const templates = config.chat_template;
  const chatTemplate = Array.isArray(templates)
    ? ((templates as { name: string; template: string }[]).find((t) => t.name === 'default') ?? templates[0])?.template
    : (templates as string | undefined);
  return {
    name: path,
    vocabSize: ids.reduce((max, id) => Math.max(max, id + 1), 0),
    chatTemplate,
    specialTokens: { bos: token(config.bos_token), eos: token(config.eos_token) },
    encode: (text) => Promise.resolve(tokenizer.encode(text, { add_special_tokens: false }).ids),
    decode: (tokens) => Promise.resolve(tokenizer.decode(tokens, { skip_special_tokens: false })),
  };
}

/** The server's tokenizer, through vLLM's (`prompt`/`tokens`) or llama.cpp's (`content`/`tokens`) endpoints. */
export async function serverTokenizer(baseUrl: string, model: string, headers: Record<string, string> = {}): Promise<Tokenizer> {
  const post = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new UserError(`${baseUrl}${path}: ${cause?.code ?? cause?.message ?? (e as Error).message} (is the server up?)`);
    }
    if (!res.ok)
      throw new UserError(
        `${baseUrl}${path} answered ${res.status}: the server cannot tokenize; use --tokenizer gpt2 or a tokenizer.json`,
      );
    try {
      const json = (await res.json()) as unknown;
      if (typeof json === 'object' && json !== null) return json as Record<string, unknown>;
    } catch {
      // reported below
    }
    throw new UserError(`${baseUrl}${path}: the answer is not a JSON object`);
  };
  const tokensOf = (r: Record<string, unknown>): number[] => {
    if (!Array.isArray(r.tokens) || !r.tokens.every((t) => Number.isSafeInteger(t)))
      throw new UserError(`${baseUrl}/tokenize: the answer has no list of integer tokens`);
    return r.tokens as number[];
  };
  const probe = await post('/tokenize', { model, prompt: 'hello', content: 'hello', add_special_tokens: false });
  tokensOf(probe);
  const vocabSize =
    typeof probe.vocab_size === 'number' && Number.isSafeInteger(probe.vocab_size) && probe.vocab_size > 0
      ? probe.vocab_size
      : 32000;
  return {
    name: `${baseUrl}/tokenize`,
    vocabSize,
    encode: async (text) => tokensOf(await post('/tokenize', { model, prompt: text, content: text, add_special_tokens: false })),
    decode: async (tokens) => {
      const r = await post('/detokenize', { model, tokens });
      const text = r.prompt ?? r.content;
      if (typeof text !== 'string') throw new UserError(`${baseUrl}/detokenize: the answer has no text`);
      return text;
    },
  };
}

/** `gpt2`, `server`, or a path to a tokenizer.json. */
export async function loadTokenizer(
  spec: string,
  server: { baseUrl: string; model: string; headers?: Record<string, string> },
): Promise<Tokenizer> {
  if (spec === 'gpt2') return gpt2Tokenizer();
  if (spec === 'server') return serverTokenizer(server.baseUrl, server.model, server.headers);
  return huggingFaceTokenizer(spec.endsWith('.json') ? spec : join(spec, 'tokenizer.json'));
}
