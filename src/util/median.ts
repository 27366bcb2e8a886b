/** Medians: numpy's (np.median), and of weighted samples. */

/** np.median: the middle value, or the mean of the middle two; 0 for none. */
export function median(xs: readonly number[]): number {
  const n = xs.length;
  if (n === 0) return 0;
  const sorted = Float64Array.from(xs).sort();
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The smallest value with more than half the weight at or below it (np.median's upper middle for equal weights); 0 for none. */
export function weightedMedian(samples: readonly { value: number; weight: number }[]): number {
  const sorted = [...samples].sort((a, b) => a.value - b.value);
  const half = sorted.reduce((s, x) => s + x.weight, 0) / 2;
  let seen = 0;
  for (const x of sorted) {
    seen += x.weight;
    if (seen > half) return x.value;
  }
  return sorted.at(-1)?.value ?? 0;
}
