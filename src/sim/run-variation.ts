import { Rng, hash32 } from '../util/rng.js';
import type { Efficiency } from './perf.js';
import { SimConfigError } from './perf.js';

/**
 * Run-to-run variation (docs/simulator.md, "Run-to-run variation"). Real GPUs give a few percent
 * more or less on each launch of one configuration (the node, its clocks and thermals, kernels
 * autotuned at start-up); the performance model is exact. A launch of `frontier sim serve` with a
 * coefficient of variation CV > 0 draws one performance factor f at start-up, lognormal with
 * median 1 and sd(ln f) = CV (so CV is about the factor's relative standard deviation), and its
 * engines reach f × their compute and memory efficiency: their kernels take 1/f as long. Seeds
 * make every draw reproducible: a launch's seed comes from the cluster's seed and the launch's
 * id, and each node's sims from the launch's seed and the node.
 */

/**
 * The CV Frontier recommends for `sim: run-variation` when a run should see launch-to-launch
 * spread: 2%. No published InferenceX data measures one configuration twice, so it is an
 * assumption, bracketed by what InferenceX's maintainers report (docs/simulator.md says where).
 */
export const RECOMMENDED_RUN_VARIATION = 0.02;

/** The largest CV accepted: beyond it the factor's tails (e^±3CV) stop looking like one GPU model's. */
export const RUN_VARIATION_LIMIT = 0.5;

/** The variables a stand-in forwards to `frontier sim serve` (launch/inferencex/point.ts sets them). */
export const RUN_VARIATION_ENV = 'FRONTIER_SIM_RUN_VARIATION';
/** The launch's seed, which the stand-in mixes with its node's name. */
export const RUN_SEED_ENV = 'FRONTIER_SIM_RUN_SEED';
/** The node a stand-in's sim counts as, where the executor names it (a recipe's processes, a single-node script). */
export const RUN_NODE_ENV = 'FRONTIER_SIM_RUN_NODE';

/** A launch's variation, as its plan carries it: the CV and the launch's seed. */
export interface RunVariation {
  cv: number;
  seed: number;
}

/** Refuse a CV outside [0, RUN_VARIATION_LIMIT], saying what is accepted. */
export function checkRunVariation(cv: number): void {
  if (!(Number.isFinite(cv) && cv >= 0 && cv <= RUN_VARIATION_LIMIT))
    throw new SimConfigError(
      `run variation ${cv}: expected a coefficient of variation between 0 and ${RUN_VARIATION_LIMIT} (e.g. ${RECOMMENDED_RUN_VARIATION} for ${RECOMMENDED_RUN_VARIATION * 100}%; 0: exact)`,
    );
}

/**
 * The performance factor of a launch with this CV and seed: exp(CV × z), z a standard normal of
 * the seeded RNG (so its median is 1 and sd(ln f) = CV). CV 0 gives exactly 1. Pure: the same
 * (cv, seed) always gives the same factor, so a statistics test can draw launches with it.
 */
export function runFactor(cv: number, seed: number): number {
  checkRunVariation(cv);
  if (cv === 0) return 1;
  // Hashed, so that neighbouring seeds and the sim's own --seed stream share nothing.
  const z = new Rng(hash32(`run-variation/${seed}`)).normal();
  return Math.exp(cv * z);
}

/** A launch's seed: a stable hash of the cluster's seed and the launch's id, so launches with distinct ids draw apart. */
export const launchSeed = (clusterSeed: number, launchId: string): number => hash32(`${clusterSeed}/${launchId}`);

/** The seed of a launch's sims on one node (`node0`, `node1`…, as the plan names nodes). */
export const nodeSeed = (seed: number, node: string): number => hash32(`${seed}/${node}`);

/** Efficiency with the compute and memory factors scaled by the performance factor `f` (1: unchanged). */
export function scaledEfficiency(e: Efficiency, f: number): Efficiency {
  if (f === 1) return e;
  return { ...e, compute: e.compute * f, memory: e.memory * f, attentionMemory: e.attentionMemory * f };
}
