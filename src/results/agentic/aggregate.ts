/**
 * One agentic point's aggregate (process_agentic_result.py): the context from the environment,
 * the profiled records' request metrics, the engine scrape's server metrics and the accounting of
 * dropped records, in the reference's key order, floats rounded to 5 places, written as
 * `json.dump(agg, f, indent=2)` writes it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PyFloat, dumps, isDict, loads, pyFixed, pyPath } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';
import { type PyValue, roundFloats } from './common.js';
import type { AgenticContext } from './context.js';
import { accountingValue, emptyAccounting, loadRecordsWithAccounting } from './records.js';
import type { RecordDict, RequestAccounting } from './records.js';
import { computeRequestMetrics } from './request-metrics.js';
import { findServerLogPaths } from './server-logs.js';
import { computeServerMetrics, loadServerMetrics } from './server-metrics.js';
import { expectedOutputLengths, loadTraceOutputLengths } from './trace-metadata.js';
import { isFile } from '../../util/fs-kind.js';

/** An aggregate as Python holds it (floats as PyFloat, rounded), with what the summary needs. */
export interface AgenticAggregate {
  /** The aggregate dict, in the reference's key order. */
  readonly body: Record<string, PyValue>;
  readonly numRequestsSuccessful: number;
  readonly accounting: RequestAccounting;
}

/** `RESULT_DIR/aiperf_artifacts`, or its first child (by name) holding profile_export.jsonl (per-run layout). */
export function resolveArtifactDir(resultDir: string, cwd = '.'): string {
  const base = join(resultDir, 'aiperf_artifacts');
  const at = (...parts: string[]): string => resolve(cwd, base, ...parts);
  if (isFile(at('profile_export.jsonl'))) return base;
  let children: string[] = [];
  try {
    children = readdirSync(at()).sort();
  } catch {
    return base;
  }
  for (const child of children) if (isFile(at(child, 'profile_export.jsonl'))) return join(base, child);
  return base;
}

function readAggregate(path: string): Record<string, unknown> {
  if (!isFile(path)) return {};
  let value: unknown;
  try {
    value = loads(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UserError(`${path}: not JSON: ${(e as Error).message}`, {
      hint: 'AIPerf writes profile_export_aiperf.json as one JSON object',
    });
  }
  if (!isDict(value)) throw new UserError(`${path}: must contain a JSON object`);
  return value;
}

export interface AggregateInputs {
  records: readonly RecordDict[];
  aggregate: Record<string, unknown>;
  serverMetrics: unknown;
  accounting?: RequestAccounting;
  serverLogPaths?: readonly string[];
}

/** `build_agg` (then `round_floats`) from inputs already read. */
export function buildAgenticAggregate(inputs: AggregateInputs, context: AgenticContext): AgenticAggregate {
  const { records, aggregate } = inputs;
  const accounting = inputs.accounting ?? emptyAccounting(records.length);
  const agg: Record<string, PyValue> = {
    hw: context.runnerType,
    conc: context.conc,
    image: context.image,
    recipe_fingerprint: context.recipeFingerprint,
    model: context.model,
    infmax_model_prefix: context.modelPrefix,
    framework: context.framework,
    precision: context.precision,
    spec_decoding: context.specDecoding,
    disagg: context.disagg,
    scenario_type: 'agentic-coding',
    is_multinode: context.isMultinode,
    tp: context.tp,
    ep: context.ep,
    dp_attention: context.dpAttention,
    kv_offloading: context.kvOffloading,
    kv_offload_backend: context.kvOffloadBackend === null ? null : { ...context.kvOffloadBackend },
    allocated_cpu_dram_gb: context.allocatedCpuDramGb,
    num_requests_total: accounting.records_total,
    num_requests_successful: records.length,
    request_accounting: accountingValue(accounting),
    ...context.shapeFields,
  };
  if (context.router !== null) agg.router = { ...context.router };
  if (context.kvP2pTransfer !== null) agg.kv_p2p_transfer = context.kvP2pTransfer;
  const metadata = aggregate.metadata;
  if (isDict(metadata) && isDict(metadata.dataset)) agg.dataset = metadata.dataset as PyValue;

  const expected = expectedOutputLengths(records, loadTraceOutputLengths(context.hfHubCache));
  const [requestFlat, requestNested] = computeRequestMetrics(records, aggregate, expected);
  const server = computeServerMetrics(inputs.serverMetrics, {
    framework: context.framework,
    records,
    serverLogPaths: inputs.serverLogPaths ?? [],
  });
  const total = requestFlat.total_tput_tps;
  if (total instanceof PyFloat && context.numGpus > 0) {
    const value = (key: string): number => {
      const v = requestFlat[key];
      return v instanceof PyFloat ? v.value : 0;
    };
    (requestNested.throughput as Record<string, PyValue>).per_gpu = {
      total_tput_tps: new PyFloat(total.value / context.numGpus),
      output_tput_tps: new PyFloat(value('output_tput_tps') / context.numGpus),
      input_tput_tps: new PyFloat(value('input_tput_tps') / context.numGpus),
    };
  }
  agg.request_metrics = requestNested;
  agg.server_metrics = server.nested as unknown as PyValue;
  agg.kv_cache_pool_tokens = server.nested.kv_cache.gpu_total_tokens ?? null;
  if (server.warnings.length > 0) agg.warnings = server.warnings;
  return {
    body: roundFloats(agg) as Record<string, PyValue>,
    numRequestsSuccessful: records.length,
    accounting,
  };
}

/** The aggregate of an AIPerf artifact directory; `serverLogPaths` are the engine logs searched for the KV capacity. */
export function aggregateAgentic(
  artifactDir: string,
  context: AgenticContext,
  options: { serverLogPaths?: readonly string[]; cwd?: string } = {},
): AgenticAggregate {
  const dir = resolve(options.cwd ?? '.', artifactDir);
  const jsonl = join(dir, 'profile_export.jsonl');
  if (!isFile(jsonl)) {
    throw new UserError(`${pyPath(join(artifactDir, 'profile_export.jsonl'))} not found`, {
      hint: 'point at the aiperf_artifacts folder (or its run child) of an agentic replay',
    });
  }
  const { records, accounting } = loadRecordsWithAccounting(jsonl);
  return buildAgenticAggregate(
    {
      records,
      accounting,
      aggregate: readAggregate(join(dir, 'profile_export_aiperf.json')),
      serverMetrics: loadServerMetrics(join(dir, 'server_metrics_export.json')),
      serverLogPaths: options.serverLogPaths,
    },
    context,
  );
}

/** As the reference's main(): the artifacts under `resultDir` and the engine logs around it. */
export function aggregateAgenticResultDir(resultDir: string, context: AgenticContext): AgenticAggregate {
  return aggregateAgentic(resolveArtifactDir(resultDir), context, { serverLogPaths: findServerLogPaths(resultDir) });
}

/** The aggregate file's text, byte-identical to `json.dump(round_floats(agg), f, indent=2)`. */
export const agenticAggregateJson = (agg: AgenticAggregate): string => dumps(agg.body, { indent: 2 });

const get = (v: PyValue | undefined, key: string): PyValue | undefined =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) && !(v instanceof PyFloat) && !(v instanceof Map)
    ? (v as Record<string, PyValue>)[key]
    : undefined;

