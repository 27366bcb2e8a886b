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
