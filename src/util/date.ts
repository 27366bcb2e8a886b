const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date written YYYY-MM-DD that exists (2024-02-29 does, 2026-02-30 does not). */
export function isIsoDate(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * An epoch millisecond as a naive local ISO datetime, as Python's `datetime.fromtimestamp(t)`
 * serialises (pydantic, isoformat): `2023-11-14T14:13:21.123456`, the fraction left out when it
 * is zero. The process's time zone (TZ) decides, as Python's does.
 */
export function naiveLocalIso(epochMs: number): string {
  const totalMicros = Math.round(epochMs * 1000);
  const seconds = Math.floor(totalMicros / 1e6);
  const micros = totalMicros - seconds * 1e6;
  const d = new Date(seconds * 1000);
  const whole = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return micros === 0 ? whole : `${whole}.${pad(micros, 6)}`;
}

/** The local UTC offset at an instant as `date +%z` prints it (`+0000`, `-0500`). */
export function utcOffset(at: Date = new Date()): string {
  const minutes = 0 - at.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

/** An epoch millisecond as nvidia-smi's `timestamp` prints it: local `YYYY/MM/DD HH:MM:SS.mmm`. */
export function smiTimestamp(epochMs: number): string {
  const d = new Date(epochMs);
  return (
    `${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}
