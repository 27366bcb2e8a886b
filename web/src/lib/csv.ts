/** CSV (RFC 4180): a header row, then one row per record; fields quoted when they must be. */
export interface CsvColumn<T> {
  /** The header, with the unit: "Median TTFT (s)". */
  header: string;
  value: (row: T) => string | number | boolean | undefined | null;
}

/**
 * A text that a spreadsheet would read as a formula (`=HYPERLINK(…)`, `+cmd|…`, `@SUM(…)`): stored
 * strings come from result files a pull request can write, so such a text gets a leading `'`, which
 * spreadsheets show as text. Numbers are left alone (a negative number is not a formula).
 */
const FORMULA = /^[=+\-@\t\r]/;

const field = (v: string | number | boolean | undefined | null): string => {
  const s = v === undefined || v === null ? '' : typeof v === 'string' && FORMULA.test(v) ? `'${v}` : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv<T>(columns: readonly CsvColumn<T>[], rows: readonly T[]): string {
  return (
    [columns.map((c) => field(c.header)), ...rows.map((r) => columns.map((c) => field(c.value(r))))]
      .map((l) => l.join(','))
      .join('\r\n') + '\r\n'
  );
}
