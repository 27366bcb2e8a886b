import { describe, expect, it } from 'vitest';
import {
  PythonError,
  byCodePoint,
  floatRepr,
  loads,
  pyEquals,
  pyFloat,
  pyIntFromString,
  pyRepr,
  pyStr,
  pyTruthy,
} from '../../src/pycompat/index.js';
import { python } from './python.js';

/** Strings whose repr() escapes, quotes or keeps characters (str.isprintable decides). */
const STRINGS = [
  "it's",
  'say "hi"',
  `both ' and "`,
  'back\\slash',
  'nl\n cr\r tab\t nul\u0000 del\u007f',
  'nel\u0085 nbsp\u00a0 zwsp\u200b ls\u2028 bom\ufeff',
  'lone \ud800 surrogate',
  'astral 😀 tag \u{e0001} private \ue000',
  'é 日本 ｶ ß',
  '',
];

/** JSON documents: str() and repr() of what json.loads gives (no integer-like keys). */
const VALUES = [
  '{"a": "x", "b": [1, true, null], "c": 2.0, "d": {"e": [0.5, 1e-05, 1e+16]}}',
  '[]',
  '{}',
  '"it\'s"',
  '[1.0, -0.0, NaN]',
];

/** What int() and float() make of environment strings. */
const NUMERIC = [
  ' 8 ',
  '08',
  '1_0',
  '+7',
  '-0',
  '\u0661\u0662',
  '\u00a012\u2003',
  '1__0',
  '0x10',
  '1.5',
  ' 1.5e3 ',
  'inf',
  '-Infinity',
  'nan',
  '1_000.5',
  '.',
  '1e',
  '',
  'é',
];

const SORTED = ['b', 'a', 'B', '_', 'é', '\uffff', '😀', '', 'ab', 'a\u0000'];

const EQUALITY: [string, string][] = [
  ['1', '1.0'],
  ['1', 'true'],
  ['0', 'false'],
  ['[1, 2.0]', '[1.0, 2]'],
  ['{"a": 1}', '{"a": 1.0}'],
  ['{"a": 1}', '{"b": 1}'],
  ['"1"', '1'],
  ['null', 'false'],
  ['NaN', 'NaN'],
  ['[]', '{}'],
];
const TRUTHY = ['0', '0.0', '-0.0', '""', '"0"', '[]', '[0]', '{}', '{"a": null}', 'null', 'false', 'NaN'];

// Python's answers, from one python3 process.
const want = python<{
  repr: string[];
  values: [string, string][];
  numeric: [int: string, float: string][];
  sorted: string[];
  equal: boolean[];
  truthy: boolean[];
}>(
  `def attempt(f, s):
    try:
        return repr(f(s))
    except ValueError as e:
        return 'ValueError: ' + str(e)
out = {
  'repr': [repr(s) for s in data['strings']],
  'values': [[str(v), repr(v)] for v in map(json.loads, data['values'])],
  'numeric': [[attempt(int, s), attempt(float, s)] for s in data['numeric']],
  'sorted': sorted(data['sorted']),
  'equal': [json.loads(a) == json.loads(b) for a, b in data['equality']],
  'truthy': [bool(json.loads(v)) for v in data['truthy']],
}`,
  { strings: STRINGS, values: VALUES, numeric: NUMERIC, sorted: SORTED, equality: EQUALITY, truthy: TRUTHY },
);

describe("Python's repr() and str()", () => {
  it('quotes and escapes strings as repr() does', () => {
    expect(STRINGS.map((s) => pyRepr(s))).toEqual(want.repr);
  });

  it('writes JSON values as str() and repr() do: repr inside containers, floats as floats', () => {
    expect(VALUES.map((text) => [pyStr(loads(text)), pyRepr(loads(text))])).toEqual(want.values);
  });

  it('prints integral numbers as floats where the FloatTest says YAML wrote a float', () => {
    expect(pyStr({ a: 'x', b: [1, true, null] })).toBe("{'a': 'x', 'b': [1, True, None]}");
    expect(pyStr("it's")).toBe("it's");
    expect(pyStr(["it's"])).toBe('["it\'s"]');
    expect([1e-5, 0.5, 123.25].map((n) => pyStr(n))).toEqual(['1e-05', '0.5', '123.25']);
    expect([2, 1e16].map((n) => pyStr(n, () => true))).toEqual(['2.0', '1e+16']);
    const paths: string[] = [];
    const isFloat = (path: readonly string[]): boolean => (paths.push(path.join('.')), path.at(-1) === 'f');
    expect(pyStr({ i: 1, f: 1, l: [2, { f: 3 }] }, isFloat, ['top'])).toBe("{'i': 1, 'f': 1.0, 'l': [2, {'f': 3.0}]}");
    expect(paths).toEqual(['top.i', 'top.f', 'top.l.0', 'top.l.1.f']);
  });

  it('refuses objects whose Python form is not modelled', () => {
    expect(() => pyStr(new Date(0))).toThrow(TypeError);
    expect(() => pyStr([new (class Custom {})()])).toThrow('no Python repr() for a Custom');
  });
});

describe('int() and float() of strings', () => {
  it('accept and reject what Python does, with its messages', () => {
    const attempt = (parse: () => string): string => {
      try {
        return parse();
      } catch (e) {
        if (e instanceof PythonError) return `${e.pythonType}: ${e.message}`;
        throw e;
      }
    };
    const got = NUMERIC.map((s) => [attempt(() => String(pyIntFromString(s, 'X'))), attempt(() => floatRepr(pyFloat(s, 'X')))]);
    expect(got).toEqual(want.numeric);
  });
});

describe('comparisons', () => {
  it('orders str by code point, as sorted() does', () => {
    expect([...SORTED].sort(byCodePoint)).toEqual(want.sorted);
  });

  it('compares and tests JSON values as == and bool() do', () => {
    expect(EQUALITY.map(([a, b]) => pyEquals(loads(a), loads(b)))).toEqual(want.equal);
    expect(TRUTHY.map((v) => pyTruthy(loads(v)))).toEqual(want.truthy);
  });
});
