/**
 * The Python built-ins whose exact behaviour the reference scripts print through: `int()` and
 * `float()` of environment strings and JSON values, `repr()` and `str()` of values, `type()`,
 * `==`, truthiness, `isinstance`, the order of str, and float division. Errors carry the text
 * of the exception Python raises.
 */
import { UserError } from '../util/user-error.js';
import { PyFloat, floatRepr, intRepr } from './float.js';

/** The Python exception class the reference raises for the same input. */
export type PythonErrorType =
  'OSError' | 'ValueError' | 'IndexError' | 'TypeError' | 'KeyError' | 'ZeroDivisionError' | 'OverflowError';

/**
 * What the reference raises: `message` is its exception text (what follows `ValueError: ` on a
 * traceback's last line); `hint` says how to fix it. `pythonType` is absent for Frontier's own
 * refusals (a value Python would take that Frontier cannot hold).
 */
export class PythonError extends UserError {
  constructor(
    message: string,
    readonly pythonType?: PythonErrorType,
    hint?: string,
  ) {
    super(message, { hint });
    this.name = 'PythonError';
  }

  /** One line: `ValueError: <message> (<hint>)`. */
  describe(): string {
    return `${this.pythonType ? `${this.pythonType}: ` : ''}${this.message}${this.hint ? ` (${this.hint})` : ''}`;
  }
}

// int() and float() first map non-ASCII whitespace to ' ' and non-ASCII decimal digits to ASCII
// ones, then strip ASCII whitespace.
const UNICODE_SPACE = /[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const STRIP = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;
const DIGIT = /\p{Nd}/u;
const INT_LITERAL = /^[+-]?\d(?:_?\d)*$/;
const FLOAT_LITERAL = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const FLOAT_WORD = /^([+-]?)(nan|inf|infinity)$/i;

/** The value of a Unicode decimal digit: they come in runs of ten, 0 to 9. */
function digitValue(cp: number): number {
  let start = cp;
  while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** `_PyUnicode_TransformDecimalAndSpaceToASCII` then strip: what int() and float() parse. */
function numericText(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 127) out += ch;
    else if (UNICODE_SPACE.test(ch)) out += ' ';
    else if (DIGIT.test(ch)) out += String(digitValue(cp));
    else out += '?';
  }
  return out.replace(STRIP, '');
}

/** Python's type name of a JSON value, as in `not 'NoneType'`. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (value instanceof PyFloat) return 'float';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    case 'string':
      return 'str';
    default:
      return 'dict';
  }
}

/** `isinstance(value, int)` for a JSON value (bool included, as in Python). */
export const pyIsInt = (value: unknown): value is number | boolean =>
  typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value));

/** `isinstance(value, int) and not isinstance(value, bool)` for a JSON value. */
export const pyIsIntNotBool = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/** `isinstance(value, dict)` for a JSON value. */
export const isDict = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof PyFloat);

/** A JSON number as Python sees it: floats arrive as PyFloat, booleans are ints; else undefined. */
export function pyNumber(value: unknown): number | undefined {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** Which integral numbers Python holds as floats (YAML wrote `2.0`), by their path in the value. */
export type FloatTest = (path: readonly string[]) => boolean;

/** Python's `repr()` of a string: single quotes unless it holds one and no double quote. */
function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
      // Not printable (str.isprintable): escaped by code point.
      if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return quote + out + quote;
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * Python's `repr()` of a JSON or YAML value: `None`, `True`, `2`, `2.0`, `'text'`, `[1, 'a']`,
 * `{'k': 1}`. A `PyFloat`, a fractional number and an integral one where `isFloat(path)` holds
 * print as floats. Other objects (a Date, a class instance) throw a TypeError: their Python
 * counterparts are not modelled.
 */
export function pyRepr(value: unknown, isFloat?: FloatTest, path: readonly string[] = []): string {
  if (value === null || value === undefined) return 'None';
  switch (typeof value) {
    case 'string':
      return strRepr(value);
    case 'boolean':
      return value ? 'True' : 'False';
    case 'number':
      return Number.isInteger(value) && !isFloat?.(path) ? intRepr(value) : floatRepr(value);
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      throw new TypeError(`no Python repr() for a ${typeof value}`);
  }
  if (value instanceof PyFloat) return floatRepr(value.value);
  // Paths are only built for a FloatTest to read.
  const at = (key: unknown): readonly string[] => (isFloat ? [...path, String(key)] : path);
  if (Array.isArray(value)) return `[${value.map((v: unknown, i) => pyRepr(v, isFloat, at(i))).join(', ')}]`;
  let entries: [unknown, unknown][];
  if (value instanceof Map) entries = [...value.entries()];
  else if (isPlainObject(value)) entries = Object.entries(value);
  else throw new TypeError(`no Python repr() for a ${value.constructor.name}`);
  return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v, isFloat, at(k))}`).join(', ')}}`;
}

