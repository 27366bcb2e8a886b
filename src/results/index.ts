export { ResultsError } from './errors.js';
export { BASE_ENV, checkBaseEnv, identityFromEnv, requireEnv } from './identity.js';
export type { ComponentMetadata, Env, MultiNodeTopology, PointIdentity, SingleNodeTopology, WorkerPool } from './identity.js';
export * from './power.js';
export { processResult } from './process.js';
export type { PowerContext, ProcessedPoint } from './process.js';
export { identityFromRow, parseRow, resultFilenameOf, roleGpus, rowEnv } from './row.js';
export type { MatrixRowLike, MultiNodeRowLike, RowExtra, RowWorkerLike, SingleNodeRowLike } from './row.js';
export * from './agentic/index.js';
