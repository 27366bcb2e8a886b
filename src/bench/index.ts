export { Client, DEFAULT_REQUEST_DEADLINE_MS } from './client.js';
export type { ClientOptions, RequestResult } from './client.js';
export {
  CHATML_TEMPLATE,
  DSV4_WITHOUT_CHAT_TEMPLATE,
  DatasetError,
  chatTemplate,
  dsv4ChatPrompt,
  fileDataset,
  randomDataset,
} from './dataset.js';
export type { BenchRequest, PromptFraming, RandomDatasetOptions } from './dataset.js';
export { Dsv4EncodingError, encodeDsv4Messages } from './encoding-dsv4.js';
export type {
  Dsv4ContentPart,
  Dsv4EncodeOptions,
  Dsv4Message,
  Dsv4ReasoningEffort,
  Dsv4Task,
  Dsv4ThinkingMode,
  Dsv4Tool,
  Dsv4ToolCall,
} from './encoding-dsv4.js';
export { runLoad, schedule } from './load.js';
export type { LoadOptions } from './load.js';
export { METRICS, NO_OUTPUT_TOKENS, ZERO_COMPLETION_TOKENS, computeMetrics, distribution } from './metrics.js';
export type { Metric, Metrics, MetricsOptions, Outcome } from './metrics.js';
export { INVALID_USAGE, ResponseTracker, scanChunk, usageProblem } from './response.js';
export type { ResponseRecord, Usage } from './response.js';
export { Rng } from '../util/rng.js';
export { USAGE_CHECK_SAMPLE, USAGE_SLACK, checkUsage, prepareRequests, runBench, settleOutcome } from './run.js';
export type { BenchOptions, BenchReport, UsageCheck } from './run.js';
export { SATURATION, SaturationMonitor } from './saturation.js';
export {
  SIGMAS,
  TOLERANCE,
  acceptanceProblem,
  acceptedTokensVariance,
  checkAcceptance,
  specDecodeCounters,
  specDecodeOfExport,
  specDecodeWindow,
  syntheticVariance,
} from './spec-decode.js';
export type { AcceptanceCheck, SpecDecodeCounters, SpecDecodeStats } from './spec-decode.js';
export type { ClientLoad } from './saturation.js';
export { EventTooLarge, MAX_EVENT_CHARS, SseSplitter } from './sse.js';
export { mean, median, std, sum } from './stats.js';
export { gpt2Tokenizer, huggingFaceTokenizer, loadTokenizer, serverTokenizer } from './tokenizer.js';
export type { Tokenizer } from './tokenizer.js';
export { REPLAY_DEFAULTS, replayTraces } from './replay/index.js';
export type { ReplayOptions, ReplayReport } from './replay/index.js';