const numberOf = (v: PyValue | undefined): number | null =>
  v instanceof PyFloat ? v.value : typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null;

const fixed = (v: PyValue | undefined, digits: number): string => pyFixed(numberOf(v) ?? 0, digits);
const percent = (v: PyValue | undefined): string => `${pyFixed((numberOf(v) ?? 0) * 100, 1)}%`;
const present = (v: PyValue | undefined): boolean => v !== undefined && v !== null;

/** The lines the reference prints after saving (the first names the output file). */
export function agenticSummaryLines(agg: AgenticAggregate, outputPath: string): string[] {
  const a = agg.accounting;
  const lines = [
    `Saved aggregated agentic result to ${outputPath}`,
    `  Requests: ${agg.numRequestsSuccessful} successful / ${a.records_total} total (${a.records_warmup_dropped} warmup, ${a.records_error_dropped} error dropped)`,
  ];
  const requestMetrics = agg.body.request_metrics;
  const qps = get(requestMetrics, 'qps');
  if (get(qps, 'mean') !== undefined) {
    lines.push(`  QPS: mean=${fixed(get(qps, 'mean'), 2)} p75=${fixed(get(qps, 'p75'), 2)} p95=${fixed(get(qps, 'p95'), 2)}`);
  }
  const server = agg.body.server_metrics;
  const cache = get(server, 'cache');
  const kvCache = get(server, 'kv_cache');
  if (present(get(cache, 'gpu_cache_hit_rate'))) lines.push(`  GPU cache hit rate: ${percent(get(cache, 'gpu_cache_hit_rate'))}`);
  if (present(get(cache, 'cpu_cache_hit_rate')))
    lines.push(`  CPU/offload cache hit rate: ${percent(get(cache, 'cpu_cache_hit_rate'))}`);
  if (present(get(cache, 'external_cache_hit_rate')))
    lines.push(`  External cache hit rate: ${percent(get(cache, 'external_cache_hit_rate'))}`);
  if (present(get(kvCache, 'gpu_usage_pct'))) lines.push(`  GPU KV cache usage:  ${percent(get(kvCache, 'gpu_usage_pct'))}`);
  if (present(get(kvCache, 'gpu_total_tokens')))
    lines.push(`  GPU KV cache capacity: ${numberOf(get(kvCache, 'gpu_total_tokens'))} tokens`);
  const requestCache = get(requestMetrics, 'cache');
  if (present(get(requestCache, 'theoretical_cache_hit_rate'))) {
    lines.push(`  Theoretical cache hit rate: ${percent(get(requestCache, 'theoretical_cache_hit_rate'))}`);
  }
  const perGpu = get(get(requestMetrics, 'throughput'), 'per_gpu');
  if (present(get(perGpu, 'total_tput_tps')))
    lines.push(`  Throughput per GPU: ${fixed(get(perGpu, 'total_tput_tps'), 0)} tok/s`);
  return lines;
}
