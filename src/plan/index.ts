export { PlacementError, nodeName, nodesNeeded, onHosts, placeWorkers } from './placement.js';
export { deploymentOf, layoutGpus, layoutOf, logsKeyOf, planRun, recipeOf } from './launches.js';
export type { DeploymentSettings, PlannedEval, PlannedLaunch, PlannedPoint } from './launches.js';
export { clusterSummary, planLaunch, runVariationOf } from './plan-launch.js';
export type { PlanContext } from './plan-launch.js';
export { unhandledKind } from './launch-plan.js';
export type * from './launch-plan.js';
export { filterRows, readMatrix } from './matrix-file.js';
export * from './inferencex/index.js';
