/** Python's statistics.mean/pstdev, round() and exact nanosecond spans: values printed by Python 3.11. */
import { describe, expect, it } from 'vitest';
import { loads, pyMean, pyPstdev, pyRound, ratioToFloat } from '../../src/pycompat/index.js';

describe('Python arithmetic for the agentic aggregate', () => {
  it('means exactly, rounding once (naive summing gives 0.20000000000000004)', () => {
    expect(pyMean([0.1, 0.2, 0.3]).value).toBe(0.2);
    expect(pyMean([1, 2, 3], true)).toEqual({ value: 2, isInt: true });
    expect(pyMean([1, 2], true)).toEqual({ value: 1.5, isInt: false });
  });

  it('takes population standard deviations exactly', () => {
    expect(pyPstdev([0.1, 0.2, 0.3, 0.7])).toBe(0.22776083947860745);
    expect(pyPstdev([1e-3, 2.5e-3, 18.2e-3])).toBe(0.0077787459714846645);
  });

  it('rounds the exact binary value half to even', () => {
    expect(pyRound(2.675, 2)).toBe(2.67);
    expect(pyRound(0.123455, 5)).toBe(0.12345);
    expect(pyRound(1.000005, 5)).toBe(1.00001);
    expect(Object.is(pyRound(-0.000001, 5), -0)).toBe(true);
  });

  it('subtracts nanosecond timestamps beyond 2^53 exactly', () => {
    const { a, b } = loads('{"a": 1780000000123456789, "b": 1780000000000000001}', { exactInts: true }) as {
      a: bigint;
      b: bigint;
    };
    expect(ratioToFloat(a - b, 1n) / 1e9).toBe(0.123456788);
  });
});
