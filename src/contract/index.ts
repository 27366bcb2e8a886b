/**
 * The API contract: what the API answers and how both sides read it (the store and the API on the
 * server, the dashboard in the browser). Browser-safe: it imports nothing from the rest of src/
 * and nothing of Node's.
 */
export type {
  AgenticPointDetail,
  AuditEntry,
  ConclusionOverride,
  AgenticPointRow,
  AvailabilityRow,
  ComparedPoint,
  Comparison,
  ComparisonMethod,
  ConfigRow,
  EvalRow,
  LaunchAttemptRow,
  MetricDelta,
  MetricStats,
  NodeRow,
  ParetoAnswer,
  PointRow,
  PowerSide,
  PowerSource,
  RepeatScope,
  PredictedFrontierAnswer,
  RunDetail,
  RunLog,
  RunConclusion,
  RunRow,
  TtftBucket,
  VerdictName,
  VariationRow,
} from './api.js';
export { conclusionOf } from './api.js';
export { VERDICT_SYMBOL, changeText, signedPct } from './change.js';
export { configLabel, configTopology } from './labels.js';
export {
  MEASURED_ENERGY_METRICS,
  MEASURED_POWER_KEYS,
  ROLE_POWER_KEYS,
  WHOLE_POWER_KEYS,
  METRIC_CATALOG,
  THROUGHPUT_METRIC,
  goalOf,
  metricDef,
} from './metrics.js';
export type { Goal, MetricDef } from './metrics.js';
export { latestSeries, paretoFront, seriesFrontiers, seriesKey } from './pareto.js';
export { topologyLabel } from './topology.js';
export type { TopologyRole, TopologyShape } from './topology.js';
export { runsOnSimulator } from './simulated.js';
