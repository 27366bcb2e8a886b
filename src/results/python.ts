/**
 * The few Python built-ins whose exact behaviour `process_result.py` depends on: `int()` and
 * `float()` of environment strings and raw JSON values, `repr()` of a string in error messages,
 * and `str(Path(...))`. Errors carry the reference's exception text.
 */
import { ResultsError } from './errors.js';
import { PyFloat } from './pyjson.js';

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

/** Python's `repr()` of a string: single quotes unless it holds one and no double quote. */
export function pyRepr(s: string): string {
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

/**
 * Python's `int(s)` for a string: surrounding whitespace, a sign, leading zeros, single
 * underscores between digits and any Unicode decimal digits are accepted (`" 8 "`, `"08"`,
 * `"1_0"`). `what` names the value in the hint.
 */
export function pyIntFromString(s: string, what: string): number {
  const text = numericText(s);
  if (!INT_LITERAL.test(text)) {
    throw new ResultsError(`invalid literal for int() with base 10: ${pyRepr(s)}`, 'ValueError', `${what} must be an integer`);
  }
  const n = BigInt(text.replaceAll('_', ''));
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new ResultsError(`${what} is ${s.trim()}: too large`, undefined, 'Frontier keeps integers within ±(2^53 - 1)');
  }
  return Number(n);
}

/** Python's `int(value)` of a JSON value (a float is truncated toward zero). */
export function pyInt(value: unknown, what: string): number {
  if (typeof value === 'string') return pyIntFromString(value, what);
  if (typeof value === 'boolean') return value ? 1 : 0;
  const n = value instanceof PyFloat ? value.value : value;
  if (typeof n === 'number') {
    if (Number.isNaN(n)) throw new ResultsError('cannot convert float NaN to integer', 'ValueError', `${what} is NaN`);
    if (!Number.isFinite(n)) {
      throw new ResultsError('cannot convert float infinity to integer', 'OverflowError', `${what} is infinite`);
    }
    return Math.trunc(n) || 0;
  }
  throw new ResultsError(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
    'TypeError',
    `${what} must be a number`,
  );
}

/** Python's `float(value)` of a JSON value: numbers, booleans and numeric strings. */
export function pyFloat(value: unknown, what: string): number {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const s = numericText(value);
    const word = FLOAT_WORD.exec(s);
    if (word) {
      const magnitude = word[2]!.toLowerCase() === 'nan' ? NaN : Infinity;
      return word[1] === '-' ? -magnitude : magnitude;
    }
    if (FLOAT_LITERAL.test(s)) return Number(s.replaceAll('_', ''));
    throw new ResultsError(`could not convert string to float: ${pyRepr(value)}`, 'ValueError', `${what} must be a number`);
  }
  throw new ResultsError(
    `float() argument must be a string or a real number, not '${pyTypeName(value)}'`,
    'TypeError',
    `${what} must be a number`,
  );
}

/** `a / b` for Python floats: dividing by zero raises instead of giving Infinity. */
export function pyDivide(a: number, b: number, hint: string): number {
  if (b === 0) throw new ResultsError('float division by zero', 'ZeroDivisionError', hint);
  return a / b;
}

/** `str(Path(p))` on POSIX: repeated and trailing slashes and `.` components go, `""` is `"."`. */
export function pyPath(p: string): string {
  const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
  const parts = p.split('/').filter((part) => part !== '' && part !== '.');
  return root + parts.join('/') || '.';
}

/** `isinstance(value, int) and not isinstance(value, bool)` for a JSON value. */
export const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
