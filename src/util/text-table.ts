/**
 * Plain-text tables: every column as wide as its widest cell (or its least width), cells padded
 * with spaces on the right or, for a right-aligned column, on the left. A cell's width is its
 * number of code points, so a character outside the BMP counts once.
 */

export type Align = 'left' | 'right';

export interface TableOptions {
  /** Each column's alignment; a column not named is left-aligned. */
  align?: readonly Align[];
  /** Each column's least width. */
  minWidths?: readonly number[];
  /** What separates two cells (default two spaces). */
  gap?: string;
  /** Drop the spaces that end each line (default true), so a left-aligned last column is not padded. */
  trimEnd?: boolean;
}

const cellWidth = (cell: string): number => {
  let n = 0;
  for (const _ of cell) n++;
  return n;
};

/** The width of each column: its widest cell, at least its `minWidths` entry. */
export function columnWidths(rows: readonly (readonly string[])[], minWidths: readonly number[] = []): number[] {
  const widths = [...minWidths];
  for (const row of rows)
    row.forEach((cell, c) => {
      widths[c] = Math.max(widths[c] ?? 0, cellWidth(cell));
    });
  return widths;
}

/** The rows laid out in columns, one line each (header rows are rows like the others). */
export function textTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const widths = columnWidths(rows, options.minWidths);
  const gap = options.gap ?? '  ';
  return rows.map((row) => {
    const line = row
      .map((cell, c) => {
        const fill = ' '.repeat(widths[c]! - cellWidth(cell));
        return options.align?.[c] === 'right' ? fill + cell : cell + fill;
      })
      .join(gap);
    return options.trimEnd === false ? line : line.trimEnd();
  });
}
