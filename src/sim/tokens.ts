import { createRequire } from 'node:module';
import { Rng } from '../util/rng.js';

/**
 * Real tokens of a real tokenizer: GPT-2's byte-pair vocabulary (r50k_base, via
 * `gpt-tokenizer`), so prompt lengths and usage counts are exact and a client with the same
 * tokenizer counts the same. Loaded on first use: it is a large table most commands never need.
 */

interface Encoding {
  encode(text: string, options?: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: readonly number[]): string;
}

let encoding: Encoding | undefined;

/** The vocabulary, loaded from node_modules on first use (the build keeps it out of the bundle). */
function load(): Encoding {
  encoding ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/r50k_base') as Encoding;
  return encoding;
}

/** Load the vocabulary now rather than on the first request. */
export function loadTokenizer(): void {
  load();
}

export const TOKENIZER = 'gpt2';
export const VOCAB_SIZE = 50257;

/** Text that spells a special token ("<|endoftext|>") counts as text, as a server counts a prompt. */
const PLAIN = { disallowedSpecial: new Set<string>() };

export function encode(text: string): number[] {
  return load().encode(text, PLAIN);
}

export function decode(tokens: readonly number[]): string {
  return load().decode(tokens);
}

/**
 * Output vocabulary: common lower-case word tokens with a leading space (" the", " model").
 * Each decodes to text that encodes back to the same single token, and a run of them
 * re-tokenizes into the same tokens, so a client's count of the text equals the server's.
 */
let words: string[] | undefined;
function outputWords(): string[] {
  if (words) return words;
  const enc = load();
  const out: string[] = [];
  for (let id = 0; id < VOCAB_SIZE && out.length < 4096; id++) {
    const text = enc.decode([id]);
    if (!/^ [a-z]{3,9}$/.test(text)) continue;
    const back = enc.encode(text, PLAIN);
    if (back.length === 1 && back[0] === id) out.push(text);
  }
  words = out;
  return out;
}

/** A seeded stream of output tokens, each one token of the vocabulary. */
export class TokenStream {
  private readonly rng: Rng;
  private readonly words = outputWords();

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  next(): string {
    return this.words[this.rng.int(this.words.length)]!;
  }
}

/** Chat messages rendered with the ChatML template, as the prompt the engine sees. */
export function renderChat(messages: readonly { role: string; content: string }[]): string {
  return `${messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('')}<|im_start|>assistant\n`;
}
