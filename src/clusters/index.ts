// Cluster profiles (clusters/*.yaml) and their routing: configuration, which src/launch runs with.
export { EnvReferenceError, expandPath } from './env-reference.js';
export { findCluster } from './find-cluster.js';
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
export { ClusterProfileError, LOCAL_PROFILE, gpuFor, parseMount } from './profile.js';
export type { ClusterProfile, ModelLocation, Mount, Pos, ProfileSource, SrtctlSettings } from './profile.js';
export { globCovers, globMatches, globProblem, globToRegExp, recipeRoutePath } from './recipe-glob.js';
export { matchCovers, routeRecipe, rowRouteRequest } from './route.js';
export type { Route, RouteFlag, RouteMatch, RouteRequest, RoutingRule, Toolchain } from './route.js';
export {
  CONTAINER_RUNTIMES,
  ClusterProfileSchema,
  DEFAULT_HEALTH_CHECK,
  DEFAULT_TIME_LIMIT_MINUTES,
  HEALTH_CHECK_REQUIRED_BELOW_MINUTES,
  SCHEDULERS,
  SLURM_ONLY_KEYS,
} from './schema.js';
