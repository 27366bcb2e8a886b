export {
  agenticAggregateJson,
  agenticSummaryLines,
  aggregateAgentic,
  aggregateAgenticResultDir,
  buildAgenticAggregate,
  resolveArtifactDir,
} from './aggregate.js';
export type { AgenticAggregate, AggregateInputs } from './aggregate.js';
export { agenticContextFromEnv, gpuShape } from './context.js';
export type { AgenticComponent, AgenticContext, AgenticEnv, KvOffloadBackend, ShapeFields } from './context.js';
export {
  AtomBackend,
  BACKENDS,
  DynamoVllmBackend,
  SglangBackend,
  VllmBackend,
  detectBackend,
  sglangKvCachePoolTokensFromLog,
  vllmKvCachePoolTokensFromLog,
} from './backends/index.js';
export type { ServerFlat, ServerMetricsBackend, ServerNested } from './backends/index.js';
export { errorCategory, loadRecordsWithAccounting } from './records.js';
export type { RecordDict, RequestAccounting } from './records.js';
export { computeRequestMetrics } from './request-metrics.js';
export { findServerLogPaths, loadServerLogHead } from './server-logs.js';
export { computeServerMetrics, loadServerMetrics } from './server-metrics.js';
export { checkAgenticArtifacts, resolveAggregatePath, validateAgenticArtifacts } from './validate.js';
export type { AgenticValidation } from './validate.js';
export type * from './types.js';
