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

export const SEQ_LENS = { '1k1k': [1024, 1024], '8k1k': [8192, 1024] } as const satisfies Record<string, [number, number]>;
export type SeqLenName = keyof typeof SEQ_LENS;
export const SEQ_LEN_NAMES = Object.keys(SEQ_LENS) as SeqLenName[];

/** `1k1k` / `8k1k` for the named shapes, `<isl>_<osl>` otherwise (used in exp-name). */
export function seqLenName(isl: number, osl: number): string {
  for (const name of SEQ_LEN_NAMES) {
    const [i, o] = SEQ_LENS[name];
    if (i === isl && o === osl) return name;
  }
  return `${isl}_${osl}`;
}
