import { findHardware, findModel } from '../sim/index.js';
import type { Topology } from '../sim/index.js';
import { enumerateDeployments } from './enumerate.js';
import type { Candidate } from './enumerate.js';
import { fit, simulatePoint, usefulConcurrencies } from './evaluate.js';
import type { PredictedPoint, Workload } from './evaluate.js';
import { dominates, paretoFrontier } from './frontier.js';
import { slaViolations } from './sla.js';
import type { Sla } from './sla.js';

/**
 * The planner: every candidate deployment simulated over a concurrency ladder, the Pareto
 * frontier of throughput per GPU against interactivity over all their points, and for each
 * deployment not on it, why.
 *
 * Two passes keep it fast: a coarse one (a few rungs of the ladder, one wave of requests each) over
 * every candidate, then the whole ladder for the candidates that came near the coarse frontier.
 */

/** The workload (InferenceX's range ratio is the planner's own) and the search's bounds. */
export interface PlanRequest extends Omit<Workload, 'rangeRatio'> {
  /** Most GPUs one deployment may use (default: two nodes). */
  gpus?: number | undefined;
  /** Most workers of one role in a disaggregated deployment (default 2). */
  maxWorkers?: number | undefined;
  sla?: Sla | undefined;
  /** The concurrency ladder (default: powers of two, 1 to 1024). */
  concurrencies?: number[] | undefined;
  /** Requests per point, as a multiple of its concurrency (default 2). */
  requestsPerConc?: number | undefined;
}

/** Twice the concurrency: within about 5% of four times it on the seed case, in half the time. */
export const DEFAULT_REQUESTS_PER_CONC = 2;
export const DEFAULT_LADDER: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** InferenceX's client default `random_range_ratio`. */
export const RANGE_RATIO = 0.8;
/** A coarse point this much worse on both axes than another is taken as beaten at the finer pass too. */
export const COARSE_MARGIN = 0.05;
/** The coarse pass's rungs (with the deployment's top one) and requests: one wave of each concurrency. */
const COARSE_RUNGS = [1, 8, 64];
const COARSE_REQUESTS_PER_CONC = 1;

export interface PlanPoint extends PredictedPoint {
  /** Whether the point meets the SLA (true when there is none). */
  meetsSla: boolean;
  /** The SLA terms it breaks. */
  violations: string[];
}

export interface PlannedDeployment {
  label: string;
  kind: 'aggregated' | 'disaggregated';
  gpus: number;
  colocated: boolean;
  candidate: Candidate;
  points: PlanPoint[];
}

export interface Discarded {
  deployment: string;
  reason: string;
}

export interface Plan {
  workload: Workload & { gpus: number; sla: Sla };
  /** On the frontier, in order of interactivity. */
  frontier: PlanPoint[];
  /** The frontier point with the most throughput per GPU among those meeting the SLA. */
  best: PlanPoint | undefined;
  /** Deployments with a point on the frontier, with all their points. */
  deployments: PlannedDeployment[];
  discarded: Discarded[];
  stats: { candidates: number; simulated: number; points: number; ms: number };
}

const judge = (sla: Sla, p: PredictedPoint): PlanPoint => {
  const violations = slaViolations(sla, p);
  return { ...p, meetsSla: violations.length === 0, violations };
};

/** Which deployments beat every one of `points`: "TP4" or "TP4, DEP8". */
function dominators(points: readonly { x: number; y: number }[], others: readonly PlanPoint[]): string {
  const names = new Set<string>();
  for (const p of points) {
    const by = others.filter((o) => dominates({ x: o.interactivity, y: o.tputPerGpu }, p));
    // The one that beats it on throughput by the most: the clearest witness.
    const best = by.reduce<PlanPoint | undefined>((a, o) => (a && a.tputPerGpu >= o.tputPerGpu ? a : o), undefined);
    if (best) names.add(best.deployment);
  }
  return [...names].join(', ');
}

const axes = (p: PredictedPoint): { x: number; y: number } => ({ x: p.interactivity, y: p.tputPerGpu });

