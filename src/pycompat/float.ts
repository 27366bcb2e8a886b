/**
 * Python's numbers as text. A JavaScript number cannot say whether Python held it as `2` or
 * `2.0`: an integral number prints as Python's int, and a value Python holds as a float is
 * carried as a `PyFloat` (or told apart by the caller, see `FloatTest`).
 */

/** A value that Python holds as a float: prints as its repr even when integral (`2.0`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/**
 * Python's `repr(int(n))` of an integral number: every digit of its exact value, never an
 * exponent (`-0` is `0`). Beyond 2^53 that is the double's value (`1e21` is 1 and 21 zeros), not
 * JavaScript's shortest digits padded with zeros.
 */
export const intRepr = (n: number): string => (Math.abs(n) <= Number.MAX_SAFE_INTEGER ? String(n) : BigInt(n).toString());

/**
 * Python's `repr(float)`: the shortest digits that round-trip, fixed notation for
 * 1e-4 ≤ |x| < 1e16 (`0.0001`, `1000000000000000.0`), else exponent notation with a sign and at
 * least two digits (`1e-05`, `1e+16`); `nan`, `inf`, `-inf`, `-0.0`.
 */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without digits gives the shortest digits that round-trip, as repr does.
  const [mantissa, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${frac}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/** A float as `json.dumps` writes it (allow_nan): its repr, but `NaN`, `Infinity`, `-Infinity`. */
export function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return floatRepr(x);
}

const view = new DataView(new ArrayBuffer(8));

/**
 * `format(x, '.{digits}f')`: the exact binary value rounded half-to-even (JavaScript's
 * toFixed rounds exact ties up, and switches to exponent form from 1e21).
 */
export function pyFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = hi >>> 20;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased !== 0) mantissa |= 1n << 52n;
  const exponent = (biased === 0 ? 1 : biased) - 1075; // |x| = mantissa · 2^exponent
  const scaled = mantissa * 10n ** BigInt(digits);
  let q: bigint;
  if (exponent >= 0) q = scaled << BigInt(exponent);
  else {
    const den = 1n << BigInt(-exponent);
    q = scaled / den;
    const twice = (scaled % den) * 2n;
    if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  }
  const text = q.toString().padStart(digits + 1, '0');
  return digits === 0 ? sign + text : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Python's `round(x, digits)` of a float: the exact value rounded half-to-even, read back. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const rounded = Number(pyFixed(x, digits));
  return rounded === 0 && (x < 0 || Object.is(x, -0)) ? -0 : rounded;
}

/** Python's `round(x)` (no digits): the nearest integer, half to even. */
export function pyRoundInt(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
