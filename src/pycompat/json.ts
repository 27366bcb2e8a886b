/**
 * JSON as Python's `json` module reads and writes it. The reference scripts print matrices with
 * `json.dumps(rows)`, write result files with `json.dump(obj, f, indent=2)` and hash rows with
 * `json.dumps(row, sort_keys=True, separators=(",", ":"))`; byte-identical text lets existing
 * tooling diff ours against theirs. Floats in repr form (`2.0`, `1e-05`, `1e+16`), non-ASCII as
 * \uXXXX, NaN and Infinity as bare words.
 */
import { byCodePoint } from './builtins.js';
import { PyFloat, intRepr, jsonFloat } from './float.js';

/** JSON values as the reference sees them: objects are plain or `Map`s (exact key order), floats may be `PyFloat`. */
export type PyJson = null | boolean | number | string | PyFloat | PyJson[] | Map<string, PyJson> | { [key: string]: PyJson };

/** The arguments of `json.dumps` that change its text. */
export interface DumpsOptions {
  /** `indent=`: spaces per level, or the string itself; absent, everything is on one line. */
  indent?: number | string;
  /** `separators=(item, key)`: default `(", ", ": ")`, or `(",", ": ")` with an indent. */
  separators?: readonly [item: string, key: string];
  /** `sort_keys=True`: object keys in code-point order. */
  sortKeys?: boolean;
  /** `ensure_ascii=` (default true): everything outside ASCII space to `~` as \uXXXX. */
  ensureAscii?: boolean;
}

