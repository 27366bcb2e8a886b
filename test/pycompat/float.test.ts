import { describe, expect, it } from 'vitest';
import { PyFloat, dumps, floatRepr, pyFixed, pyRepr, pyRoundInt, pyStr } from '../../src/pycompat/index.js';
import { doubleHex, python } from './python.js';

/** Doubles around every boundary Python's repr and json.dumps treat specially. */
const EDGES = [
  // Fixed notation from 1e-4 up to (not including) 1e16, exponent notation outside.
  1e-5,
  0.0001,
  0.00005,
  0.00009999999999999999,
  0.00010000000000000002,
  1e-7,
  2.5e-5,
  1e15,
  1e16,
  1.5e16,
  9999999999999998,
  10000000000000002,
  123456789012345680.0,
  1e21,
  1e22,
  1e100,
  // Shortest round-trip digits.
  0.1 + 0.2,
  0.1,
  1 / 3,
  2 / 3,
  123.456,
  123456789.125,
  1.7976931348623157e308,
  5e-324,
  2.2250738585072014e-308,
  Number.EPSILON,
  2 ** 53 + 2,
  4.35,
  0.3,
  // Integral values Python holds as floats, signs, zero and the non-finite.
  2.0,
  -2.0,
  100.0,
  1.0,
  0,
  -0,
  -1e-5,
  -1.5e16,
  -123.456,
  NaN,
  Infinity,
  -Infinity,
];

/** Seeded pseudo-random doubles: random bit patterns, and random digits at every decimal exponent. */
function sampled(): number[] {
  let state = 0x2545f4914f6cdd1dn;
  const next = (): bigint => {
    state ^= (state << 13n) & 0xffffffffffffffffn;
    state ^= state >> 7n;
    state ^= (state << 17n) & 0xffffffffffffffffn;
    return state;
  };
  const view = new DataView(new ArrayBuffer(8));
  const out: number[] = [];
  for (let i = 0; i < 300; i++) {
    view.setBigUint64(0, next());
    const x = view.getFloat64(0);
    if (!Number.isNaN(x)) out.push(x);
  }
  for (let e = -330; e <= 310; e += 1) out.push(Number(`${Number(next() % 99999n) + 1}e${e}`));
  return out;
}

const VALUES = [...EDGES, ...sampled()];

/** format(x, ".Nf") cases: ties, tiny and large values, the non-finite (the text Python 3.11 prints). */
const TIES: [number, number, string][] = [
  [0.03125, 4, '0.0312'],
  [0.00005, 4, '0.0001'],
  [1e22, 2, '10000000000000000000000.00'],
  [-0.00001, 4, '-0.0000'],
  [2.675, 2, '2.67'],
  [0.5, 0, '0'],
  [1.5, 0, '2'],
  [2.5, 0, '2'],
  [0.125, 2, '0.12'],
  [0.375, 2, '0.38'],
  [1, 4, '1.0000'],
  [NaN, 4, 'nan'],
  [-Infinity, 2, '-inf'],
  [0.95678544, 4, '0.9568'],
];

interface PythonFloats {
  repr: string[];
  str: string[];
  json: string[];
  int: (string | null)[];
  fixed: [string, string, string][];
  ties: string[];
}

// Python's answers, from one python3 process.
const expected = python<PythonFloats>(
  `floats = [struct.unpack('>d', bytes.fromhex(h))[0] for h in data['values']]
out = {
  'repr': [repr(x) for x in floats],
  'str': [str(x) for x in floats],
  'json': [json.dumps(x) for x in floats],
  'int': [json.dumps(int(x)) if x == x and abs(x) != float('inf') and x == int(x) else None for x in floats],
  'fixed': [[format(x, '.4f'), format(x, '.2f'), format(x, '.0f')] if abs(x) < 1e30 or x != x else ['', '', ''] for x in floats],
  'ties': [format(struct.unpack('>d', bytes.fromhex(h))[0], f'.{d}f') for h, d in data['ties']],
}`,
  { values: VALUES.map(doubleHex), ties: TIES.map(([x, d]) => [doubleHex(x), d]) },
);

describe("float repr, as Python's repr(float) and json.dumps write it", () => {
  it('agrees with Python on every value, across the exponent boundaries', () => {
    const got = VALUES.map((x) => [floatRepr(x), pyStr(new PyFloat(x)), pyRepr(new PyFloat(x)), dumps(new PyFloat(x))]);
    const want = VALUES.map((_, i) => [expected.repr[i], expected.str[i], expected.repr[i], expected.json[i]]);
    for (let i = 0; i < VALUES.length; i++) expect(got[i], `${VALUES[i]}`).toEqual(want[i]);
  });

  it('writes the boundaries as Python does (a check that Python was asked the right question)', () => {
    const at = (x: number): string => expected.repr[VALUES.indexOf(x)]!;
    expect([1e-5, 0.0001, 0.00005, 1e15, 1e16, 1.5e16, 2.0].map(at)).toEqual([
      '1e-05',
      '0.0001',
      '5e-05',
      '1000000000000000.0',
      '1e+16',
      '1.5e+16',
      '2.0',
    ]);
    expect([floatRepr(-0), floatRepr(NaN), dumps(new PyFloat(NaN)), dumps(new PyFloat(-Infinity))]).toEqual([
      '-0.0',
      'nan',
      'NaN',
      '-Infinity',
    ]);
  });

  it('writes integral numbers as Python ints (every digit, -0 as 0)', () => {
    for (let i = 0; i < VALUES.length; i++) {
      const want = expected.int[i];
      if (want === null || want === undefined) continue;
      expect(dumps(VALUES[i]), `${VALUES[i]}`).toBe(want);
      expect(pyRepr(VALUES[i]), `${VALUES[i]}`).toBe(want);
    }
  });
});

describe('pyFixed (Python format(x, ".Nf"))', () => {
  it('rounds the exact binary value half to even, as Python does', () => {
    for (let i = 0; i < VALUES.length; i++) {
      const [four, two, zero] = expected.fixed[i]!;
      if (four === '') continue;
      const x = VALUES[i]!;
      expect([pyFixed(x, 4), pyFixed(x, 2), pyFixed(x, 0)], `${x}`).toEqual([four, two, zero]);
    }
  });

  it('rounds ties and prints large values as Python 3.11 does', () => {
    expect(expected.ties).toEqual(TIES.map(([, , text]) => text));
    for (const [x, digits, text] of TIES) expect(pyFixed(x, digits), `${x}`).toBe(text);
  });
});

describe('pyRoundInt (Python round(x) with no digits)', () => {
  it('rounds to the nearest integer, a tie to the even one', () => {
    // Python 3.11: [round(x) for x in (0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, 2.5001, 7.0)]
    expect([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, 2.5001, 7].map(pyRoundInt)).toEqual([0, 2, 2, 0, -2, 2, 3, 7]);
  });
});
