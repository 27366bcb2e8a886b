export { ResultsError } from './errors.js';
export { BASE_ENV, checkBaseEnv, identityFromEnv, requireEnv } from './identity.js';
export type { ComponentMetadata, Env, MultiNodeTopology, PointIdentity, SingleNodeTopology, WorkerPool } from './identity.js';
export { NO_TELEMETRY, POWER_METRIC_SCHEMA_VERSION, powerSettingsFromEnv } from './power.js';
export type { PathKind, PowerSettings, TelemetryProbe } from './power.js';
export { processResult } from './process.js';
export type { PowerContext, ProcessedPoint } from './process.js';
export { identityFromRow, parseRow, resultFilenameOf, roleGpus, rowEnv } from './row.js';
export type { MatrixRowLike, MultiNodeRowLike, RowExtra, RowWorkerLike, SingleNodeRowLike } from './row.js';
