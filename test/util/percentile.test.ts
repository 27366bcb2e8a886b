import { describe, expect, it } from 'vitest';
import { percentile, percentileSorted } from '../../src/util/percentile.js';

describe('percentile (numpy.percentile, linear)', () => {
  it('interpolates between the closest ranks as numpy does, to the last bit', () => {
    // numpy.percentile([1, 2, 3, 4], [0, 50, 90, 99, 100]) → 1.0, 2.5, 3.7, 3.9699999999999998, 4.0
    expect([0, 50, 90, 99, 100].map((p) => percentile([4, 1, 3, 2], p))).toEqual([1, 2.5, 3.7, 3.9699999999999998, 4]);
    // numpy's _lerp steps back from the upper neighbour for a fraction ≥ 0.5: numpy.percentile([0.1, 0.7], 70) → 0.5199999999999999
    expect(percentile([0.1, 0.7], 70)).toBe(0.5199999999999999);
    expect(percentile([7], 99)).toBe(7);
  });

  it("computes the step as the agentic aggregation's Python percentile does when asked", () => {
    // aggregation_common.percentile([0.1, 0.7], 70): 0.1 + 0.7 * (0.7 - 0.1) → 0.52; numpy's _lerp gives 0.5199999999999999
    expect(percentile([0.1, 0.7], 70, { lerp: 'python' })).toBe(0.52);
    expect(percentile([0.1, 0.7], 70)).toBe(0.5199999999999999);
    expect([0, 50, 90, 100].map((p) => percentile([4, 1, 3, 2], p, { lerp: 'python' }))).toEqual([1, 2.5, 3.7, 4]);
  });

  it('gives 0 for an empty sample', () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([], 50, { lerp: 'python' })).toBe(0);
    expect(percentileSorted([], 99)).toBe(0);
  });

  it('sorts a copy, leaving the values as they were', () => {
    const values = [3, 1, 2];
    expect(percentile(values, 50)).toBe(2);
    expect(values).toEqual([3, 1, 2]);
  });
});
