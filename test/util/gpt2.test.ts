import { describe, expect, it } from 'vitest';
import { gpt2Encoding } from '../../src/util/gpt2.js';

describe('gpt2Encoding', () => {
  it('ends a decode cut inside a character with U+FFFD, and the next decode starts clean', () => {
    const enc = gpt2Encoding();
    const ids = enc.encode('日本語');
    // The first token holds only part of 日's bytes.
    expect(enc.decode(ids.slice(0, 1))).toBe('\uFFFD');
    expect(enc.decode(enc.encode('abc'))).toBe('abc');
    expect(enc.decode(ids)).toBe('日本語');
    // The same tokens decode the same whatever was decoded before.
    expect(enc.decode(ids.slice(0, 3))).toBe(enc.decode(ids.slice(0, 3)));
  });
});
