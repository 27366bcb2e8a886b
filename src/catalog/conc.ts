/**
 * Concurrency sweeps: a range multiplies by `step` from start and always ends on `end`
 * (4..100 step 2 → 4, 8, 16, 32, 64, 100); a list is used as written.
 */
export function concRange(start: number, end: number, step: number): number[] {
  const out: number[] = [];
  let conc = start;
  while (conc <= end) {
    out.push(conc);
    if (conc === end) break;
    conc *= step;
    if (conc > end) conc = end;
  }
  return out;
}

export function concValues(
  entry: { 'conc-start'?: number | undefined; 'conc-end'?: number | undefined; 'conc-list'?: number[] | undefined },
  step: number,
): number[] {
  return entry['conc-list'] ?? concRange(entry['conc-start']!, entry['conc-end']!, step);
}
