/**
 * Percentiles by linear interpolation between the closest ranks (numpy's default method): the
 * value at index (n − 1) · (p / 100) of the ascending sample, between its two neighbours a and b.
 *
 * An empty sample gives 0, as the references guard it (`np.percentile(x or [0], p)`, the agentic
 * aggregation's `if not data: return 0.0`); numpy itself has no percentile of nothing.
 */
export interface PercentileOptions {
  /**
   * How the step between the neighbours is computed, which decides the last bit of the result.
   * `numpy` (default): numpy's `_lerp`, `b − (b − a)(1 − t)` for a fraction t ≥ 0.5, else
   * `a + (b − a) t`. `python`: `a + t (b − a)` for every t, as the agentic aggregation's own
   * Python `percentile` (InferenceX aggregation_common.py) writes it; its aggregates are compared
   * byte for byte, and the two differ in the last bit (at p70 of [0.1, 0.7]: 0.52 and
   * 0.5199999999999999).
   */
  lerp?: 'numpy' | 'python';
}

/** The p-th percentile (0–100) of an ascending sample; 0 for an empty one. */
export function percentileSorted(sorted: ArrayLike<number>, p: number, { lerp = 'numpy' }: PercentileOptions = {}): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const k = (n - 1) * (p / 100);
  const lo = Math.floor(k);
  const hi = Math.min(lo + 1, n - 1);
  const t = k - lo;
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  if (lerp === 'python') return hi === lo ? a : a + t * (b - a);
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** `percentileSorted` of the values in ascending order (a sorted copy; the values are left as they are). */
export function percentile(values: readonly number[], p: number, options: PercentileOptions = {}): number {
  return percentileSorted(Float64Array.from(values).sort(), p, options);
}
