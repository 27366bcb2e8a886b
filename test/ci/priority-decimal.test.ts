// Python's Decimal as the priority score uses it; each expectation is what Python 3.11 prints
// for the same expression (e.g. `f"{(Decimal('0.1') + Decimal('-0.1004')).quantize(Decimal('0.001'), ROUND_HALF_UP):.3f}"`).
import { describe, expect, it } from 'vitest';
import { add, compareDecimal, decimalFromText, decimalOf, decimalText } from '../../src/pycompat/decimal.js';
import { formatScore, quantizeScore } from '../../src/ci/priority.js';

const sum = (...texts: string[]) => texts.map(decimalFromText).reduce(add);
const score = (...texts: string[]): string => formatScore(quantizeScore(sum(...texts)));

describe('decimal (Python Decimal for CI priority scores)', () => {
  it('adds exactly where binary floats would not', () => {
    expect(score('0.1', '0.2')).toBe('0.300');
    expect(decimalText(sum('0.1', '0.2'))).toBe('0.3');
    expect(score('1.0', '2.0', '1.25', '0.75', '0.75', '0.5', '0.75')).toBe('7.000');
  });

  it('quantizes half up, away from zero, at the thousandth', () => {
    expect(score('0.7225')).toBe('0.723');
    expect(score('0.0005')).toBe('0.001');
    expect(score('0.00049999')).toBe('0.000');
    expect(score('-0.0005')).toBe('-0.001');
    expect(score('2.0015')).toBe('2.002');
  });

  it('keeps the sign of a negative score that rounds to zero, as Python prints it', () => {
    expect(score('0.1', '-0.1004')).toBe('-0.000');
    // An exact zero sum is positive, unless every term was a negative zero.
    expect(score('0.25', '-0.25')).toBe('0.000');
    expect(score('-0.0', '-0')).toBe('-0.000');
    expect(score('-0.0', '0')).toBe('0.000');
  });

  it("reads numbers as Python's str() writes them, and the strings Decimal() accepts", () => {
    expect(formatScore(quantizeScore(decimalOf(1e-5)))).toBe('0.000');
    expect(decimalText(decimalOf(1e-5))).toBe('0.00001');
    expect(decimalText(decimalOf('1e-05'))).toBe('0.00001');
    expect(decimalText(decimalOf('.5'))).toBe('0.5');
    expect(decimalText(decimalOf('5.'))).toBe('5');
    expect(decimalText(decimalOf('+2.5E3'))).toBe('2500');
    expect(decimalText(decimalOf(0.1))).toBe('0.1');
    expect(decimalText(decimalOf(123456789.0125))).toBe('123456789.0125');
    expect(formatScore(quantizeScore(decimalOf(1e22)))).toBe('10000000000000000000000.000');
  });

  it('rounds a sum to 28 significant digits, half to even, as the default context does', () => {
    // Decimal('1e27') + Decimal('0.5') == Decimal('1000000000000000000000000000') (28 digits; .5 rounds to even)
    expect(decimalText(sum('1e27', '0.5'))).toBe('1000000000000000000000000000');
    expect(decimalText(sum('1e27', '1.5'))).toBe('1000000000000000000000000002');
  });

  it('refuses a score whose thousandths need more than 28 digits (InvalidOperation in Python)', () => {
    expect(() => quantizeScore(decimalFromText('1e26'))).toThrow(/more than 28 digits/);
    expect(formatScore(quantizeScore(decimalFromText('1e24')))).toBe('1000000000000000000000000.000');
  });

  it('orders by value', () => {
    const order = ['2.250', '-0.000', '10', '0.001', '-1'].map(decimalFromText).sort(compareDecimal).map(decimalText);
    expect(order).toEqual(['-1', '-0.000', '0.001', '2.250', '10']);
  });
});
