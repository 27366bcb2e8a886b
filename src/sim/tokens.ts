import { GPT2_NAME, GPT2_VOCAB_SIZE, gpt2Encoding } from '../util/gpt2.js';
import { Rng } from '../util/rng.js';

/**
 * Real tokens of a real tokenizer: GPT-2's byte-pair vocabulary (src/util/gpt2.ts), so prompt
 * lengths and usage counts are exact and a client with the same tokenizer counts the same.
 * Loaded on first use: it is a large table most commands never need.
 */

/** Load the vocabulary now rather than on the first request. */
export function loadTokenizer(): void {
  gpt2Encoding();
}

export const TOKENIZER = GPT2_NAME;
export const VOCAB_SIZE = GPT2_VOCAB_SIZE;

export function encode(text: string): number[] {
  return gpt2Encoding().encode(text);
}

export function decode(tokens: readonly number[]): string {
  return gpt2Encoding().decode(tokens);
}

/**
 * Output vocabulary: common lower-case word tokens with a leading space (" the", " model").
 * Each decodes to text that encodes back to the same single token, and a run of them
 * re-tokenizes into the same tokens, so a client's count of the text equals the server's.
 */
let words: string[] | undefined;
function outputWords(): string[] {
  if (words) return words;
  const enc = gpt2Encoding();
  const out: string[] = [];
  for (let id = 0; id < VOCAB_SIZE && out.length < 4096; id++) {
    const text = enc.decode([id]);
    if (!/^ [a-z]{3,9}$/.test(text)) continue;
    const back = enc.encode(text);
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
