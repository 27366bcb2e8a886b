// Cluster profiles and routing: configuration, which src/launch runs with.
export {
  CONTAINER_RUNTIMES,
  ClusterProfileError,
  ClusterProfileSchema,
  DEFAULT_HEALTH_CHECK,
  DEFAULT_TIME_LIMIT_MINUTES,
  EnvReferenceError,
  HEALTH_CHECK_REQUIRED_BELOW_MINUTES,
  LOCAL_PROFILE,
  SCHEDULERS,
  SLURM_ONLY_KEYS,
  expandPath,
  findCluster,
  gpuFor,
  loadClusterProfile,
  loadClusterProfiles,
  modelPath,
  parseClusterProfile,
  parseMount,
  profileFiles,
  profileName,
  readClusterProfiles,
} from './profile.js';
export type { ClusterProfile, ClusterProfileRead, ModelLocation, Mount, Pos, ProfileSource, SrtctlSettings } from './profile.js';
export {
  globCovers,
  globMatches,
  globProblem,
  globToRegExp,
  matchCovers,
  recipeRoutePath,
  routeRecipe,
  rowRouteRequest,
} from './routing.js';
export type { Route, RouteFlag, RouteMatch, RouteRequest, RoutingRule, Toolchain } from './routing.js';
