/** The named sequence-length shapes of the matrix (exp-name uses them). */
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
