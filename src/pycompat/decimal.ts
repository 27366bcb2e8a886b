/**
 * The slice of Python's `decimal` that Frontier needs (CI priority scores, the agentic DRAM
 * budget): `Decimal(str(number))`, addition in the default context (28 significant digits,
 * half-even), `quantize` with ROUND_HALF_UP, and the value in plain notation (`f"{d:.3f}"` of a
 * quantized one). Exact integer arithmetic on coefficients, never floats, so what prints is the
 * reference's digit for digit.
 */
import { floatRepr, intRepr } from './float.js';

/** (-1)^neg · coef · 10^exp; a zero keeps its sign, as Python's does. */
export interface Decimal {
  readonly neg: boolean;
  readonly coef: bigint;
  readonly exp: number;
}

/** The default context's precision: a sum with more significant digits is rounded. */
const PRECISION = 28;

export const ZERO: Decimal = { neg: false, coef: 0n, exp: 0 };

/** A finite number as `Decimal()` reads it: `1`, `-0.75`, `.5`, `5.`, `1e-05`, `+2.5E3`. */
export const DECIMAL_TEXT = /^([-+])?(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/** `Decimal(text)` for a finite number's text (DECIMAL_TEXT). */
export function decimalFromText(text: string): Decimal {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (!m) throw new Error(`internal: ${JSON.stringify(text)} is not a finite number's text`);
  const fraction = m[3] ?? '';
  return { neg: m[1] === '-', coef: BigInt(`${m[2]!}${fraction}` || '0'), exp: Number(m[4] ?? 0) - fraction.length };
}

/**
 * `Decimal(str(value))` for a value from YAML: an integral number as Python's int, any other as
 * its float repr (the shortest digits that round-trip, which is all `str()` gives Decimal), a
 * string as written (PyYAML reads `1e-05`, without a dot, as one).
 */
export function decimalOf(value: number | string): Decimal {
  if (typeof value === 'string') return decimalFromText(value);
  return decimalFromText(Number.isInteger(value) ? intRepr(value) : floatRepr(value));
}

const digits = (n: bigint): number => (n === 0n ? 1 : n.toString().length);
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `a + b`: exact, then rounded half-even to 28 significant digits (what the default context does). */
export function add(a: Decimal, b: Decimal): Decimal {
  const exp = Math.min(a.exp, b.exp);
  const signed = (d: Decimal): bigint => (d.neg ? -d.coef : d.coef) * pow10(d.exp - exp);
  const sum = signed(a) + signed(b);
  // An exact zero is positive unless both operands were negative (IEEE 754's rule for round-half-even).
  const neg = sum === 0n ? a.neg && b.neg : sum < 0n;
  const coef = sum < 0n ? -sum : sum;
  const excess = digits(coef) - PRECISION;
  if (excess <= 0) return { neg, coef, exp };
  return { neg, coef: roundDivide(coef, pow10(excess), 'half-even'), exp: exp + excess };
}

function roundDivide(n: bigint, d: bigint, rounding: 'half-up' | 'half-even'): bigint {
  const q = n / d;
  const twice = (n % d) * 2n;
  if (twice > d || (twice === d && (rounding === 'half-up' || q % 2n === 1n))) return q + 1n;
  return q;
}

/**
 * `d.quantize(Decimal(f"1e{exp}"), ROUND_HALF_UP)`; undefined where Python raises InvalidOperation
 * (the result needs more than 28 digits).
 */
export function quantize(d: Decimal, exp: number): Decimal | undefined {
  const coef = d.exp >= exp ? d.coef * pow10(d.exp - exp) : roundDivide(d.coef, pow10(exp - d.exp), 'half-up');
  return digits(coef) > PRECISION ? undefined : { neg: d.neg, coef, exp };
}

/** The exact value as a fraction: numerator (signed), denominator (a power of ten). */
export function decimalFraction(d: Decimal): [bigint, bigint] {
  const num = d.neg ? -d.coef : d.coef;
  return d.exp >= 0 ? [num * pow10(d.exp), 1n] : [num, pow10(-d.exp)];
}

/**
 * The value in plain notation with its own digits (`0.75`, `-1.25`, `2`; `0.750` for a value
 * quantized to the thousandth, as `f"{d:.3f}"` prints it); a negative zero keeps its sign.
 */
export function decimalText(d: Decimal): string {
  const sign = d.neg ? '-' : '';
  if (d.exp >= 0) return `${sign}${(d.coef * pow10(d.exp)).toString()}`;
  const text = d.coef.toString().padStart(-d.exp + 1, '0');
  const point = text.length + d.exp;
  return `${sign}${text.slice(0, point)}.${text.slice(point)}`;
}

/** Order by value (a zero's sign aside), for sorting scores. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  const exp = Math.min(a.exp, b.exp);
  const x = (a.neg ? -a.coef : a.coef) * pow10(a.exp - exp);
  const y = (b.neg ? -b.coef : b.coef) * pow10(b.exp - exp);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isZero = (d: Decimal): boolean => d.coef === 0n;
