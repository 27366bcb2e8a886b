import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PyRandom, PythonError } from '../../src/pycompat/index.js';

interface SeedCase {
  seed: string;
  random: number[];
  getrandbits: [number, string][];
  randbelow4: number[];
  randbelow_big: [number, number][];
  shuffle10: number[];
  sample_4_4: number[];
  sample_50_10: number[];
  sample_100_10: number[];
  sample_1000_30: number[];
  randint_1_6: number[];
  randrange: number[];
  choice: string;
  random_after: number;
}

/** Made by scripts/pycompat-golden.py (Python 3.11): one random.Random(seed) per case, drawn in this order. */
const golden = JSON.parse(readFileSync(new URL('../fixtures/pycompat/golden.json', import.meta.url), 'utf8')) as {
  random: SeedCase[];
};
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('PyRandom against Python random.Random (golden)', () => {
  it('covers the seeds asked for', () => {
    expect(golden.random.map((c) => c.seed)).toEqual([
      '0',
      '1',
      '42',
      '1234',
      '3407',
      String(2 ** 32 + 5),
      String(2n ** 70n),
      '-7',
    ]);
  });

  it.each(golden.random.map((c) => [c.seed, c] as const))('seed %s', (_, c) => {
    const r = new PyRandom(BigInt(c.seed));
    expect(range(20).map(() => r.random())).toEqual(c.random);
    for (const [k, bits] of c.getrandbits) expect([k, r.getrandbits(k).toString()]).toEqual([k, bits]);
    expect(range(5).map(() => r.randbelow(4))).toEqual(c.randbelow4);
    for (const [n, v] of c.randbelow_big) expect([n, r.randbelow(n)]).toEqual([n, v]);
    const x = range(10);
    r.shuffle(x);
    expect(x).toEqual(c.shuffle10);
    expect(r.sample(range(4), 4)).toEqual(c.sample_4_4);
    expect(r.sample(range(50), 10)).toEqual(c.sample_50_10);
    expect(r.sample(range(100), 10)).toEqual(c.sample_100_10);
    expect(r.sample(range(1000), 30)).toEqual(c.sample_1000_30);
    expect(range(10).map(() => r.randint(1, 6))).toEqual(c.randint_1_6);
    expect([r.randrange(10), r.randrange(5, 8), r.randrange(-3, 3), r.randrange(2 ** 40)]).toEqual(c.randrange);
    expect(r.choice(['a', 'b', 'c', 'd', 'e'])).toBe(c.choice);
    expect(r.random()).toBe(c.random_after);
  });

  it('takes a number seed as the same int, and -n as n', () => {
    for (const seed of [0, 42, 2 ** 32 + 5, 2 ** 70]) {
      expect(new PyRandom(seed).random()).toBe(new PyRandom(BigInt(seed)).random());
    }
    expect(new PyRandom(-7).getrandbits(64)).toBe(new PyRandom(7).getrandbits(64));
  });
});

describe('PyRandom refuses what Python refuses', () => {
  const r = new PyRandom(0);
  const error = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof PythonError) return e.describe();
      if (e instanceof Error) return `${e.name}: ${e.message}`;
    }
    return 'no error';
  };

  it('gives Python’s messages', () => {
    expect(error(() => new PyRandom(1.5))).toBe(
      'PyRandom takes an integer seed, not 1.5 (Python hashes other seeds; Frontier does not)',
    );
    expect(error(() => r.getrandbits(-1))).toBe('ValueError: number of bits must be non-negative');
    expect(error(() => r.randrange(0))).toBe('ValueError: empty range for randrange()');
    expect(error(() => r.randrange(3, 3))).toBe('ValueError: empty range for randrange() (3, 3, 0)');
    expect(error(() => r.randrange(1.5))).toBe('ValueError: non-integer arg 1 for randrange()');
    expect(error(() => r.randint(2, 1))).toBe('ValueError: empty range for randrange() (2, 2, 0)');
    expect(error(() => r.choice([]))).toBe('IndexError: Cannot choose from an empty sequence');
    expect(error(() => r.sample([1, 2], 3))).toBe('ValueError: Sample larger than population or is negative');
    expect(error(() => r.randbelow(0))).toBe('RangeError: randbelow needs an integer in [1, 2**53], got 0');
  });
});
