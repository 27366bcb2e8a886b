/**
 * Agentic points as the store keeps them, read from InferenceX's agentic aggregate (the JSON
 * `utils/agentic/aggregation/process_agentic_result.py` writes, one per concurrency): the config's
 * identity, the KV offloading that completes it, and the headline numbers found at their nested
 * keys. Pure, like rows.ts: problems are recorded (file, index, key, why), never thrown.
 */
import type { AgenticPointRow, TtftBucket } from '../contract/index.js';
import { Fields, asObject, identity } from './rows.js';
import type { ConfigIdentity, IngestProblem } from './rows.js';

/** The headline numbers: a column each, read from this key path of the aggregate. */
export const AGENTIC_HEADLINE = {
  tput_per_gpu: 'request_metrics.throughput.per_gpu.total_tput_tps',
  output_tput_per_gpu: 'request_metrics.throughput.per_gpu.output_tput_tps',
  input_tput_per_gpu: 'request_metrics.throughput.per_gpu.input_tput_tps',
  mean_intvty: 'request_metrics.latency.intvty.mean',
  median_intvty: 'request_metrics.latency.intvty.p50',
  mean_ttft: 'request_metrics.latency.ttft.mean',
  median_ttft: 'request_metrics.latency.ttft.p50',
  p90_ttft: 'request_metrics.latency.ttft.p90',
  p95_ttft: 'request_metrics.latency.ttft.p95',
  mean_e2el: 'request_metrics.latency.e2el.mean',
  median_e2el: 'request_metrics.latency.e2el.p50',
  p90_e2el: 'request_metrics.latency.e2el.p90',
  median_itl: 'request_metrics.latency.itl.p50',
  gpu_cache_hit_rate: 'server_metrics.cache.gpu_cache_hit_rate',
  cpu_cache_hit_rate: 'server_metrics.cache.cpu_cache_hit_rate',
  theoretical_cache_hit_rate: 'request_metrics.cache.theoretical_cache_hit_rate',
  gpu_kv_usage: 'server_metrics.kv_cache.gpu_usage_pct',
  kv_cache_pool_tokens: 'kv_cache_pool_tokens',
} as const satisfies Partial<Record<keyof AgenticPointRow, string>>;

export type AgenticHeadline = keyof typeof AGENTIC_HEADLINE;

export interface AgenticInput {
  config: ConfigIdentity;
  conc: number;
  runner: string;
  kv_offloading: string;
  kv_offload_backend: string;
  allocated_cpu_dram_gb: number;
  num_requests_total: number;
  num_requests_successful: number;
  num_errors: number;
  headline: Record<AgenticHeadline, number | null>;
  /** The whole aggregate, as read. */
  aggregate: Record<string, unknown>;
  /** From the point's profile_export.jsonl, when the run kept it. */
  ttft_by_context: TtftBucket[] | null;
  /** The aggregate's file, relative to the run directory; its raw records' folder is named after its stem. */
  file: string;
}

const SCENARIO = 'agentic-coding';

export const isAgenticRow = (row: unknown): boolean =>
  row !== null && typeof row === 'object' && (row as Record<string, unknown>).scenario_type === SCENARIO;

/** One agentic aggregate (or one row of an aggregate array, `index`); undefined when it has problems. */
export function readAgenticRow(
  row: unknown,
  file: string,
  index: number | undefined,
  problems: IngestProblem[],
): AgenticInput | undefined {
  const obj = asObject(row, file, index, problems);
  if (!obj) return undefined;
  const before = problems.length;
  const bad = (field: string, message: string) =>
    problems.push({ file, ...(index === undefined ? {} : { index }), field, message });
  const shown = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 60));
  if (obj.scenario_type !== SCENARIO) bad('scenario_type', `expected "${SCENARIO}", got ${shown(obj.scenario_type)}`);
  const f = new Fields(obj, file, index, problems);
  const config = identity(f, 'infmax_model_prefix');
  const conc = f.int('conc');
  const kvOffloading = f.text('kv_offloading');
  const backend = obj.kv_offload_backend;
  let kvBackend = '';
  if (backend !== undefined && backend !== null) {
    const name = typeof backend === 'string' ? backend : (backend as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '' && typeof backend !== 'number') kvBackend = name;
    else bad('kv_offload_backend', `expected null or {name, version?}, got ${shown(backend)}`);
  }
  for (const section of ['request_metrics', 'server_metrics']) {
    const v = obj[section];
    if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(section, `expected an object, got ${shown(v)}`);
  }
  const accounting = obj.request_accounting as Record<string, unknown> | undefined;
  const errors = accounting?.records_error_dropped ?? 0;
  if (!Number.isInteger(errors) || (errors as number) < 0)
    bad('request_accounting.records_error_dropped', `expected an integer ≥ 0, got ${shown(errors)}`);

  const headline = {} as Record<AgenticHeadline, number | null>;
  for (const [column, path] of Object.entries(AGENTIC_HEADLINE) as [AgenticHeadline, string][]) {
    const v = valueAt(obj, path);
    // Python's NaN (a statistic over no samples) means no value, as null does.
    if (v === undefined || v === null || (typeof v === 'number' && Number.isNaN(v))) headline[column] = null;
    else if (typeof v === 'number' && Number.isFinite(v) && v >= 0) headline[column] = v;
    else {
      bad(path, `expected a finite number ≥ 0 or null, got ${shown(v)}`);
      headline[column] = null;
    }
  }
  const out: AgenticInput = {
    config,
    conc,
    runner: f.text('hw'),
    kv_offloading: kvOffloading.toLowerCase(),
    kv_offload_backend: kvBackend,
    allocated_cpu_dram_gb: f.int('allocated_cpu_dram_gb', 0, 0),
    num_requests_total: f.int('num_requests_total', undefined, 0),
    num_requests_successful: f.int('num_requests_successful', undefined, 0),
    num_errors: Number.isInteger(errors) ? (errors as number) : 0,
    headline,
    aggregate: obj,
    ttft_by_context: null,
    file,
  };
  return problems.length === before ? out : undefined;
}

/** The value at a dotted key path; undefined where the path leaves the objects. */
function valueAt(obj: Record<string, unknown>, path: string): unknown {
  let v: unknown = obj;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The natural key of an agentic point within a run. */
export function agenticKey(a: AgenticInput, configKey: string): string {
  return JSON.stringify([configKey, a.kv_offloading, a.kv_offload_backend, a.allocated_cpu_dram_gb, a.conc]);
}
