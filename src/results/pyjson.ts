/**
 * JSON as Python's `json` module reads and writes it. The reference writes result files with
 * `json.dump(obj, f, indent=2)`: floats in repr form (`2.0`, `1e-05`, `1e+16`), non-ASCII as
 * \uXXXX, NaN/Infinity as bare words. A JS number cannot say whether it was `2` or `2.0`, so a
 * Python float is carried as a `PyFloat`; plain integral numbers print as ints.
 */

/** A value that Python holds as a float: prints as its repr even when integral (`2.0`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** JSON values as the reference sees them: objects are plain or `Map`s (exact key order), floats may be `PyFloat`. */
export type PyJson = null | boolean | number | string | PyFloat | PyJson[] | Map<string, PyJson> | { [key: string]: PyJson };

/** Python's `repr(float)`: the shortest round-trip digits, fixed notation for 1e-4 ≤ |x| < 1e16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
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

const NON_ASCII = /[\u007f-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
// JSON.stringify escapes quotes, backslashes, control characters and lone surrogates as Python does.
const stringJson = (s: string): string => JSON.stringify(s).replace(NON_ASCII, escapeChar);

function numberJson(n: number): string {
  // An integral double prints as Python prints the int: every digit, never an exponent.
  return Number.isInteger(n) ? BigInt(n).toString() : floatRepr(n);
}

/**
 * Text as `json.dumps(value, indent=indent)` writes it (ensure_ascii, allow_nan). Without an
 * indent, Python's default separators `", "` and `": "` on one line.
 */
export function formatPythonJson(value: unknown, indent?: number): string {
  const step = indent === undefined ? undefined : ' '.repeat(indent);
  const write = (v: unknown, pad: string): string => {
    if (v === null) return 'null';
    if (v instanceof PyFloat) return floatRepr(v.value);
    switch (typeof v) {
      case 'string':
        return stringJson(v);
      case 'number':
        return numberJson(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        const inner = step === undefined ? '' : pad + step;
        const items = Array.isArray(v)
          ? v.map((item) => write(item, inner))
          : [...(v instanceof Map ? v.entries() : Object.entries(v))]
              .filter(([, item]) => item !== undefined)
              .map(([key, item]) => `${stringJson(String(key))}: ${write(item, inner)}`);
        const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
        if (items.length === 0) return open + close;
        if (step === undefined) return `${open}${items.join(', ')}${close}`;
        return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${pad}${close}`;
      }
      default:
        throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
    }
  };
  return write(value, '');
}

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

/** A JSON text that Python's `json.loads` rejects. */
export class PyJsonSyntaxError extends Error {
  constructor(message: string, position: number) {
    super(`${message} (char ${position})`);
    this.name = 'PyJsonSyntaxError';
  }
}

/**
 * Parse JSON as Python's `json.loads` does: NaN, Infinity and -Infinity are accepted, a number
 * with a fraction or exponent is a float (returned as `PyFloat`), duplicate keys keep the last
 * value. Objects are plain objects (integer-like keys therefore come first, unlike Python).
 */
export function parsePythonJson(text: string): unknown {
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
    return m[1] !== undefined || m[2] !== undefined ? new PyFloat(n) : n;
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
