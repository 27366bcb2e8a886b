import type { AccuracyReport } from './accuracy.js';
import { worstSlice } from './accuracy.js';

/** Targets of the shipped profile on its calibration set (docs/simulator.md). */
export const TARGETS = { tputPerGpu: 0.1, ttft: 0.2, slice: 0.25, crossValidation: 0.15 };

export interface TargetVerdict {
  target: string;
  met: boolean;
  /** The median error measured against it. */
  value: number;
}

/** The model's error against each target, the cross-validated one when `cv` is given. */
export function targetVerdicts(report: AccuracyReport, cv: AccuracyReport | undefined): TargetVerdict[] {
  const worst = worstSlice(report)!;
  const verdict = (target: string, value: number, limit: number): TargetVerdict => ({ target, met: value <= limit, value });
  return [
    verdict(`median error on throughput per GPU ≤ ${TARGETS.tputPerGpu * 100}%`, report.overall.tputPerGpu, TARGETS.tputPerGpu),
    verdict(`median error on TTFT ≤ ${TARGETS.ttft * 100}%`, report.overall.ttft, TARGETS.ttft),
    verdict(`no slice worse than ${TARGETS.slice * 100}% (worst: ${worst.slice})`, worst.median.tputPerGpu, TARGETS.slice),
    ...(cv
      ? [
          verdict(
            `cross-validated median error on throughput per GPU ≤ ${TARGETS.crossValidation * 100}%`,
            cv.overall.tputPerGpu,
            TARGETS.crossValidation,
          ),
        ]
      : []),
  ];
}
