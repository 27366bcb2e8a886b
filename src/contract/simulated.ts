/** Frameworks that run for real even on a simulating cluster (they need no GPU). */
const RUNS_ANYWHERE: ReadonlySet<string> = new Set(['llama.cpp', 'sim']);

/**
 * Whether a row of `framework` runs on the simulated engine: it is the sim, or its cluster simulates
 * and the framework is not one that runs for real anyway. `frontier run` plans by it; the store
 * reads a stored point's power by it.
 */
export const runsOnSimulator = (framework: string, clusterSimulates: boolean): boolean =>
  framework === 'sim' || (clusterSimulates && !RUNS_ANYWHERE.has(framework));
