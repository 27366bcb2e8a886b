import { describe, expect, it } from 'vitest';
import {
  benjaminiHochberg,
  mean,
  meanInterval,
  sampleStd,
  studentCdf,
  studentQuantile,
  twoSidedP,
  welchDf,
} from '../../src/util/stats.js';

// Reference values: Student's t tables (scipy.stats.t.ppf / t.cdf).
describe('Student t', () => {
  it('gives the tabulated 97.5% quantiles', () => {
    expect(studentQuantile(0.975, 1)).toBeCloseTo(12.7062047, 5);
    expect(studentQuantile(0.975, 2)).toBeCloseTo(4.30265273, 6);
    expect(studentQuantile(0.975, 4)).toBeCloseTo(2.77644511, 6);
    expect(studentQuantile(0.975, 30)).toBeCloseTo(2.04227246, 6);
    expect(studentQuantile(0.975, Infinity)).toBeCloseTo(1.95996398, 5);
    expect(studentQuantile(0.025, 4)).toBeCloseTo(-2.77644511, 6);
  });
  it('gives the CDF and two-sided p-values', () => {
    expect(studentCdf(1, 3)).toBeCloseTo(0.80449889, 7);
    expect(studentCdf(-2, 10)).toBeCloseTo(0.03669402, 7);
    expect(studentCdf(0, 5)).toBeCloseTo(0.5, 12);
    expect(twoSidedP(2.77644511, 4)).toBeCloseTo(0.05, 6);
    expect(twoSidedP(0, 4)).toBe(1);
  });
  it('refuses a quantile outside (0, 1)', () => {
    expect(() => studentQuantile(1, 3)).toThrow(/0 < p < 1/);
  });
});

describe('samples', () => {
  it('mean, sample standard deviation and the interval of the mean', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(sampleStd([1, 2, 3, 4])).toBeCloseTo(1.29099445, 7);
    expect(sampleStd([5])).toBeNull();
    const [lo, hi] = meanInterval([1, 2, 3, 4])!;
    // 2.5 ± t(0.975, 3) · s / 2 = 2.5 ± 3.18244631 · 0.645497
    expect(lo).toBeCloseTo(0.44573974, 6);
    expect(hi).toBeCloseTo(4.55426026, 6);
    expect(meanInterval([7])).toBeNull();
  });
  it('Welch–Satterthwaite degrees of freedom', () => {
    expect(welchDf(1, 3, 1, 3)).toBeCloseTo(4, 10);
    expect(welchDf(1, 3, 0, 3)).toBeCloseTo(2, 10);
    expect(welchDf(0, 3, 0, 3)).toBe(Infinity);
  });
});

describe('Benjamini–Hochberg', () => {
  it('adjusts p-values in the input order', () => {
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005]);
    expect(q[0]).toBeCloseTo(0.02, 12);
    expect(q[1]).toBeCloseTo(0.04, 12);
    expect(q[2]).toBeCloseTo(0.04, 12);
    expect(q[3]).toBeCloseTo(0.02, 12);
  });
  it('never exceeds 1 and keeps a lone p', () => {
    expect(benjaminiHochberg([0.9, 0.95])).toEqual([0.95, 0.95]);
    expect(benjaminiHochberg([0.2])).toEqual([0.2]);
  });
});
