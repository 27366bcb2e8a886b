import { Cluster, buildTopology, simulateClosedLoop } from '../sim/index.js';
import type { DeploymentOptions, Precision, Topology } from '../sim/index.js';
import { UserError } from '../util/user-error.js';
import { INFERENCEX_REQUESTS_PER_CONC } from '../sim/calibration/accuracy.js';
import type { Candidate } from './enumerate.js';

/**
 * One candidate deployment on the simulator: whether it fits, how many requests it can hold at
 * once, and its predicted benchmark points over a concurrency ladder.
 */

export interface Workload {
  model: string;
  hardware: string;
  precision: Precision;
  engine?: string | undefined;
  isl: number;
  osl: number;
  /** InferenceX's client draws lengths in [ratio × L, L]. */
  rangeRatio: number;
}

/** One predicted benchmark point. */
export interface PredictedPoint {
  deployment: string;
  conc: number;
  /** Input + output tokens/s per GPU (InferenceX's tput_per_gpu). */
  tputPerGpu: number;
  /** 1000 / median TPOT. */
  interactivity: number;
  ttftMs: number;
  tpotMs: number;
  /** Median TTFT + median TPOT × (mean output length − 1): an estimate, the simulator reports no e2e median. */
  e2eMs: number;
}

export type Fitted = { ok: true; topology: Topology; maxInFlight: number } | { ok: false; reason: string };

/** Build the candidate's topology and check that one request of the workload fits in every pool's KV cache. */
export function fit(candidate: Candidate, work: Workload): Fitted {
  const options: DeploymentOptions = {
    model: work.model,
    hardware: work.hardware,
    precision: work.precision,
    engine: work.engine,
    ...candidate.parallelism,
  };
  let topology: Topology;
  try {
    topology = buildTopology(options);
  } catch (e) {
    if (e instanceof UserError) return { ok: false, reason: `does not fit: ${e.message}` };
    throw e;
  }
  const cluster = new Cluster(topology);
  const whole = work.isl + work.osl;
  for (const instance of cluster.instances) {
    const needs = instance.role === 'prefill' ? work.isl : whole;
    if (instance.maxSequenceTokens < needs) {
      const where = instance.role === 'agg' ? 'its' : `the ${instance.role} workers'`;
      return {
        ok: false,
        reason: `does not fit: ${where} KV cache holds ${instance.maxSequenceTokens} tokens, one request needs ${needs}`,
      };
    }
  }
  // Sequences the decoding instances hold at once: past that, more concurrency only queues.
  const decoding = cluster.instances.filter((i) => i.role !== 'prefill');
  const maxInFlight = decoding.reduce(
    (sum, i) => sum + Math.min(i.limits.maxNumSeqs, Math.floor(i.capacityBytes / i.bytesFor(whole))),
    0,
  );
  return { ok: true, topology, maxInFlight };
}

/**
 * The ladder's concurrencies worth simulating: up to the first one that fills the deployment.
 * Past it requests only queue: throughput stays, TTFT grows.
 */
export function usefulConcurrencies(ladder: readonly number[], maxInFlight: number): number[] {
  const sorted = [...ladder].sort((a, b) => a - b);
  const cut = sorted.findIndex((c) => c >= maxInFlight);
  return cut < 0 ? sorted : sorted.slice(0, cut + 1);
}

export function simulatePoint(
  label: string,
  topology: Topology,
  work: Workload,
  conc: number,
  requestsPerConc: number,
): PredictedPoint {
  const run = simulateClosedLoop(topology, {
    concurrency: conc,
    requests: Math.max(Math.round(requestsPerConc * conc), 8),
    isl: work.isl,
    osl: work.osl,
    rangeRatio: work.rangeRatio,
    // Medians as InferenceX's 10 waves would give them, as the calibration predicts them.
    standsFor: conc * INFERENCEX_REQUESTS_PER_CONC,
  });
  const meanOutput = (work.osl * (1 + work.rangeRatio)) / 2;
  return {
    deployment: label,
    conc,
    tputPerGpu: run.totalThroughputPerGpu,
    interactivity: run.interactivity,
    ttftMs: run.medianTtftMs,
    tpotMs: run.medianTpotMs,
    e2eMs: run.medianTtftMs + run.medianTpotMs * Math.max(0, meanOutput - 1),
  };
}
