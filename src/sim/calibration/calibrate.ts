import type { EfficiencyProfile } from '../profile.js';
import { accuracy } from './accuracy.js';
import type { AccuracyReport } from './accuracy.js';
import { crossValidate, fitProfile } from './fit.js';
import type { Dimension } from './fit.js';
import type { MeasuredPoint } from './points.js';

export interface CalibrateOptions {
  /** The levels fitted, general first. */
  levels: Dimension[][];
  /** Share of the points each cross-validation fold holds out (0: no cross-validation). */
  holdout: number;
  /** Where the points came from, recorded in the profile (default: the shipped calibration set). */
  from?: string | undefined;
  progress?: ((message: string) => void) | undefined;
}

/**
 * `frontier sim calibrate`: the profile fitted to `points` from `base`, its error on them, and
 * (with a holdout) each point's error as predicted by a fit that did not see it.
 */
export function calibrate(
  points: readonly MeasuredPoint[],
  base: EfficiencyProfile,
  o: CalibrateOptions,
): { profile: EfficiencyProfile; fit: AccuracyReport; heldOut?: AccuracyReport } {
  const { levels, progress } = o;
  const heldOut = o.holdout > 0 ? crossValidate(points, base, levels, Math.round(1 / o.holdout), progress) : undefined;
  const fitted = fitProfile(points, base, { levels, progress });
  const profile: EfficiencyProfile = {
    ...fitted,
    description: `Efficiency profile fitted by \`frontier sim calibrate\` from ${points.length} measured points (${o.from ?? 'the shipped calibration set'})`,
    fitted: { from: o.from ?? 'published-points', levels: levels.map((l) => l.join(',')), points: points.length },
  };
  return { profile, fit: accuracy(points, profile), ...(heldOut ? { heldOut } : {}) };
}
