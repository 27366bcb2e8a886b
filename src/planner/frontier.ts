import { paretoFront } from '../contract/index.js';

/**
 * The Pareto frontier of predicted points: throughput per GPU (y) against interactivity (x), both
 * maximised, by the contract's `paretoFront` (the one the API and the dashboard draw).
 */

export interface FrontierAxes {
  /** Interactivity: tokens/s one user sees. */
  x: number;
  /** Throughput per GPU. */
  y: number;
}

/** Whether `a` dominates `b`: at least as good on both axes, better on one. */
export const dominates = (a: FrontierAxes, b: FrontierAxes): boolean => a.x >= b.x && a.y >= b.y && (a.x > b.x || a.y > b.y);

/** The frontier's points, in order of interactivity (lowest first, so throughput falls along it). */
export function paretoFrontier<T extends FrontierAxes>(points: readonly T[]): T[] {
  const front = paretoFront(
    points.map((p) => p.x),
    points.map((p) => p.y),
    { x: 'max', y: 'max' },
  );
  return front.map((i) => points[i]!);
}
