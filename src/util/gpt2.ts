import { createRequire } from 'node:module';

/**
 * GPT-2's byte-pair vocabulary (r50k_base, via `gpt-tokenizer`): the tokens the sim serves and the
 * load generator's built-in tokenizer, so both count the same. Loaded from node_modules on first
 * use (the build keeps it out of the bundle): it is a large table most commands never need.
 */

export interface Gpt2Encoding {
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
}

export const GPT2_NAME = 'gpt2';
export const GPT2_VOCAB_SIZE = 50257;

let encoding: Gpt2Encoding | undefined;

export function gpt2Encoding(): Gpt2Encoding {
  if (!encoding) {
    const require = createRequire(import.meta.url);
    const enc = require('gpt-tokenizer/encoding/r50k_base') as {
      encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
      decode(tokens: readonly number[]): string;
    };
    // Text that spells a special token ("<|endoftext|>") counts as text, as a server counts a prompt; it must not throw.
    const plain = { disallowedSpecial: new Set<string>() };
    // gpt-tokenizer decodes with one shared streaming TextDecoder and never flushes it: bytes of a
    // character cut at the end of one decode would start the next one. Flushing ends this decode
    // with U+FFFD for them, as a server decoding the same tokens (from_utf8_lossy) does.
    const { decoder } = require('gpt-tokenizer/cjs/BytePairEncodingCore') as { decoder: { decode(): string } };
    encoding = { encode: (text) => enc.encode(text, plain), decode: (tokens) => enc.decode(tokens) + decoder.decode() };
  }
  return encoding;
}
