/**
 * The Python behaviours `validate_scores.py` and `collect_eval_results.py` print through:
 * `format(x, '.Nf')`, `str()` of JSON values, `==` between JSON values, truthiness, and the text
 * of the exceptions they print (`OSError`, `json.JSONDecodeError`).
 */
import { readFileSync } from 'node:fs';
import { PyFloat, PyJsonSyntaxError, floatRepr, parsePythonJson } from '../results/pyjson.js';
import { pyRepr } from '../results/python.js';

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

/** A JSON number as Python sees it: floats arrive as PyFloat, booleans are ints. */
export function pyNumber(value: unknown): number | undefined {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** `isinstance(value, int)` for a parsed JSON value (bool included, as in Python). */
export const pyIsInt = (value: unknown): value is number | boolean =>
  typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value));

/** `str(value)` of a parsed JSON value. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pyReprValue(value);
}

function pyReprValue(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value instanceof PyFloat)
    return floatRepr(value.value).replace(/^(-?)(NaN|Infinity)$/, (_, s: string, w: string) => (w === 'NaN' ? 'nan' : `${s}inf`));
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : floatRepr(value);
  if (typeof value === 'string') return pyRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyReprValue).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pyRepr(k)}: ${pyReprValue(v)}`)
    .join(', ')}}`;
}

/** Python `a == b` between parsed JSON values (1 == 1.0 == True). */
export function pyEquals(a: unknown, b: unknown): boolean {
  const x = pyNumber(a);
  const y = pyNumber(b);
  if (x !== undefined || y !== undefined) return x === y;
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEquals(v, b[i]));
  }
  const ka = Object.keys(a);
  const kb = b as Record<string, unknown>;
  return ka.length === Object.keys(kb).length && ka.every((k) => k in kb && pyEquals((a as Record<string, unknown>)[k], kb[k]));
}

/** Python truthiness of a parsed JSON value. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value !== '';
  const n = pyNumber(value);
  if (n !== undefined) return n !== 0;
  if (Array.isArray(value)) return value.length > 0;
  return Object.keys(value as object).length > 0;
}

export const isDict = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof PyFloat);

/** Python's sort order of str: by code point (JavaScript's `<` compares UTF-16 units). */
export function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

const ERRNO: Record<string, [number, string]> = {
  ENOENT: [2, 'No such file or directory'],
  EACCES: [13, 'Permission denied'],
  EISDIR: [21, 'Is a directory'],
  ENOTDIR: [20, 'Not a directory'],
};

/** The text of the OSError Python raises for `open(path)`: `[Errno 2] No such file or directory: 'x'`. */
export function osErrorText(e: unknown, path: string): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const known = ERRNO[code];
  if (known) return `[Errno ${known[0]}] ${known[1]}: ${pyRepr(path)}`;
  return `${(e as Error).message}: ${pyRepr(path)}`;
}

/** `str(json.JSONDecodeError)`: `<msg>: line L column C (char P)`. */
function jsonErrorText(e: PyJsonSyntaxError, text: string): string {
  const m = /^(.*) \(char (\d+)\)$/.exec(e.message);
  if (!m) return e.message;
  const pos = Number(m[2]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return `${m[1]}: line ${line} column ${col} (char ${pos})`;
}

export type JsonRead = { ok: true; value: unknown } | { ok: false; kind: 'os' | 'json'; error: string };

/**
 * `json.load(open(path))`, the error as Python prints it. `shown` is the path as the reference
 * would name it (relative to its working directory).
 */
export function readPyJson(path: string, shown: string): JsonRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { ok: false, kind: 'os', error: osErrorText(e, shown) };
  }
  try {
    return { ok: true, value: parsePythonJson(text) };
  } catch (e) {
    if (e instanceof PyJsonSyntaxError) return { ok: false, kind: 'json', error: jsonErrorText(e, text) };
    throw e;
  }
}