/** Python's `str()` of a JSON or YAML value: a string is itself, anything else its `repr()`. */
export function pyStr(value: unknown, isFloat?: FloatTest, path: readonly string[] = []): string {
  return typeof value === 'string' ? value : pyRepr(value, isFloat, path);
}

/** Python `a == b` between JSON values (1 == 1.0 == True). */
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

/** Python truthiness of a JSON value. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value !== '';
  const n = pyNumber(value);
  if (n !== undefined) return n !== 0;
  if (Array.isArray(value)) return value.length > 0;
  return Object.keys(value as object).length > 0;
}

/**
 * Python's order of str, by code point. JavaScript's `<` compares UTF-16 units, which is the same
 * order except where a surrogate (half of a character above U+FFFF) meets U+E000 to U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800 && x < 0xe000 !== y < 0xe000) return x < 0xe000 ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Python's `int(s)` for a string: surrounding whitespace, a sign, leading zeros, single
 * underscores between digits and any Unicode decimal digits are accepted (`" 8 "`, `"08"`,
 * `"1_0"`). `what` names the value in the hint.
 */
export function pyIntFromString(s: string, what: string): number {
  const text = numericText(s);
  if (!INT_LITERAL.test(text)) {
    throw new PythonError(`invalid literal for int() with base 10: ${pyRepr(s)}`, 'ValueError', `${what} must be an integer`);
  }
  const n = BigInt(text.replaceAll('_', ''));
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new PythonError(`${what} is ${s.trim()}: too large`, undefined, 'Frontier keeps integers within ±(2^53 - 1)');
  }
  return Number(n);
}

/** Python's `int(value)` of a JSON value (a float is truncated toward zero). */
export function pyInt(value: unknown, what: string): number {
  if (typeof value === 'string') return pyIntFromString(value, what);
  if (typeof value === 'boolean') return value ? 1 : 0;
  const n = value instanceof PyFloat ? value.value : value;
  if (typeof n === 'number') {
    if (Number.isNaN(n)) throw new PythonError('cannot convert float NaN to integer', 'ValueError', `${what} is NaN`);
    if (!Number.isFinite(n)) {
      throw new PythonError('cannot convert float infinity to integer', 'OverflowError', `${what} is infinite`);
    }
    return Math.trunc(n) || 0;
  }
  throw new PythonError(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
    'TypeError',
    `${what} must be a number`,
  );
}

/** Python's `float(value)` of a JSON value: numbers, booleans and numeric strings. */
export function pyFloat(value: unknown, what: string): number {
  const n = pyNumber(value);
  if (n !== undefined) return n;
  if (typeof value === 'string') {
    const s = numericText(value);
    const word = FLOAT_WORD.exec(s);
    if (word) {
      const magnitude = word[2]!.toLowerCase() === 'nan' ? NaN : Infinity;
      return word[1] === '-' ? -magnitude : magnitude;
    }
    if (FLOAT_LITERAL.test(s)) return Number(s.replaceAll('_', ''));
    throw new PythonError(`could not convert string to float: ${pyRepr(value)}`, 'ValueError', `${what} must be a number`);
  }
  throw new PythonError(
    `float() argument must be a string or a real number, not '${pyTypeName(value)}'`,
    'TypeError',
    `${what} must be a number`,
  );
}

/** `a / b` for Python floats: dividing by zero raises instead of giving Infinity. */
export function pyDivide(a: number, b: number, hint: string): number {
  if (b === 0) throw new PythonError('float division by zero', 'ZeroDivisionError', hint);
  return a / b;
}
