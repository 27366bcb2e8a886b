/**
 * The reference's telemetry cell parsers (`_parse_timestamp`, `_parse_power` in
 * `utils/aggregate_power.py`) and the part of Python 3.11's `datetime.strptime` /
 * `datetime.fromisoformat` / `datetime.timestamp()` they rely on.
 *
 * Naive timestamps (nvidia-smi's `YYYY/MM/DD HH:MM:SS.fff`, ISO without an offset) are local
 * time, as in Python: Node's local time is the process's `TZ`. A caller may pass a fixed UTC
 * offset instead (Frontier's `<csv stem>_timezone_offset.txt`).
 */
import { pyFloat } from '../../pycompat/index.js';

/** Seconds east of UTC at which naive timestamps are read; undefined: the process's local time. */
export type NaiveOffset = number | undefined;

/** `-?\d+(?:\.\d+)?` with Python's Unicode `\d`. */
const NUMBER_FULL = /^-?\p{Nd}+(?:\.\p{Nd}+)?$/u;
const NUMBER_SEARCH = /-?\p{Nd}+(?:\.\p{Nd}+)?/u;

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micro: number;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number): number => (m === 2 && isLeap(y) ? 29 : DAYS[m - 1]!);

/** `datetime(...)`'s range checks. */
function valid(c: Civil): boolean {
  return (
    c.year >= 1 &&
    c.year <= 9999 &&
    c.month >= 1 &&
    c.month <= 12 &&
    c.day >= 1 &&
    c.day <= daysIn(c.year, c.month) &&
    c.hour <= 23 &&
    c.minute <= 59 &&
    c.second <= 59
  );
}

/** Whole seconds of the civil time read as UTC. */
function utcSeconds(c: Civil): number {
  const d = new Date(0);
  d.setUTCFullYear(c.year, c.month - 1, c.day);
  d.setUTCHours(c.hour, c.minute, c.second, 0);
  return d.getTime() / 1000;
}

/** Whole seconds of the civil time read as local time (an ambiguous hour: the earlier, as Python's fold=0). */
function localSeconds(c: Civil): number {
  const d = new Date(0);
  d.setFullYear(c.year, c.month - 1, c.day);
  d.setHours(c.hour, c.minute, c.second, 0);
  return d.getTime() / 1000;
}

/** A naive datetime's `.timestamp()`: whole local seconds plus `microsecond / 1e6`. */
function naiveTimestamp(c: Civil, offset: NaiveOffset): number {
  const seconds = offset === undefined ? localSeconds(c) : utcSeconds(c) - offset;
  return seconds + c.micro / 1e6;
}

/** An aware datetime's `.timestamp()`: exact microseconds since the epoch, divided once. */
function awareTimestamp(c: Civil, offsetMicros: number): number {
  return (utcSeconds(c) * 1e6 + c.micro - offsetMicros) / 1e6;
}

/** Python's `int()` of `\d` digits (any Unicode decimal digits). */
const digits = (s: string): number => pyFloat(s, 'digits');

/**
 * `datetime.strptime(value, "%Y/%m/%d %H:%M:%S.%f")` (`withFraction`) or without `.%f`: the
 * format's space matches any run of whitespace; fields take Python's `_strptime` patterns.
 */
function strptimeNvidia(value: string, withFraction: boolean): Civil | undefined {
  const d = '\\p{Nd}';
  const re = new RegExp(
    `^(${d}${d}${d}${d})/(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]${d}|0[1-9]|[1-9]| [1-9])\\s+` +
      `(2[0-3]|[0-1]${d}|${d}):([0-5]${d}|${d}):(6[0-1]|[0-5]${d}|${d})` +
      (withFraction ? `\\.([0-9]{1,6})` : '') +
      '$',
    'u',
  );
  const m = re.exec(value);
  if (!m) return undefined;
  const c: Civil = {
    year: digits(m[1]!),
    month: digits(m[2]!),
    day: digits(m[3]!.trim()),
    hour: digits(m[4]!),
    minute: digits(m[5]!),
    second: digits(m[6]!),
    micro: withFraction ? Number(m[7]!.padEnd(6, '0')) : 0,
  };
  // A leap second (60, 61) matches the pattern, but datetime() rejects it, as it does 31 February.
  return valid(c) ? c : undefined;
}