export function plan(request: PlanRequest): Plan {
  const started = performance.now();
  const model = findModel(request.model);
  const hardware = findHardware(request.hardware);
  const sla = request.sla ?? [];
  const ladder = [...new Set(request.concurrencies ?? DEFAULT_LADDER)].sort((a, b) => a - b);
  const requestsPerConc = request.requestsPerConc ?? DEFAULT_REQUESTS_PER_CONC;
  const maxGpus = request.gpus ?? 2 * hardware.gpusPerNode;
  const work: Workload = {
    model: model.id,
    hardware: hardware.id,
    precision: request.precision,
    engine: request.engine,
    isl: request.isl,
    osl: request.osl,
    rangeRatio: RANGE_RATIO,
  };
  const candidates = enumerateDeployments({ model, hardware, maxGpus, maxWorkers: request.maxWorkers });
  const discarded: Discarded[] = [];
  const fitted: { candidate: Candidate; topology: Topology; concs: number[] }[] = [];
  for (const candidate of candidates) {
    const f = fit(candidate, work);
    if (!f.ok) discarded.push({ deployment: candidate.label, reason: f.reason });
    else fitted.push({ candidate, topology: f.topology, concs: usefulConcurrencies(ladder, f.maxInFlight) });
  }

  let simulated = 0;
  const run = (label: string, topology: Topology, concs: number[], perConc: number): PredictedPoint[] | string => {
    try {
      return concs.map((c) => {
        simulated++;
        return simulatePoint(label, topology, work, c, perConc);
      });
    } catch (e) {
      return `simulation failed: ${(e as Error).message}`;
    }
  };

  // Coarse pass: a few rungs and the top one, one wave of requests each.
  const coarse = fitted.map((f) => {
    const concs = f.concs.filter((c, i) => COARSE_RUNGS.includes(c) || i === f.concs.length - 1);
    return { ...f, points: run(f.candidate.label, f.topology, concs, COARSE_REQUESTS_PER_CONC) };
  });
  const coarsePoints = coarse.flatMap((c) => (typeof c.points === 'string' ? [] : c.points));
  const near = (p: PredictedPoint): boolean => {
    const lifted = { x: p.interactivity * (1 + COARSE_MARGIN), y: p.tputPerGpu * (1 + COARSE_MARGIN) };
    return !coarsePoints.some((o) => dominates(axes(o), lifted));
  };
  const survivors: typeof fitted = [];
  for (const c of coarse) {
    if (typeof c.points === 'string') discarded.push({ deployment: c.candidate.label, reason: c.points });
    else if (c.points.some(near)) survivors.push(c);
    else {
      const lifted = c.points.map((p) => ({ x: p.interactivity * (1 + COARSE_MARGIN), y: p.tputPerGpu * (1 + COARSE_MARGIN) }));
      const by = dominators(
        lifted,
        coarsePoints.map((p) => judge([], p)),
      );
      discarded.push({
        deployment: c.candidate.label,
        reason: `dominated by ${by} at every concurrency (by more than ${COARSE_MARGIN * 100}% on the coarse pass)`,
      });
    }
  }

  // Fine pass: the whole useful ladder at the full request count.
  const evaluated: PlannedDeployment[] = [];
  for (const s of survivors) {
    const points = run(s.candidate.label, s.topology, s.concs, requestsPerConc);
    if (typeof points === 'string') {
      discarded.push({ deployment: s.candidate.label, reason: points });
      continue;
    }
    evaluated.push({
      label: s.candidate.label,
      kind: s.candidate.shape.kind,
      gpus: s.candidate.gpus,
      colocated: s.candidate.colocated,
      candidate: s.candidate,
      points: points.map((p) => judge(sla, p)),
    });
  }

  const all = evaluated.flatMap((d) => d.points);
  const frontier = paretoFrontier(all.map((p) => ({ ...p, ...axes(p) }))).map(({ x: _x, y: _y, ...p }) => p as PlanPoint);
  const onFrontier = new Set(frontier.map((p) => p.deployment));
  const deployments = evaluated.filter((d) => onFrontier.has(d.label));
  for (const d of evaluated) {
    if (onFrontier.has(d.label)) continue;
    if (sla.length > 0 && !d.points.some((p) => p.meetsSla)) {
      const closest = d.points.reduce((a, p) => (p.violations.length < a.violations.length ? p : a));
      discarded.push({
        deployment: d.label,
        reason: `violates SLA at every concurrency (e.g. conc ${closest.conc}: ${closest.violations.join(', ')})`,
      });
    } else {
      discarded.push({
        deployment: d.label,
        reason: `dominated by ${dominators(d.points.map(axes), frontier)} at every concurrency`,
      });
    }
  }
  const meeting = frontier.filter((p) => p.meetsSla);
  const best = meeting.reduce<PlanPoint | undefined>((a, p) => (a && a.tputPerGpu >= p.tputPerGpu ? a : p), undefined);
  return {
    workload: { ...work, gpus: maxGpus, sla },
    frontier,
    best,
    deployments,
    discarded,
    stats: { candidates: candidates.length, simulated, points: all.length, ms: Math.round(performance.now() - started) },
  };
}
