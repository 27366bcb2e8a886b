/** Line numbers of offsets in a text. */
export class Lines {
  private readonly starts = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** The 1-based line of an offset. */
  of(offset: number): number {
    let [lo, hi] = [0, this.starts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
