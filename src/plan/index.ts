export { PlacementError, nodesNeeded, placeWorkers } from './placement.js';
export { deploymentOf, layoutGpus, layoutOf, logsKeyOf, planRun, recipeOf } from './launches.js';
export type { DeploymentSettings, PlannedEval, PlannedGroup, PlannedPoint } from './launches.js';
