/**
 * Python's `csv.DictReader(f, skipinitialspace=True)` over a file opened with `newline=""`, as the
 * reference power scripts read telemetry: the excel dialect (`,` delimiter, `"` quotes, doubled
 * quotes inside quoted fields, non-strict), lines ending in `\n`, `\r` or `\r\n`, a quoted field
 * running to the end of the file kept, blank records skipped, short rows padded with `None`, and
 * the 131072-character field limit (an error, as Python's `csv.Error`).
 */

/** `csv.Error`: the reference turns it into `telemetry_file_unreadable`. */
export class CsvError extends Error {}

/** Python's `str.strip()` whitespace (JavaScript's `trim` also strips U+FEFF and misses U+001C-U+001F, U+0085). */
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'gu');

/** Python's `str.strip()`. */
export const pyStrip = (s: string): string => s.replace(STRIP, '');

/** Python's `csv` field size limit (`csv.field_size_limit()`): a longer field is an error, as there. */
export const CSV_FIELD_SIZE_LIMIT = 131072;

/** Lines as Python's text layer yields them with `newline=""`: each keeps its `\n`, `\r` or `\r\n`. */
function lines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

type State = 'startRecord' | 'startField' | 'inField' | 'inQuoted' | 'quoteInQuoted' | 'eatCrlf';
const EOL = '';

/** The records of `csv.reader(lines, skipinitialspace=True)`. */
export const csvRecords = (text: string): string[][] => [...csvReader(text, { skipInitialSpace: true })];

/**
 * `csv.reader(lines)` (excel dialect, the file opened with `newline=""`), record by record as
 * Python yields them: a field over the size limit raises where it is met, after the records before it.
 */
export function* csvReader(text: string, options: { skipInitialSpace: boolean }): Generator<string[]> {
  let fields: string[] = [];
  let field = '';
  let fieldLen = 0;
  let state: State = 'startRecord';
  const add = (c: string): void => {
    if (fieldLen >= CSV_FIELD_SIZE_LIMIT) throw new CsvError(`field larger than field limit (${CSV_FIELD_SIZE_LIMIT})`);
    field += c;
    fieldLen++;
  };
  const save = (): void => {
    fields.push(field);
    field = '';
    fieldLen = 0;
  };
  const process = (c: string): void => {
    switch (state) {
      case 'startRecord':
        if (c === EOL) return;
        if (c === '\n' || c === '\r') {
          state = 'eatCrlf';
          return;
        }
        state = 'startField';
        process(c);
        return;
      case 'startField':
        if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'startRecord' : 'eatCrlf';
        } else if (c === '"') state = 'inQuoted';
        else if (c === ' ' && options.skipInitialSpace) {
          // skipinitialspace
        } else if (c === ',') save();
        else {
          add(c);
          state = 'inField';
        }
        return;
      case 'inField':
        if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'startRecord' : 'eatCrlf';
        } else if (c === ',') {
          save();
          state = 'startField';
        } else add(c);
        return;
      case 'inQuoted':
        if (c === EOL) return;
        if (c === '"') state = 'quoteInQuoted';
        else add(c);
        return;
      case 'quoteInQuoted':
        if (c === '"') {
          add(c);
          state = 'inQuoted';
        } else if (c === ',') {
          save();
          state = 'startField';
        } else if (c === '\n' || c === '\r' || c === EOL) {
          save();
          state = c === EOL ? 'startRecord' : 'eatCrlf';
        } else {
          add(c);
          state = 'inField';
        }
        return;
      case 'eatCrlf':
        if (c === '\n' || c === '\r') return;
        if (c === EOL) {
          state = 'startRecord';
          return;
        }
        throw new CsvError("new-line character seen in unquoted field - do you need to open the file with newline=''?");
    }
  };
  const all = lines(text);
  let i = 0;
  for (;;) {
    fields = [];
    field = '';
    fieldLen = 0;
    state = 'startRecord';
    let ended = false;
    do {
      const line = all[i++];
      if (line === undefined) {
        ended = true;
        break;
      }
      for (const c of line) process(c);
      process(EOL);
    } while (state !== 'startRecord');
    if (ended) {
      // End of input: a record cut off inside a quoted field (or mid-field) is kept (non-strict).
      if (fieldLen !== 0 || (state as State) === 'inQuoted') {
        save();
        yield fields;
      }
      return;
    }
    yield fields;
  }
}

/** One DictReader row: the header's names (stripped) to cells; `null` where the row is short (restval). */
export type CsvRow = Map<string, string | null>;

/**
 * `csv.DictReader(f, skipinitialspace=True)` with `reader.fieldnames` replaced by the stripped
 * header, as the reference does: the header and the rows.
 */
export function dictReader(text: string): { header: string[]; rows: CsvRow[] } {
  const records = csvRecords(text);
  if (records.length === 0) return { header: [], rows: [] };
  const header = records[0]!.map(pyStrip);
  const rows: CsvRow[] = [];
  for (const record of records.slice(1)) {
    if (record.length === 0) continue;
    const row: CsvRow = new Map();
    header.forEach((name, k) => row.set(name, k < record.length ? record[k]! : null));
    rows.push(row);
  }
  return { header, rows };
}

/** `(row.get(col) or "").strip()`. */
export const cell = (row: CsvRow, col: string): string => pyStrip(row.get(col) ?? '');
