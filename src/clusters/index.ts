// Cluster profiles (clusters/*.yaml) and their routing, and InferenceX's launchers (runners/launch_*.sh)
// read as the same: configuration, which src/launch runs with and src/review checks.

// Profiles: shape, checks, loading, choosing a cluster.
export { EnvReferenceError, expandPath } from './env-reference.js';
export { clusterForRunners, findCluster } from './find-cluster.js';
export {
  loadClusterProfile,
  loadClusterProfiles,
  parseClusterProfile,
  profileFiles,
  profileName,
  readClusterProfiles,
} from './load.js';
export type { ClusterProfileRead } from './load.js';
export { modelPath } from './model-path.js';
export {
  ClusterProfileError,
  LOCAL_PROFILE,
  defaultRetries,
  excludedNodesFor,
  gpuFor,
  parseMount,
  ruleCovers,
} from './profile.js';
export type {
  ClusterProfile,
  ExcludeNodeRule,
  ModelLocation,
  Mount,
  Pos,
  ProfileSource,
  RepeatScope,
  RepeatSettings,
  SimVariation,
  SrtctlSettings,
} from './profile.js';
export { NODE_EXCLUDES_OF, nodeExcludesFor, parseNodeExcludes } from './inferencex/node-excludes.js';
export type { NodeExcludes } from './inferencex/node-excludes.js';
export {
  CONTAINER_RUNTIMES,
  ClusterProfileSchema,
  DEFAULT_HEALTH_CHECK,
  DEFAULT_TIME_LIMIT_MINUTES,
  HEALTH_CHECK_REQUIRED_BELOW_MINUTES,
  SCHEDULERS,
  SLURM_ONLY_KEYS,
} from './schema.js';

// Routing a multi-node recipe to a toolchain.
export { globCovers, globMatches, globProblem, globToRegExp, recipeRoutePath } from './recipe-glob.js';
export { matchCovers, routeRecipe, rowRouteRequest } from './route.js';
export type { Route, RouteFlag, RouteMatch, RouteRequest, RoutingRule, Toolchain } from './route.js';

// InferenceX's launchers and what its workflows give them (read with the bash reader's conditions).
export { JOB_SCRIPT_FRAMEWORKS, JOB_SCRIPT_FRAMEWORKS_OF, runsJobScript } from './inferencex/job-script-frameworks.js';
export type { JobScriptLauncher } from './inferencex/job-script-frameworks.js';
export type { ToolchainRef } from './inferencex/clone-refs.js';
export { readCloneRoutes } from './inferencex/clone-routes.js';
export type { CloneRoute, CloneRoutes } from './inferencex/clone-routes.js';
export { launcherForLabel, launcherOf, reachedRoutes, treeLaunchers } from './inferencex/read-launchers.js';
export type { Launcher } from './inferencex/read-launchers.js';
export { routedRows } from './inferencex/routed-rows.js';
export type { RoutedRow } from './inferencex/routed-rows.js';
export { DESCRIPTIVE_FIELDS, DESCRIPTIVE_VARIABLES, multiNodeWorkflowEnv, workflowEnv } from './inferencex/workflow-env.js';
export { descriptiveFields } from './inferencex/route-reads.js';
export type { RouteTree } from './inferencex/route-reads.js';
export { evaluate, formatCond } from './bash/conditions.js';
export type { Cond } from './bash/conditions.js';

// frontier clusters import: launchers as profiles.
export { importClusters } from './import/import-clusters.js';
export type { ImportedProfile } from './import/import-clusters.js';

// frontier clusters health: the fleet health digest.
export { RUNNERS_LISTING_HINT, parseRunnersListing } from './health/listing.js';
export type { GithubRunner } from './health/listing.js';
export { fleetHealth, headline } from './health/digest.js';
export type { FailingNode, FleetHealth, FleetHealthInput, LabelHealth, RunnerHealth, RunnerState } from './health/digest.js';
export { healthMarkdown, healthSlack, healthText } from './health/render.js';
