import { describe, expect, it } from 'vitest';
import { columnWidths, textTable } from '../../src/util/text-table.js';

describe('textTable', () => {
  const rows = [
    ['launch', 'conc', 'note'],
    ['vllm tp8', '4', ''],
    ['sglang', '1024', 'timed out'],
  ];

  it('pads left-aligned columns on the right, right-aligned ones on the left, and trims line ends', () => {
    expect(textTable(rows, { align: ['left', 'right'] })).toEqual([
      'launch    conc  note',
      'vllm tp8     4',
      'sglang    1024  timed out',
    ]);
  });

  it('left-aligns every column unless told, with a gap of two spaces', () => {
    expect(textTable(rows)).toEqual(['launch    conc  note', 'vllm tp8  4', 'sglang    1024  timed out']);
  });

  it('keeps every cell padded with trimEnd false, and honours least widths and another gap', () => {
    expect(
      textTable(
        [
          ['a', 'bb'],
          ['ccc', ''],
        ],
        { gap: ' | ', minWidths: [0, 4], trimEnd: false },
      ),
    ).toEqual(['a   | bb  ', 'ccc |     ']);
    expect(textTable([['x', 'yy']], { align: ['right', 'right'], minWidths: [3, 3] })).toEqual(['  x   yy']);
  });

  it('counts a cell by its code points', () => {
    expect(
      textTable([
        ['😀é', 'b'],
        ['abc', 'c'],
      ]),
    ).toEqual(['😀é   b', 'abc  c']);
    expect(columnWidths([['😀', 'ab'], ['x']], [0, 0, 5])).toEqual([1, 2, 5]);
  });

  it('has no lines for no rows', () => {
    expect(textTable([])).toEqual([]);
  });
});
