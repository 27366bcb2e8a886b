export { openStore, storeLocation } from './db.js';
export type { Store } from './db.js';
export type { Dialect } from './schema.js';
export { IngestError, artifactRoot, readArtifacts } from './artifacts.js';
export type {
  AttemptInput,
  ChangelogInput,
  IngestBatch,
  IngestOptions,
  LogInput,
  RunInfo,
  RunStatInput,
  Staging,
} from './artifacts.js';
export { IngestConflict, deleteRun, ingestBatch } from './ingest.js';
export type { IngestBatchOptions, IngestSummary, PowerCounts, RowCounts, RunChange } from './ingest.js';
export { configKey, formatProblem, hardwareOf } from './rows.js';
export type { BenchmarkInput, ConfigIdentity, EvalInput, IngestProblem } from './rows.js';
export {
  agenticPoint,
  agenticPoints,
  availability,
  benchmarks,
  evaluations,
  history,
  run,
  runLog,
  runLogs,
  runs,
} from './queries.js';
export { AGENTIC_HEADLINE } from './agentic.js';
export type { AgenticInput } from './agentic.js';
export type { ResultFilter, Source } from './queries.js';
export { COMPARED_METRICS, compareRun, comparisonMarkdown } from './compare.js';
export { createToken, listTokens, revokeToken, verifyToken } from './tokens.js';
export { TABLES } from './migrations.js';
export { audit } from './audit.js';
export type { AuditFilter } from './audit.js';
export { CorrectionRefused, overrideConclusion, purgeRun, unpurgeRun } from './corrections.js';
export type { Correction } from './corrections.js';
export { DEFAULT_VERDICT_SETTINGS, RESOLUTION_FACTOR, answer } from './verdict.js';
export type { Answer, LogVariance, Question, SampleSide, VerdictSettings } from './verdict.js';
export { MIN_CONFIG_DF, officialHistory, variation, variationOf } from './variation.js';
export type { VariationFilter, VariationIndex } from './variation.js';
export { DEFAULT_MIN_FAILURES, daysBefore, failingNodes } from './nodes.js';
export type { NodeFilter } from './nodes.js';
export { dumpStore } from './dump.js';
export type { DumpSummary } from './dump.js';
export { readManifest, restoreStore } from './restore.js';
export type { RestoreOptions, RestoreSummary } from './restore.js';
export { DUMP_FORMAT, DUMP_FORMAT_VERSION, MANIFEST_FILE } from './dump-format.js';
export type { DumpManifest, DumpTable } from './dump-format.js';
export { MIGRATIONS } from './migrations.js';