const NON_ASCII_TEST = /[^\x00-\x7e]/;
const NON_ASCII = /[\u007f-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
// ensure_ascii: JSON.stringify escapes quotes, backslashes, control characters and lone surrogates
// as Python does; everything from DEL up is escaped after.
const asciiString = (s: string): string => JSON.stringify(s).replace(NON_ASCII, escapeChar);
// Without ensure_ascii Python escapes only quotes, backslashes and control characters (JSON.stringify
// would escape a lone surrogate too).
const ESCAPE = /["\\\x00-\x1f]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
const rawString = (s: string): string => `"${s.replace(ESCAPE, (c) => SHORT_ESCAPES[c] ?? escapeChar(c))}"`;

/** An integral number prints as Python prints the int: every digit, never an exponent. */
const numberJson = (n: number): string => (Number.isInteger(n) ? intRepr(n) : jsonFloat(n));

/** How `json.dumps` writes a dict key: str as is, numbers, booleans and None as their JSON text. */
function keyText(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number') return numberJson(key);
  if (key instanceof PyFloat) return jsonFloat(key.value);
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (key === null) return 'null';
  if (typeof key === 'bigint') return key.toString();
  throw new TypeError(`keys must be str, int, float, bool or None, not ${typeof key}`);
}

/** `sort_keys`: str keys in code-point order, numeric keys by value; a mix cannot be ordered. */
function sortItems(items: [unknown, unknown][]): void {
  if (items.every(([k]) => typeof k === 'string')) {
    (items as [string, unknown][]).sort(([a], [b]) => byCodePoint(a, b));
    return;
  }
  const num = (k: unknown): number | undefined =>
    typeof k === 'number' ? k : typeof k === 'boolean' ? Number(k) : k instanceof PyFloat ? k.value : undefined;
  items.sort(([a], [b]) => {
    const x = num(a);
    const y = num(b);
    if (x === undefined || y === undefined) throw new TypeError(`'<' not supported between ${typeof a} and ${typeof b} keys`);
    return x - y;
  });
}

/**
 * Text as `json.dumps(value, …)` writes it (allow_nan): an integral number as an int, a `PyFloat`
 * or fractional number as a float's repr, `Map`s in their key order, plain objects in theirs;
 * `undefined` properties are left out and `undefined` array items are `null`, as JSON.stringify
 * does; other objects go through their `toJSON`.
 */
export function dumps(value: unknown, options: DumpsOptions = {}): string {
  const { indent, sortKeys = false } = options;
  const step = indent === undefined ? undefined : typeof indent === 'number' ? ' '.repeat(Math.max(0, indent)) : indent;
  const [itemSep, keySep] = options.separators ?? (step === undefined ? [', ', ': '] : [',', ': ']);
  const str = options.ensureAscii === false ? rawString : asciiString;
  const write = (v: unknown, pad: string): string => {
    if (v === null || v === undefined) return 'null';
    switch (typeof v) {
      case 'string':
        return str(v);
      case 'number':
        return numberJson(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        return v.toString();
      case 'object':
        break;
      default:
        throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
    }
    if (v instanceof PyFloat) return jsonFloat(v.value);
    let items: string[];
    let open = '{';
    let close = '}';
    const inner = step === undefined ? '' : pad + step;
    if (Array.isArray(v)) {
      open = '[';
      close = ']';
      items = v.map((item: unknown) => write(item, inner));
    } else if (v instanceof Map || typeof (v as { toJSON?: unknown }).toJSON !== 'function') {
      const entries: [unknown, unknown][] = v instanceof Map ? [...v.entries()] : Object.entries(v);
      const present = entries.filter(([, item]) => item !== undefined);
      if (sortKeys) sortItems(present);
      items = present.map(([key, item]) => `${str(keyText(key))}${keySep}${write(item, inner)}`);
    } else {
      return write((v as { toJSON: () => unknown }).toJSON(), pad);
    }
    if (items.length === 0) return open + close;
    if (step === undefined) return `${open}${items.join(itemSep)}${close}`;
    return `${open}\n${inner}${items.join(`${itemSep}\n${inner}`)}\n${pad}${close}`;
  };
  if (value === undefined) throw new TypeError('Object of type undefined is not JSON serializable');
  return write(value, '');
}

/**
 * `json.dumps(value)` with default arguments for plain data, as YAML or JSON.parse give it:
 * numbers, strings, booleans, null, arrays and plain objects (no `PyFloat`, no `Map`: JSON.stringify
 * would write them as `2` and `{}`). The same text as `dumps(value)`, from one native
 * JSON.stringify: the matrix (1 MB) prints in about half the time of the value-by-value writer.
 */
export function dumpsPlain(value: unknown): string {
  // With a one-space indent every item is on its own line and keys end in `": "`. Strings cannot
  // hold a raw line break, so every "\n" is structural: after a comma it becomes Python's ", ",
  // anywhere else (after [ or {, before ] or }) it goes.
  const indented = JSON.stringify(value, null, 1);
  if (indented === undefined) throw new TypeError(`Object of type ${typeof value} is not JSON serializable`);
  if (PYTHON_DIFFERS.test(indented)) return dumps(value);
  const text = indented.split(COMMA_BREAK).join(', ').split(BREAK).join('');
  return NON_ASCII_TEST.test(text) ? text.replace(NON_ASCII, escapeChar) : text;
}

// Where JSON.stringify's text may not be Python's, the document takes the value-by-value path: a
// number in exponent form (JS `1e-7`, Python `1e-07`), one below 1e-4 (JS `0.00005`, Python
// `5e-05`), an integer beyond 2^53 (16 digits or more: JS pads its shortest digits with zeros,
// Python's int has the exact value), and `null`, which JSON.stringify also writes for NaN and
// ±Infinity. A string that happens to hold the same text costs the slower path, never a wrong result.
const PYTHON_DIFFERS = /\de[-+]\d|0\.0000|\d{16}|null/;
const COMMA_BREAK = /,\n */;
const BREAK = /\n */;

/** The same value with `PyFloat`s as numbers and `Map`s as plain objects. */
export function toPlain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, toPlain(v)]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}

/** A JSON text that Python's `json.loads` rejects (`json.JSONDecodeError`). */
export class PyJsonSyntaxError extends Error {
  constructor(
    readonly msg: string,
    readonly position: number,
  ) {
    super(`${msg} (char ${position})`);
    this.name = 'PyJsonSyntaxError';
  }

  /** `str(json.JSONDecodeError)` for `text`: `<msg>: line L column C (char P)`. */
  describe(text: string): string {
    const before = text.slice(0, this.position);
    const line = before.split('\n').length;
    const col = this.position - before.lastIndexOf('\n');
    return `${this.msg}: line ${line} column ${col} (char ${this.position})`;
  }
}

/**
 * Parse JSON as Python's `json.loads` does: NaN, Infinity and -Infinity are accepted, a number
 * with a fraction or exponent is a float (returned as `PyFloat`), duplicate keys keep the last
 * value. Objects are plain objects (integer-like keys therefore come first, unlike Python).
 * With `exactInts`, an integer beyond ±(2^53 - 1) is a `bigint` (Python's int keeps every digit:
 * nanosecond timestamps subtract exactly).
 */
export function loads(text: string, options: { exactInts?: boolean } = {}): unknown {
  let i = 0;
  const fail = (message: string): never => {
    throw new PyJsonSyntaxError(message, i);
  };
  const skip = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  const STRING = /"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"/y;
  const value = (): unknown => {
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      skip();
      if (text[i] === '}') return (i++, obj);
      for (;;) {
        skip();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const key = string();
        skip();
        if (text[i] !== ':') fail("Expecting ':' delimiter");
        i++;
        Object.defineProperty(obj, key, { value: value(), enumerable: true, writable: true, configurable: true });
        skip();
        if (text[i] === '}') return (i++, obj);
        if (text[i] !== ',') fail("Expecting ',' delimiter");
        i++;
      }
    }
    if (c === '[') {
      i++;
      const list: unknown[] = [];
      skip();
      if (text[i] === ']') return (i++, list);
      for (;;) {
        list.push(value());
        skip();
        if (text[i] === ']') return (i++, list);
        if (text[i] !== ',') fail("Expecting ',' delimiter");
        i++;
      }
    }
    if (c === '"') return string();
    for (const [word, v] of WORDS) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('Expecting value');
    i += m[0].length;
    const n = Number(m[0]);
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(n);
    return options.exactInts && !Number.isSafeInteger(n) ? BigInt(m[0]) : n;
  };
  const string = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) return fail('Invalid string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const result = value();
  skip();
  if (i < text.length) fail('Extra data');
  return result;
}

const WORDS: [string, unknown][] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['NaN', new PyFloat(NaN)],
  ['Infinity', new PyFloat(Infinity)],
  ['-Infinity', new PyFloat(-Infinity)],
];
