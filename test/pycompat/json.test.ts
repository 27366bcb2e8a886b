import { describe, expect, it } from 'vitest';
import { PyFloat, PyJsonSyntaxError, dumps, dumpsPlain, floatRepr, loads } from '../../src/pycompat/index.js';
import type { DumpsOptions } from '../../src/pycompat/index.js';
import { python } from './python.js';

/** Documents as JSON text, read by Python's json.loads and by `loads` (no integer-like keys: see the Map case). */
const DOCS = [
  '{"a": [1, 2.0, {"b": null, "c": [true, false]}], "d": {}, "e": [], "f": {"g": {"h": [[], {}]}}}',
  String.raw`{"\u00e9": "\u00fc\u007f\ud83d\ude00 \u2028 \ud800 tab\t nl\n quote\" back\\ ctrl\u0001 slash/", "\u65e5\u672c": ["\u00df", "\uffff", ""]}`,
  String.raw`{"z": 1, "a": 2, "m": {"y": 1, "b": 2}, "A": 3, "_": 4, "\u00e9": 5, "\ud83d\ude00": 6, "\uffff": 7, "": 8}`,
  '[0, -0, 1, -1, 2.0, -2.0, 0.5, 1e-05, 0.0001, 5e-05, 1e+16, 1.5e+16, 123456789012345680.0, 1e+22, 9007199254740992, 1000000000000000000000, NaN, Infinity, -Infinity, 0.30000000000000004, -0.0]',
  '[]',
  '{}',
  '"text"',
  '1.5',
  '-7',
  'null',
  '[[[[{"deep": [1, [2, [3, {}]]]}]]]]',
];

/** json.dumps keyword arguments, and the same as DumpsOptions. */
const OPTIONS: [python: string, options: DumpsOptions][] = [
  ['', {}],
  ['indent=2', { indent: 2 }],
  ['indent=0', { indent: 0 }],
  ['indent=-1', { indent: -1 }],
  ["indent='\\t'", { indent: '\t' }],
  ['sort_keys=True', { sortKeys: true }],
  ["sort_keys=True, separators=(',', ':')", { sortKeys: true, separators: [',', ':'] }],
  ['indent=2, sort_keys=True', { indent: 2, sortKeys: true }],
  ["indent=2, separators=(', ', ': ')", { indent: 2, separators: [', ', ': '] }],
  ['ensure_ascii=False', { ensureAscii: false }],
  ['ensure_ascii=False, indent=1', { ensureAscii: false, indent: 1 }],
];

/** Plain values whose JSON.stringify text differs from Python's in places dumpsPlain must catch. */
const PLAIN = [
  '{"a": "\\u00e9\\u2014\\u2713 \\"q\\" \\\\ \\n\\t\\u0001\\u007f", "b": [1, -2, true, false, null, {}], "c": {"x": []}, "d": 0.5, "e": 1e-07, "f": 123456789012}',
  '[0.00005, 0.00001, 0.0001, 0.000123, -0.00005, 10.00001, 1e-300, 1.5, 9007199254740992, 12345678901234567168, 1000000000000000000000]',
  '{"text": "null and 1e-05 and 0.0000 in a string", "n": null}',
  '[{"image": "lmsysorg/sglang:v0.5.6-cu129", "conc": [1, 2, 4], "dp-attn": false, "additional-settings": ["A=1"]}]',
  '{"\\u00fc": ["\\ud83d\\ude00", "\\u00e9"]}',
];

/** Texts json.loads rejects. */
const BAD = ['[1,]', '{"a": 1} x', '{"a" 1}', '{\n  "a": 1,\n  b: 2}', '[1 2]', '', '{"a": 1,}'];

// Python's answers, from one python3 process.
const want = python<{ docs: string[][]; map: string[]; numeric: string; plain: string[]; nonFinite: string; errors: string[] }>(
  `def err(doc):
    try:
        json.loads(doc)
    except json.JSONDecodeError as e:
        return str(e)
d = {'2': 'b', '1': 1.0, 'b': {'x': [-0.0, 1e-07]}, 3: 'int key', 0.5: 'float key', True: 'bool key', None: 'None key'}
out = {
  'docs': [[json.dumps(json.loads(doc), **kw) for kw in [${OPTIONS.map(([kw]) => `dict(${kw})`).join(', ')}]] for doc in data['docs']],
  'map': [json.dumps(d), json.dumps(d, indent=2)],
  'numeric': json.dumps({10: 'a', 9.5: 'b', 2: 'c'}, sort_keys=True),
  'plain': [json.dumps(json.loads(doc)) for doc in data['plain']],
  'nonFinite': json.dumps([float('nan'), float('inf'), -float('inf'), None]),
  'errors': [err(doc) for doc in data['bad']],
}`,
  { docs: DOCS, plain: PLAIN, bad: BAD },
);

