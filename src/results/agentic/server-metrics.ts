/**
 * The server-side block of the aggregate: the engine's scrape read by the backend that matches
 * its metric names (or the framework when the scrape is missing), the GPU KV capacity from the
 * engine logs, and token totals that fall back to the profiled records' sums.
 */
import { readFileSync } from 'node:fs';
import { loads, pyRepr } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';
import { applyProfileTotals, emptyServerFlat, emptyServerNested } from './backends/base.js';
import type { ServerFlat, ServerNested } from './backends/base.js';
import { detectBackend } from './backends/index.js';
import { byCodePointSort, indexServerMetrics } from './common.js';
import type { RecordDict } from './records.js';

/** server_metrics_export.json as parsed, or {} when the file is absent. */
export function loadServerMetrics(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UserError(`${path}: cannot read: ${(e as Error).message}`);
  }
  try {
    return loads(text);
  } catch (e) {
    throw new UserError(`${path}: not JSON: ${(e as Error).message}`, {
      hint: 'AIPerf writes server_metrics_export.json as one JSON object',
    });
  }
}

export interface ServerMetricsResult {
  flat: ServerFlat;
  nested: ServerNested;
  warnings: string[];
}

export function computeServerMetrics(
  serverMetrics: unknown,
  options: { framework: string; records: readonly RecordDict[]; serverLogPaths?: readonly string[] },
): ServerMetricsResult {
  const metrics = indexServerMetrics(serverMetrics);
  const names = Object.keys(metrics);
  const flat = emptyServerFlat();
  const warnings: string[] = [];
  const nested = emptyServerNested(names.length > 0, names.length);
  const logPaths = options.serverLogPaths ?? [];
  const adapter = detectBackend(metrics, options.framework);

  if (names.length === 0) {
    warnings.push('server_metrics_export.json missing or empty');
    if (adapter !== null) {
      const capacity = adapter.gpuKvCapacityTokens(metrics, logPaths);
      if (capacity !== null) nested.kv_cache.gpu_total_tokens = capacity;
    }
    applyProfileTotals(flat, options.records);
    nested.tokens.prompt_total = flat.total_prompt_tokens;
    nested.tokens.generation_total = flat.total_generation_tokens;
    nested.tokens.requests_completed = flat.total_requests_completed;
    return { flat, nested, warnings };
  }
  if (adapter === null) {
    const preview = byCodePointSort(names).slice(0, 10).join(', ');
    throw new UserError(
      `Unsupported agentic server metrics backend; framework=${pyRepr(options.framework.toLowerCase())}, metric_names=[${preview}]`,
      { hint: 'the scrape must hold vllm:, sglang:, dynamo_ or atom metrics (or FRAMEWORK must name one of those engines)' },
    );
  }
  nested.adapter = adapter.name;
  adapter.populate(metrics, flat, nested);
  const capacity = adapter.gpuKvCapacityTokens(metrics, logPaths);
  if (capacity !== null) nested.kv_cache.gpu_total_tokens = capacity;
  applyProfileTotals(flat, options.records);
  if (nested.tokens.prompt_total === null) nested.tokens.prompt_total = flat.total_prompt_tokens;
  if (nested.tokens.generation_total === null) nested.tokens.generation_total = flat.total_generation_tokens;
  nested.tokens.requests_completed = flat.total_requests_completed;
  return { flat, nested, warnings };
}
