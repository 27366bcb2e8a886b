import { describe, expect, it } from 'vitest';
import { BlockTexts, CACHE_BUST_WORDS, PromptBuilder, SINGLE_TOKEN_WORDS, words } from '../../src/bench/replay/blocks.js';
import { gpt2Encoding } from '../../src/util/gpt2.js';

describe('hash-block prompt text', () => {
  const gpt2 = gpt2Encoding();

  it('uses only words GPT-2 encodes as one token', () => {
    expect(SINGLE_TOKEN_WORDS.filter((w) => gpt2.encode(w).length !== 1)).toEqual([]);
  });

  it('makes a block exactly blockSize tokens, and blocks concatenate without merging', () => {
    const builder = new PromptBuilder(new BlockTexts(64));
    expect(gpt2.encode(builder.text('t', [1])).length).toBe(64);
    const ctx = builder.prefix('lane-0') + builder.text('t', [1, 2, 3, 4, 5]);
    expect(gpt2.encode(ctx).length).toBe(CACHE_BUST_WORDS + 5 * 64);
  });

  it('is deterministic per key and differs across keys and instances', () => {
    expect(words('t:1', 64)).toBe(words('t:1', 64));
    expect(words('t:1', 64)).not.toBe(words('t:2', 64));
    expect(words('u:1', 64)).not.toBe(words('t:1', 64));
    const builder = new PromptBuilder(new BlockTexts(8));
    expect(builder.prefix('a')).not.toBe(builder.prefix('b'));
  });

  it('keeps at most its capacity of words, dropping the least recently used blocks', () => {
    const blocks = new BlockTexts(4, 8);
    const a = blocks.block('a');
    blocks.block('b');
    blocks.block('a');
    blocks.block('c'); // drops b, the least recently used
    expect(blocks.size).toBe(2);
    expect(blocks.block('a')).toBe(a);
    // Blocks larger than the capacity: one kept at a time, whatever the trace's block size.
    const large = new BlockTexts(1000, 8);
    large.block('a');
    large.block('b');
    expect(large.size).toBe(1);
  });
});
