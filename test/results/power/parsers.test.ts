// Local time for naive timestamps: the recorded answers were made under America/New_York (DST included).
const zone = process.env.TZ;
process.env.TZ = 'America/New_York';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { floatRepr } from '../../../src/pycompat/index.js';
import { csvRecords, dictReader } from '../../../src/results/power/csv.js';
import { parsePower, parseTimestamp, parseUtcOffset } from '../../../src/results/power/timestamps.js';
import { REPO } from '../../helpers.js';

// What the reference's _parse_timestamp / _parse_power return (scripts/power-golden.py).
const RECORDED = JSON.parse(readFileSync(join(REPO, 'test/fixtures/power/timestamps.json'), 'utf8')) as {
  timestamps: [string, string | null][];
  powers: [string, string | null][];
};
const repr = (v: number | undefined): string | null => (v === undefined ? null : floatRepr(v));

// Other test files may run after this one in the same process.
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('cell parsers agree with the reference', () => {
  for (const [cell, expected] of RECORDED.timestamps) {
    it(`timestamp ${JSON.stringify(cell)}`, () => {
      expect(repr(parseTimestamp(cell.trim()))).toBe(expected);
    });
  }
  for (const [cell, expected] of RECORDED.powers) {
    it(`power ${JSON.stringify(cell)}`, () => {
      expect(repr(parsePower(cell.trim()))).toBe(expected);
    });
  }
  it('a fixed offset instead of local time (Frontier extension)', () => {
    expect(parseTimestamp('2025/01/15 12:34:56.789', 0)).toBe(1736944496.789);
    expect(parseTimestamp('2025/01/15 12:34:56.789', -5 * 3600)).toBe(1736962496.789);
    expect(parseTimestamp('2025-01-15T12:34:56+00:00', -5 * 3600)).toBe(1736944496);
    expect(parseUtcOffset('+0000')).toBe(0);
    expect(parseUtcOffset('-05:00')).toBe(-18000);
    expect(parseUtcOffset('+2400')).toBeUndefined();
    expect(parseUtcOffset('PST')).toBeUndefined();
  });
});

describe("Python's csv.DictReader(skipinitialspace=True)", () => {
  it('quotes, doubled quotes, CR/CRLF line ends, blank lines, short and long rows', () => {
    expect(csvRecords('a, "b,c", "d""e"\r\n\r\nx,y\rp')).toEqual([['a', 'b,c', 'd"e'], [], ['x', 'y'], ['p']]);
    expect(csvRecords('a,"unterminated\nnext')).toEqual([['a', 'unterminated\nnext']]);
    const { header, rows } = dictReader(' t , p \n1\n1,2,3\n');
    expect(header).toEqual(['t', 'p']);
    expect(rows.map((r) => Object.fromEntries(r))).toEqual([
      { t: '1', p: null },
      { t: '1', p: '2' },
    ]);
  });
  it('a field over the 131072-character limit is an error', () => {
    expect(() => csvRecords(`${'x'.repeat(131073)}\n`)).toThrow(/field larger than field limit/);
    expect(csvRecords(`${'x'.repeat(131072)}\n`)[0]![0]).toHaveLength(131072);
  });
  it('a BOM stays in the first header (Python reads utf-8, not utf-8-sig)', () => {
    expect(dictReader('\ufefftimestamp,gpu\n').header).toEqual(['\ufefftimestamp', 'gpu']);
  });
});
