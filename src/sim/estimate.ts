import type { Topology } from './cluster.js';
import { simulateClosedLoop } from './simulate.js';
import type { SimulatedRun } from './simulate.js';

/** The concurrencies `frontier sim estimate` simulates unless told. */
export const DEFAULT_ESTIMATE_LADDER: readonly number[] = [1, 4, 16, 64, 256];

export interface EstimateOptions {
  concurrencies: readonly number[];
  /** Requests per concurrency, as a multiple of it. */
  requestsPerConc: number;
  isl: number;
  osl: number;
  rangeRatio: number;
}

/** A fixed-concurrency benchmark of the deployment in virtual time, one point per concurrency. */
export function estimate(topology: Topology, o: EstimateOptions): ({ conc: number } & SimulatedRun)[] {
  return o.concurrencies.map((conc) => ({
    conc,
    ...simulateClosedLoop(topology, {
      concurrency: conc,
      requests: conc * o.requestsPerConc,
      isl: o.isl,
      osl: o.osl,
      rangeRatio: o.rangeRatio,
    }),
  }));
}
