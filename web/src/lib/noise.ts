/**
 * What the inference chart says about noise: which points are "tied within noise". A point is
 * beaten when another point is at least as good on both axes and better on one (the Pareto sense
 * the frontier uses). It is tied within noise when it is beaten, but only by points whose 95%
 * interval on the frontier metric (the y axis) overlaps its own: if any point beats it with room
 * to spare, it is plainly beaten. Overlap needs an interval on at least one side (a point measured
 * more than once): two single samples are never tied. Pure, so the chart and the tests agree.
 */
import type { Goal } from '../../../src/contract/index.js';
import type { Interval } from './metrics.js';

export interface NoisePoint {
  x: number;
  y: number;
  /** The y (frontier metric) 95% interval; undefined for a point measured once. */
  yInterval: Interval | undefined;
}

/** Whether `q` beats `p`: at least as good on both axes, better on one. */
export function beats(q: NoisePoint, p: NoisePoint, goals: { x: Goal; y: Goal }): boolean {
  const better = (a: number, b: number, goal: Goal) => (goal === 'max' ? a > b : a < b);
  const asGood = (a: number, b: number, goal: Goal) => a === b || better(a, b, goal);
  return asGood(q.x, p.x, goals.x) && asGood(q.y, p.y, goals.y) && (better(q.x, p.x, goals.x) || better(q.y, p.y, goals.y));
}

/** Whether the two points' y intervals overlap (a point measured once is its value); false when neither has one. */
export function overlaps(a: NoisePoint, b: NoisePoint): boolean {
  if (!a.yInterval && !b.yInterval) return false;
  const [alo, ahi] = a.yInterval ?? [a.y, a.y];
  const [blo, bhi] = b.yInterval ?? [b.y, b.y];
  return alo <= bhi && blo <= ahi;
}

/**
 * For each of `candidates` (indices into `points`), the points that beat it when every one of them
 * does so only within noise; undefined when nothing beats it or something beats it plainly.
 */
export function tiesWithinNoise(
  points: readonly NoisePoint[],
  candidates: readonly number[],
  goals: { x: Goal; y: Goal },
): Map<number, number[]> {
  const out = new Map<number, number[]>();
  // Without an interval anywhere nothing can be tied: skip the quadratic pass.
  if (!points.some((p) => p.yInterval)) return out;
  for (const i of candidates) {
    const p = points[i]!;
    const by: number[] = [];
    let plainly = false;
    for (let j = 0; j < points.length && !plainly; j++) {
      if (j === i || !beats(points[j]!, p, goals)) continue;
      if (overlaps(points[j]!, p)) by.push(j);
      else plainly = true;
    }
    if (!plainly && by.length > 0) out.set(i, by);
  }
  return out;
}
