/**
 * Statistics exactly as the reference computes them with numpy, to the last bit: sums by numpy's
 * pairwise summation, mean and population std (ddof 0); percentiles are `src/util/percentile.ts`.
 * An empty sample gives 0, as the reference's `np.mean(x or 0)` does.
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

export { median } from '../util/median.js';
