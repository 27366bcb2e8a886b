/**
 * Python's `random.Random` (CPython 3.11) for an int seed: the same MT19937 stream, and the same
 * draws from it in random(), getrandbits(), randrange(), randint(), choice(), shuffle() and
 * sample(), so a seeded Python selection (which problems, in which order) can be reproduced.
 */
import { PythonError } from './builtins.js';

const N = 624;
const M = 397;

function bitLength(n: number): number {
  return n < 2 ** 32 ? 32 - Math.clz32(n) : n.toString(2).length;
}

function integer(value: number, message: string): number {
  if (!Number.isSafeInteger(value)) throw new PythonError(message, 'ValueError');
  return value;
}

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private index = N;

  /** `random.Random(seed)`: init_by_array over the 32-bit words of abs(seed), least significant first. */
  constructor(seed: number | bigint) {
    if (typeof seed === 'number' && !Number.isInteger(seed)) {
      throw new PythonError(
        `PyRandom takes an integer seed, not ${seed}`,
        undefined,
        'Python hashes other seeds; Frontier does not',
      );
    }
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s;
    for (let i = 1; i < N; i++) mt[i] = Math.imul(1812433253, mt[i - 1]! ^ (mt[i - 1]! >>> 30)) + i;
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      mt[i] = (mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1664525)) + key[j]! + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      mt[i] = (mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1566083941)) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** genrand_uint32. (A Uint32Array keeps every store modulo 2^32.) */
  private next32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[(kk + 1) % N]! & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A float in [0, 1) from 53 random bits: (a >> 5, b >> 6) as CPython's random_random. */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** k random bits: one word's top k bits for k ≤ 32; otherwise 32-bit words, least significant first, the last one's top bits. */
  getrandbits(k: number): bigint {
    if (!Number.isSafeInteger(k) || k < 0) throw new PythonError('number of bits must be non-negative', 'ValueError');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.next32() >>> (32 - k));
    let result = 0n;
    for (let shift = 0n; k > 0; k -= 32, shift += 32n) {
      const r = k < 32 ? this.next32() >>> (32 - k) : this.next32();
      result |= BigInt(r) << shift;
    }
    return result;
  }

  /** `_randbelow_with_getrandbits`: an int in [0, n), 0 < n ≤ 2**53, by rejection of bit_length(n)-bit draws. */
  randbelow(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 2 ** 53) throw new RangeError(`randbelow needs an integer in [1, 2**53], got ${n}`);
    const k = bitLength(n);
    if (k <= 32) {
      let r = this.next32() >>> (32 - k);
      while (r >= n) r = this.next32() >>> (32 - k);
      return r;
    }
    const limit = BigInt(n);
    let r = this.getrandbits(k);
    while (r >= limit) r = this.getrandbits(k);
    return Number(r);
  }

  /** `randrange(stop)` or `randrange(start, stop)` (step 1). */
  randrange(start: number, stop?: number): number {
    integer(start, 'non-integer arg 1 for randrange()');
    if (stop === undefined) {
      if (start > 0) return this.randbelow(start);
      throw new PythonError('empty range for randrange()', 'ValueError');
    }
    integer(stop, 'non-integer stop for randrange()');
    const width = stop - start;
    if (width > 0) return start + this.randbelow(width);
    throw new PythonError(`empty range for randrange() (${start}, ${stop}, ${width})`, 'ValueError');
  }

  /** An int in [a, b], both included. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new PythonError('Cannot choose from an empty sequence', 'IndexError');
    return seq[this.randbelow(seq.length)]!;
  }

  /** In place: each position from the last down to 1 swaps with one at or before it. */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j]!, x[i]!];
    }
  }

  /**
   * k distinct positions of `population`, in selection order. Like CPython, a small population is
   * drawn from a shrinking pool and a large one by rejecting repeats; the threshold is the size of
   * a set of k items (21, plus 4 ** ceil(log(3k, 4)) above 5 items, computed with floats as Python does).
   */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isSafeInteger(k) || k < 0 || k > n)
      throw new PythonError('Sample larger than population or is negative', 'ValueError');
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    const result: T[] = [];
    if (n <= setsize) {
      const pool = [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result.push(pool[j]!);
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result.push(population[j]!);
      }
    }
    return result;
  }
}
