/**
 * Statistics exactly as the reference computes them with numpy, to the last bit: sums by numpy's
 * pairwise summation, mean, population std (ddof 0), and percentiles by numpy's default linear
 * interpolation (index `(n − 1) · (p / 100)`, numpy's `_lerp`). An empty sample gives 0, as the
 * reference's `np.mean(x or 0)` does.
 */

/** numpy's pairwise summation (`pairwise_sum` in numpy/_core/src/umath/loops_utils.h.src). */
function pairwiseSum(xs: readonly number[], start: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += xs[start + i]!;
    return res;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => xs[start + k]!);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let k = 0; k < 8; k++) r[k]! += xs[start + i + k]!;
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) res += xs[start + i]!;
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(xs, start, n2) + pairwiseSum(xs, start + n2, n - n2);
}

export function sum(xs: readonly number[]): number {
  return pairwiseSum(xs, 0, xs.length);
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : sum(xs) / xs.length;
}

export function std(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const m = mean(xs);
  return Math.sqrt(sum(xs.map((x) => (x - m) * (x - m))) / xs.length);
}

/** Percentile `p` (0–100) of an ascending-sorted sample. */
export function percentileSorted(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const k = (n - 1) * (p / 100);
  const lo = Math.floor(k);
  const hi = Math.min(lo + 1, n - 1);
  const t = k - lo;
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

export function percentile(xs: readonly number[], p: number): number {
  return percentileSorted(Float64Array.from(xs).sort() as unknown as number[], p);
}

export { median } from '../util/median.js';
