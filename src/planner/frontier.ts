/**
 * The Pareto frontier of benchmark points: throughput per GPU (y) against interactivity (x),
 * both maximised. A point is on the frontier when no other point is at least as good on both
 * axes and better on one.
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
  // Highest interactivity first (ties: highest throughput first); a point joins when it beats
  // the best throughput seen so far.
  const sorted = [...points].sort((a, b) => b.x - a.x || b.y - a.y);
  const frontier: T[] = [];
  let bestY = -Infinity;
  for (const p of sorted) {
    if (p.y > bestY) {
      frontier.push(p);
      bestY = p.y;
    }
  }
  return frontier.reverse();
}
