import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mean, median, std, sum } from '../../src/bench/index.js';
import { percentile } from '../../src/util/percentile.js';
import { REPO } from '../helpers.js';

interface Case {
  values: number[];
  mean: number;
  std: number;
  median: number;
  percentiles: Record<string, number>;
}

/** np.mean/std/median/percentile over seeded samples (scripts/numpy-stats-golden.py, numpy 2.4). */
const golden = JSON.parse(gunzipSync(readFileSync(join(REPO, 'test/fixtures/bench/numpy-stats.json.gz'))).toString('utf8')) as {
  cases: Case[];
};

describe('statistics as numpy computes them', () => {
  it('matches hand-computed values', () => {
    const xs = [4, 1, 3, 2];
    expect(mean(xs)).toBe(2.5);
    expect(median(xs)).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(std(xs)).toBeCloseTo(Math.sqrt(1.25), 15); // population std
    expect(percentile(xs, 50)).toBe(2.5);
    expect(percentile(xs, 90)).toBeCloseTo(3.7, 12); // k = 3 × 0.9 = 2.7: 3 + 0.7 × (4 − 3)
    expect(percentile(xs, 99)).toBeCloseTo(3.97, 12);
    expect(percentile(xs, 0)).toBe(1);
    expect(percentile(xs, 100)).toBe(4);
    expect(percentile([5], 99)).toBe(5);
  });

  it('gives 0 for an empty sample, as np.mean(x or 0) does', () => {
    expect([mean([]), std([]), median([]), percentile([], 99)]).toEqual([0, 0, 0, 0]);
  });

  it('is bit-identical to numpy on seeded samples (pairwise sums, numpy’s lerp)', () => {
    expect(golden.cases.length).toBeGreaterThan(10);
    for (const c of golden.cases) {
      expect(mean(c.values)).toBe(c.mean);
      expect(std(c.values)).toBe(c.std);
      expect(median(c.values)).toBe(c.median);
      for (const [p, v] of Object.entries(c.percentiles)) expect(percentile(c.values, Number(p))).toBe(v);
    }
  });

  it('sums pairwise, not left to right (the difference numpy makes)', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => 0.1 * (i % 7) + 1e-9 * i);
    let naive = 0;
    for (const x of xs) naive += x;
    expect(sum(xs)).not.toBe(naive);
  });
});
