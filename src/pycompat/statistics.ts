/**
 * Python's `statistics.mean` and `statistics.pstdev` (exact rational sums, one correct rounding
 * at the end) and int/int true division. Plain JavaScript arithmetic differs in the last bit
 * often enough to change a five-decimal digit of the reference's aggregates.
 */

const view = new DataView(new ArrayBuffer(8));

/** A finite double as an exact ratio `n / 2^k` (k ≥ 0). */
function exactRatio(x: number): [bigint, bigint] {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  const sign = hi >>> 31 ? -1n : 1n;
  if (exponent >= 0) return [sign * (mantissa << BigInt(exponent)), 1n];
  return [sign * mantissa, 1n << BigInt(-exponent)];
}

const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

/** `p / q` for Python ints: the exact quotient rounded once, half to even. */
export function ratioToFloat(p: bigint, q: bigint): number {
  if (q < 0n) [p, q] = [-p, -q];
  if (p === 0n) return 0;
  const negative = p < 0n;
  if (negative) p = -p;
  const shift = bitLength(p) - bitLength(q) - 55;
  const num = shift < 0 ? p << BigInt(-shift) : p;
  const den = shift > 0 ? q << BigInt(shift) : q;
  const quotient = num / den;
  const sticky = num % den !== 0n;
  const extra = bitLength(quotient) - 53;
  let mantissa = quotient >> BigInt(extra);
  const rest = quotient & ((1n << BigInt(extra)) - 1n);
  const half = 1n << BigInt(extra - 1);
  if (rest > half || (rest === half && (sticky || (mantissa & 1n) === 1n))) mantissa += 1n;
  const value = Number(mantissa) * 2 ** (shift + extra);
  return negative ? -value : value;
}

interface Fraction {
  n: bigint;
  d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

const reduce = (n: bigint, d: bigint): Fraction => {
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};

/**
 * A running exact sum of fractions whose denominators are powers of two (floats' exact ratios):
 * the larger denominator is always the common one.
 */
class ExactSum {
  n = 0n;
  d = 1n;

  add(vn: bigint, vd: bigint): void {
    if (vd > this.d) {
      this.n *= vd / this.d;
      this.d = vd;
    }
    this.n += vn * (this.d / vd);
  }
}

/** The exact sum of the values as a fraction. */
function exactSum(values: readonly number[]): Fraction {
  const sum = new ExactSum();
  for (const v of values) sum.add(...exactRatio(v));
  return reduce(sum.n, sum.d);
}

/** A Python mean: its value, and whether Python would hold it as an int (all inputs ints, exact quotient). */
export interface PyMean {
  value: number;
  isInt: boolean;
}

/** `statistics.mean(values)`; `ints` says the inputs were Python ints. Non-finite inputs give NaN/±inf as Python. */
export function pyMean(values: readonly number[], ints = false): PyMean {
  if (values.some((v) => !Number.isFinite(v))) return { value: values.reduce((a, b) => a + b, 0), isInt: false };
  const sum = exactSum(values);
  const { n, d } = reduce(sum.n, sum.d * BigInt(values.length));
  if (ints && d === 1n) return { value: Number(n), isInt: true };
  return { value: ratioToFloat(n, d), isInt: false };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

const SQRT_BIT_WIDTH = 2 * 53 + 3;

/** Python's floor division for the (possibly negative) shift. */
const floorDiv2 = (a: number): number => Math.floor(a / 2);

/** `statistics._float_sqrt_of_frac`: √(n/m) correctly rounded, by round-to-odd integer square roots. */
function sqrtOfFraction(n: bigint, m: bigint): number {
  const rto = (a: bigint, b: bigint): bigint => {
    const r = isqrt(a / b);
    return r * r * b !== a ? r | 1n : r;
  };
  const q = floorDiv2(bitLength(n) - bitLength(m) - SQRT_BIT_WIDTH);
  if (q >= 0) return ratioToFloat(rto(n, m << BigInt(2 * q)) << BigInt(q), 1n);
  return ratioToFloat(rto(n << BigInt(-2 * q), m), 1n << BigInt(-q));
}

/** `statistics.pstdev(values)` (at least one value, all finite). */
export function pyPstdev(values: readonly number[]): number {
  if (values.some((v) => !Number.isFinite(v))) return NaN;
  const count = BigInt(values.length);
  const sx = new ExactSum();
  const sxx = new ExactSum();
  for (const v of values) {
    const [vn, vd] = exactRatio(v);
    sx.add(vn, vd);
    sxx.add(vn * vn, vd * vd);
  }
  // ssd = (count·sxx − sx²) / count; variance = ssd / count.
  const num = count * sxx.n * sx.d * sx.d - sx.n * sx.n * sxx.d;
  const den = sxx.d * sx.d * sx.d * count * count;
  const { n, d } = reduce(num, den);
  return sqrtOfFraction(n, d);
}