describe("dumps (Python's json.dumps)", () => {
  it('writes what Python writes for every document and every option', () => {
    for (const [d, doc] of DOCS.entries()) {
      const value = loads(doc);
      for (const [o, [kw, options]] of OPTIONS.entries())
        expect(dumps(value, options), `${doc} with ${kw}`).toBe(want.docs[d]![o]);
    }
  });

  it("keeps a Map's key order and writes non-str keys as Python does", () => {
    const value = new Map<unknown, unknown>([
      ['2', 'b'],
      ['1', new PyFloat(1)],
      ['b', new Map([['x', [new PyFloat(-0), 1e-7]]])],
      [3, 'int key'],
      [new PyFloat(0.5), 'float key'],
      [true, 'bool key'],
      [null, 'None key'],
    ]);
    expect([dumps(value), dumps(value, { indent: 2 })]).toEqual(want.map);
    const numeric = new Map<unknown, unknown>([
      [10, 'a'],
      [new PyFloat(9.5), 'b'],
      [2, 'c'],
    ]);
    expect(dumps(numeric, { sortKeys: true })).toBe(want.numeric);
  });

  it('prints floats as repr and text as ensure_ascii', () => {
    const value = new Map<string, unknown>([
      ['a', new PyFloat(2)],
      ['b', 1e-5],
      ['c', new PyFloat(1e16)],
      ['d', [new PyFloat(NaN), new PyFloat(-Infinity), -0, new PyFloat(-0)]],
      ['é', 'ü\u007f😀'],
      ['e', {}],
      ['f', []],
    ]);
    expect(dumps(value, { indent: 2 })).toBe(
      '{\n  "a": 2.0,\n  "b": 1e-05,\n  "c": 1e+16,\n  "d": [\n    NaN,\n    -Infinity,\n    0,\n    -0.0\n  ],\n' +
        '  "\\u00e9": "\\u00fc\\u007f\\ud83d\\ude00",\n  "e": {},\n  "f": []\n}',
    );
    expect(dumps(value)).toBe(
      '{"a": 2.0, "b": 1e-05, "c": 1e+16, "d": [NaN, -Infinity, 0, -0.0], "\\u00e9": "\\u00fc\\u007f\\ud83d\\ude00", "e": {}, "f": []}',
    );
    expect([0.1, 1e15, 123456789.125, 1e-4, 5e-324, 1e22].map(floatRepr)).toEqual([
      '0.1',
      '1000000000000000.0',
      '123456789.125',
      '0.0001',
      '5e-324',
      '1e+22',
    ]);
  });

  it('leaves out undefined properties, writes undefined items as null and refuses what JSON cannot hold', () => {
    expect(dumps({ a: undefined, b: [undefined, 1n], c: new Date(0) })).toBe('{"b": [null, 1], "c": "1970-01-01T00:00:00.000Z"}');
    expect(() => dumps(undefined)).toThrow(TypeError);
    expect(() => dumps({ f: () => 1 })).toThrow('Object of type function is not JSON serializable');
    expect(() =>
      dumps(
        new Map<unknown, unknown>([
          ['a', 1],
          [2, 2],
        ]),
        { sortKeys: true },
      ),
    ).toThrow(TypeError);
  });
});

describe('dumpsPlain (json.dumps of plain data through JSON.stringify)', () => {
  it('writes what Python writes, from JSON.stringify where it agrees and value by value where not', () => {
    for (const [i, doc] of PLAIN.entries()) {
      const value: unknown = JSON.parse(doc);
      expect(dumpsPlain(value), doc).toBe(want.plain[i]);
      expect(dumps(value), doc).toBe(want.plain[i]);
    }
  });

  it('writes NaN and Infinity as Python does (JSON.stringify would write null)', () => {
    expect(dumpsPlain([NaN, Infinity, -Infinity, null])).toBe(want.nonFinite);
  });

  it('writes the reference example as json.dumps does', () => {
    const value = {
      a: 'é—✓ "q" \\ \n\t\u0001\u007f',
      b: [1, -2, true, false, null, {}],
      c: { x: [] },
      d: 0.5,
      e: 1e-7,
      f: 123456789012,
    };
    expect(dumpsPlain(value)).toBe(
      '{"a": "\\u00e9\\u2014\\u2713 \\"q\\" \\\\ \\n\\t\\u0001\\u007f", "b": [1, -2, true, false, null, {}], "c": {"x": []}, "d": 0.5, "e": 1e-07, "f": 123456789012}',
    );
  });
});

describe("loads (Python's json.loads)", () => {
  it('parses what json.loads accepts', () => {
    const parsed = loads(' {"a": 1, "b": 1.0, "c": NaN, "a": 2, "__proto__": 3} ') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['a', 'b', 'c', '__proto__']);
    expect(parsed.a).toBe(2);
    expect(parsed.b).toEqual(new PyFloat(1));
    expect(() => loads('{"a": 1} x')).toThrow(/Extra data/);
    expect(() => loads('[1,]')).toThrow(/Expecting value/);
  });

  it('describes a syntax error as str(json.JSONDecodeError) does', () => {
    const got = BAD.map((doc) => {
      try {
        loads(doc);
        return 'parsed';
      } catch (e) {
        if (e instanceof PyJsonSyntaxError) return e.describe(doc);
        throw e;
      }
    });
    expect(got).toEqual(want.errors);
  });
});
