import { findHardware } from '../catalog.js';
import type { EfficiencyProfile } from '../profile.js';
import { engineFamily } from '../profile.js';
import { simulateClosedLoop } from '../simulate.js';
import { buildTopology } from '../topology.js';
import type { Efficiency } from '../perf.js';
import type { MeasuredPoint } from './points.js';
import { median } from '../../util/median.js';
import { deploymentOf, kindOf } from './points.js';

/**
 * Requests per concurrency the calibration simulates, standing for InferenceX's 10 (the first
 * wave weighted as in 10; simulate.ts): the medians within a few percent, 2.5× faster.
 */
export const REQUESTS_PER_CONC = 4;
export const INFERENCEX_REQUESTS_PER_CONC = 10;

export interface Prediction {
  tputPerGpu: number;
  interactivity: number;
  ttftS: number;
}

export const METRICS = ['tputPerGpu', 'interactivity', 'ttft'] as const;
export type Metric = (typeof METRICS)[number];

/** The simulator's figures for a measured point's deployment and load. */
export function predict(p: MeasuredPoint, profile: EfficiencyProfile, efficiency?: Partial<Efficiency>): Prediction {
  const topology = buildTopology({ ...deploymentOf(p), profile, efficiency });
  const run = simulateClosedLoop(topology, {
    concurrency: p.conc,
    requests: p.conc * REQUESTS_PER_CONC,
    isl: p.isl,
    osl: p.osl,
    rangeRatio: p.rangeRatio,
    standsFor: p.conc * INFERENCEX_REQUESTS_PER_CONC,
  });
  return { tputPerGpu: run.totalThroughputPerGpu, interactivity: run.interactivity, ttftS: run.medianTtftMs / 1e3 };
}

/** predicted / measured per metric. */
export function ratios(p: MeasuredPoint, predicted: Prediction): Record<Metric, number> {
  return {
    tputPerGpu: predicted.tputPerGpu / p.measured.tputPerGpu,
    interactivity: predicted.interactivity / p.measured.interactivity,
    ttft: predicted.ttftS / p.measured.ttftS,
  };
}

/** |predicted / measured − 1|. */
export const errorOf = (ratio: number): number => Math.abs(ratio - 1);

export interface PointError {
  point: MeasuredPoint;
  predicted: Prediction;
  ratio: Record<Metric, number>;
}

export interface SliceError {
  /** `hardware=h200`, `engine=sglang`, `model=deepseek-r1`, `kind=disaggregated`. */
  slice: string;
  points: number;
  /** Median |ratio − 1| per metric. */
  median: Record<Metric, number>;
}

export interface AccuracyReport {
  points: PointError[];
  overall: Record<Metric, number>;
  slices: SliceError[];
}

const medianErrors = (errors: readonly PointError[]): Record<Metric, number> => ({
  tputPerGpu: median(errors.map((e) => errorOf(e.ratio.tputPerGpu))),
  interactivity: median(errors.map((e) => errorOf(e.ratio.interactivity))),
  ttft: median(errors.map((e) => errorOf(e.ratio.ttft))),
});

/** The dimensions errors are reported by. */
const SLICE_KEYS: [string, (p: MeasuredPoint) => string][] = [
  ['hardware', (p) => findHardware(p.hardware).id],
  ['engine', (p) => engineFamily(p.engine)],
  ['model', (p) => p.model],
  ['kind', kindOf],
];

/** Predict every point and summarise the errors, overall and per slice. */
export function accuracy(points: readonly MeasuredPoint[], profile: EfficiencyProfile): AccuracyReport {
  return summarise(
    points.map((point) => {
      const predicted = predict(point, profile);
      return { point, predicted, ratio: ratios(point, predicted) };
    }),
  );
}

export function summarise(errors: PointError[]): AccuracyReport {
  const slices: SliceError[] = [];
  for (const [name, keyOf] of SLICE_KEYS) {
    const groups = new Map<string, PointError[]>();
    for (const e of errors) {
      const k = keyOf(e.point);
      const group = groups.get(k);
      if (group) group.push(e);
      else groups.set(k, [e]);
    }
    for (const [k, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      slices.push({ slice: `${name}=${k}`, points: group.length, median: medianErrors(group) });
    }
  }
  return { points: errors, overall: medianErrors(errors), slices };
}

/** The worst slice's median error on throughput per GPU (what the target bounds). */
export function worstSlice(report: AccuracyReport, metric: Metric = 'tputPerGpu'): SliceError | undefined {
  return [...report.slices].sort((a, b) => b.median[metric] - a.median[metric])[0];
}
