export { BlockTexts, CACHE_BUST_WORDS, PromptBuilder, SINGLE_TOKEN_WORDS, words } from './blocks.js';
export { mainRequests, planReplay, startTurn, subagents } from './plan.js';
export type { LaneStart, ReplayPlan, StartOptions } from './plan.js';
export { aggregateJson, metricStats, recordJson } from './records.js';
export type { Phase, ReplayRecord } from './records.js';
export { REPLAY_DEFAULTS, replayTraces, theoreticalHits } from './replay.js';
export type { ReplayOptions, ReplayReport } from './replay.js';
export { MetricsScraper, parsePrometheus } from './server-metrics.js';
