export { AnswerBook, MAX_ANSWERS_FILE_BYTES } from './answers.js';
export type { AnswerKey } from './answers.js';
export { CatalogError, HARDWARE, MODELS, PRECISIONS, findHardware, findModel, powerBoundsOf } from './catalog.js';
export type { Hardware, Model, Precision } from './catalog.js';
export { ROOT_BLOCK_HASH, blockHashes } from './block-hash.js';
export { Cluster, kvTransferMs } from './cluster.js';
export type { ClusterStats, PoolSpec, TokenEvent, Topology } from './cluster.js';
export { hostLinkGBps } from './host-link.js';
export { PrefixCache } from './prefix-cache.js';
export type { PrefixMatch } from './prefix-cache.js';
export { FaultPlan, NO_FAULTS } from './faults.js';
export type { FaultOptions, RequestFaults } from './faults.js';
export { DEFAULT_CACHE, DEFAULT_LIMITS, Instance } from './instance.js';
export type { CacheOptions, PromptSources, SchedulerLimits, SimRequest } from './instance.js';
export {
  DEFAULT_EFFICIENCY,
  SimConfigError,
  engineSpec,
  gpusOf,
  kvBytesPerTokenPerGpu,
  memory,
  parameterSplit,
  stepTime,
  weightBytesPerGpu,
} from './perf.js';
export type { Efficiency, EngineOptions, EngineSpec, Memory, Parallelism, StepLoad, StepTime } from './perf.js';
export { DEFAULT_SERVER_OPTIONS, SIM_ROLES, startSimServer } from './server.js';
export type { KvTransferParams, SimRole, SimServer, SimServerOptions } from './server.js';
export { startSimRouter } from './router.js';
export { DEFAULT_SESSION_TTL_MS, SessionAffinity, sessionOf } from './router/affinity.js';
export type { SessionBinding } from './router/affinity.js';
export type { SimRouter, SimRouterOptions } from './router.js';
export { simulateClosedLoop } from './simulate.js';
export type { LoadSpec, SimulatedRun } from './simulate.js';
export { TOKENIZER, decode, encode, loadTokenizer, renderChat } from './tokens.js';
export { DEFAULT_DEPLOYMENT, buildTopology, describeTopology } from './topology.js';
export { describeKvCache, describeMemory } from './describe.js';
export { DEFAULT_ESTIMATE_LADDER, estimate } from './estimate.js';
export type { EstimateOptions } from './estimate.js';
export { serveDeployment, servingEngine } from './serve.js';
export type { ServeOptions } from './serve.js';
export type { DeploymentOptions, PoolOptions } from './topology.js';
export type { SpeculativeConfig } from './speculative.js';
export {
  RECOMMENDED_RUN_VARIATION,
  RUN_NODE_ENV,
  RUN_SEED_ENV,
  RUN_VARIATION_ENV,
  RUN_VARIATION_LIMIT,
  checkRunVariation,
  launchSeed,
  nodeSeed,
  runFactor,
  scaledEfficiency,
} from './run-variation.js';
export type { RunVariation } from './run-variation.js';
