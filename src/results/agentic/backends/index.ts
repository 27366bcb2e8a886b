import { AtomBackend } from './atom.js';
import type { ServerMetricsBackend } from './base.js';
import { DynamoVllmBackend } from './dynamo-vllm.js';
import { SglangBackend } from './sglang.js';
import { VllmBackend } from './vllm.js';
import type { ServerMetricsIndex } from '../types.js';

/** In the reference's order: the first that matches reads the metrics. */
export const BACKENDS: readonly ServerMetricsBackend[] = [
  new DynamoVllmBackend(),
  new AtomBackend(),
  new SglangBackend(),
  new VllmBackend(),
];

export function detectBackend(metrics: ServerMetricsIndex, framework: string): ServerMetricsBackend | null {
  return BACKENDS.find((b) => b.matches(metrics, framework)) ?? null;
}

export { AtomBackend, DynamoVllmBackend, SglangBackend, VllmBackend };
export { sglangKvCachePoolTokensFromLog } from './sglang.js';
export { vllmKvCachePoolTokensFromLog } from './vllm.js';
export type { ServerFlat, ServerMetricsBackend, ServerNested } from './base.js';