/** A parsed ISO 8601 string: civil time and, when aware, its UTC offset in microseconds. */
export interface IsoDateTime {
  civil: Civil;
  offsetMicros?: number;
}

const ISO_TIME_EXT = /^(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?$/;
const ISO_TIME_BASIC = /^(\d{2})(?:(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?$/;

function isoTime(s: string): [number, number, number, number] | undefined {
  const m = (s.includes(':') ? ISO_TIME_EXT : ISO_TIME_BASIC).exec(s);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ? Number(m[4].slice(0, 6).padEnd(6, '0')) : 0];
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** `_find_isoformat_datetime_separator`: where the date part ends (7, 8 or 10), by its form. */
function dateLength(c: readonly string[]): number {
  if (c.length === 7) return 7;
  if (c[4] === '-') {
    if (c[5] !== 'W') return 10;
    if (c.length < 8) return -1;
    if (c.length > 8 && c[8] === '-') {
      if (c.length === 9) return -1;
      return c.length > 10 && isDigit(c[10]) ? 8 : 10;
    }
    return 8;
  }
  if (c[4] === 'W') {
    let idx = 7;
    while (idx < c.length && isDigit(c[idx])) idx++;
    if (idx < 9) return idx;
    return idx % 2 === 0 ? 7 : 8;
  }
  return 8;
}

/** Days since the epoch of a proleptic Gregorian date (any year 1..9999). */
function epochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / 86_400_000);
}

/** `iso_to_ymd`: an ISO week date as a calendar date; undefined when the week or day is out of range. */
function isoWeekDate(year: number, week: number, weekday: number): [number, number, number] | undefined {
  if (week <= 0 || week >= 53) {
    const jan1 = (((epochDay(year, 1, 1) + 3) % 7) + 7) % 7; // Monday = 0 (1970-01-01 was a Thursday)
    const isLeapYear = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    if (!(week === 53 && (jan1 === 3 || (jan1 === 2 && isLeapYear)))) return undefined;
  }
  if (weekday <= 0 || weekday >= 8) return undefined;
  const jan4 = epochDay(year, 1, 4);
  const monday = jan4 - ((((jan4 + 3) % 7) + 7) % 7);
  const d = new Date((monday + (week - 1) * 7 + weekday - 1) * 86_400_000);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

/** `parse_isoformat_date` over the date part: `YYYY-MM-DD`, `YYYYMMDD`, `YYYY-Www[-D]`, `YYYYWww[D]`. */
function isoDate(c: readonly string[]): [number, number, number] | undefined {
  const text = c.join('');
  const calendar = /^(\d{4})(-?)(\d{2})\2(\d{2})$/.exec(text);
  if (calendar) return [Number(calendar[1]), Number(calendar[3]), Number(calendar[4])];
  const week = /^(\d{4})(-?)W(\d{2})(?:\2(\d))?$/.exec(text);
  if (week) return isoWeekDate(Number(week[1]), Number(week[3]), week[4] === undefined ? 1 : Number(week[4]));
  return undefined;
}

/**
 * Python 3.11's `datetime.fromisoformat`: a date (`YYYY-MM-DD`, `YYYYMMDD`, or an ISO week date),
 * then any one separator character and `HH[:MM[:SS[.f…]]]` (or the basic `HHMMSS`), fractions
 * with `.` or `,` (beyond six digits truncated), and an offset `Z` or `±HH[:MM[:SS[.f…]]]`.
 */
export function fromIsoFormat(value: string): IsoDateTime | undefined {
  const chars = Array.from(value);
  const dateLen = dateLength(chars);
  if (dateLen < 0 || chars.length < dateLen) return undefined;
  const ymd = isoDate(chars.slice(0, dateLen));
  if (!ymd) return undefined;
  const civil: Civil = { year: ymd[0], month: ymd[1], day: ymd[2], hour: 0, minute: 0, second: 0, micro: 0 };
  let offsetMicros: number | undefined;
  if (chars.length > dateLen) {
    const rest = chars.slice(dateLen + 1).join('');
    if (rest === '') return undefined;
    const tzAt = rest.search(/[Z+-]/);
    const timePart = tzAt < 0 ? rest : rest.slice(0, tzAt);
    // Python 3.11 quirk: before an offset, one stray character may follow a complete two-digit
    // field ("12:34:56 +00:00", "12 +01").
    const time = isoTime(timePart) ?? (tzAt >= 0 && !/[.,]/.test(timePart) ? isoTime(timePart.slice(0, -1)) : undefined);
    if (!time) return undefined;
    [civil.hour, civil.minute, civil.second, civil.micro] = time;
    if (tzAt >= 0) {
      const tz = rest.slice(tzAt);
      if (tz === 'Z') offsetMicros = 0;
      else {
        const t = /^[+-](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?$/.exec(tz);
        if (!t) return undefined;
        const [h, mi, s, us] = [
          Number(t[1]),
          Number(t[2] ?? 0),
          Number(t[3] ?? 0),
          t[4] ? Number(t[4].slice(0, 6).padEnd(6, '0')) : 0,
        ];
        if (h > 23 || mi > 59 || s > 59) return undefined;
        offsetMicros = (tz[0] === '-' ? -1 : 1) * (((h * 60 + mi) * 60 + s) * 1e6 + us);
      }
    }
  }
  if (!valid(civil)) return undefined;
  return offsetMicros === undefined ? { civil } : { civil, offsetMicros };
}

/** `.timestamp()` of an ISO datetime: aware ones exactly, naive ones at `naive` (local time by default). */
export function isoTimestamp(dt: IsoDateTime, naive: NaiveOffset): number {
  return dt.offsetMicros === undefined ? naiveTimestamp(dt.civil, naive) : awareTimestamp(dt.civil, dt.offsetMicros);
}

/** An aware timestamp of a naive ISO datetime at a fixed offset (`dt.replace(tzinfo=tz).timestamp()`). */
export function isoTimestampAt(dt: IsoDateTime, offsetMicros: number): number {
  return awareTimestamp(dt.civil, dt.offsetMicros ?? offsetMicros);
}

/**
 * `_parse_timestamp`: epoch seconds (milliseconds above 1e12), nvidia-smi's
 * `YYYY/MM/DD HH:MM:SS[.ffffff]`, or ISO 8601 (a space separator allowed); undefined when none fits.
 * `value` is already stripped.
 */
export function parseTimestamp(value: string, naive: NaiveOffset = undefined): number | undefined {
  if (value === '') return undefined;
  if (NUMBER_FULL.test(value)) {
    const n = pyFloat(value, 'timestamp');
    return n > 1e12 ? n / 1000 : n;
  }
  for (const withFraction of [true, false]) {
    const c = strptimeNvidia(value, withFraction);
    if (c) return naiveTimestamp(c, naive);
  }
  const iso = value.includes(' ') && !value.includes('T') ? value.replace(' ', 'T') : value;
  const dt = fromIsoFormat(iso);
  return dt ? isoTimestamp(dt, naive) : undefined;
}

/** `_parse_power`: the first number in the cell (`412.34 W`); undefined for empty or `[N/A]`. */
export function parsePower(value: string): number | undefined {
  if (value === '' || ['[n/a]', 'n/a', 'na'].includes(value.toLowerCase())) return undefined;
  const m = NUMBER_SEARCH.exec(value);
  return m ? pyFloat(m[0], 'power') : undefined;
}

/**
 * A UTC offset as `date +%z` writes it (`+0000`, `-05:00`): seconds east of UTC, or undefined
 * when the text is not one (the agentic adapter's `_UTC_OFFSET_RE`, hours ≤ 23, minutes ≤ 59).
 */
export function parseUtcOffset(text: string): number | undefined {
  const m = /^([+-])(\p{Nd}{2}):?(\p{Nd}{2})$/u.exec(text);
  if (!m) return undefined;
  const hours = digits(m[2]!);
  const minutes = digits(m[3]!);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '+' ? 1 : -1) * (hours * 3600 + minutes * 60);
}
