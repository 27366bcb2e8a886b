import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/util/user-error.js';
import { POSITIVE_INT, commaList, numberArg, numberListArg, parseNumber } from '../../src/cli/options.js';

describe('number options', () => {
  it('say the option, the value and what it takes', () => {
    expect(parseNumber('--limit', '12', POSITIVE_INT)).toBe(12);
    for (const bad of ['0', '-3', '1.5', '8.0', '1e3', ' 8', '', 'x'])
      expect(() => parseNumber('--limit', bad, POSITIVE_INT)).toThrow(
        new UserError(`--limit ${bad}: expected a positive integer`),
      );
    expect(() => parseNumber('--port', '70000', { integer: true, min: 0, max: 65535 })).toThrow(
      '--port 70000: expected an integer from 0 to 65535',
    );
    expect(() => parseNumber('--seed', '-1', { integer: true, min: 0 })).toThrow('--seed -1: expected an integer ≥ 0');
    expect(() => parseNumber('--pr', 'abc', { ...POSITIVE_INT, expected: 'a pull request number' })).toThrow(
      '--pr abc: expected a pull request number',
    );
  });

  it('take any finite number where an integer is not asked for', () => {
    expect(parseNumber('--timeout', '2.5', { min: 0 })).toBe(2.5);
    expect(parseNumber('--timeout', '1e3', { min: 0 })).toBe(1000);
    for (const bad of ['', ' ', '-1', 'Infinity', 'NaN'])
      expect(() => parseNumber('--timeout', bad, { min: 0 })).toThrow(`--timeout ${bad}: expected a number ≥ 0`);
    expect(() => parseNumber('--accuracy', '1.5', { min: 0, max: 1 })).toThrow('expected a number in [0, 1]');
  });

  it('as commander parsers, leave naming the option to commander', () => {
    expect(numberArg({ integer: true, min: 1 })('4')).toBe(4);
    expect(() => numberArg({ integer: true, min: 1 })('0')).toThrow(new InvalidArgumentError('expected a positive integer'));
    const conc = numberListArg(POSITIVE_INT);
    expect(conc('4, 8,16', conc('1'))).toEqual([1, 4, 8, 16]);
    expect(() => conc('4,,8')).toThrow(InvalidArgumentError);
  });

  it('split comma-separated lists, trimming each item', () => {
    expect(commaList(' ttft, tpot ,e2el')).toEqual(['ttft', 'tpot', 'e2el']);
    expect(commaList('')).toEqual(['']);
  });
});
