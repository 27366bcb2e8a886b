/** Builders shared by the agentic aggregation tests: the records and artifact folders the reference's tests write inline. */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agenticAggregateJson, agenticContextFromEnv, aggregateAgenticResultDir } from '../../../src/results/index.js';

/** Parsed JSON in a test: the reference's tests index it freely, and each assertion checks the shape it reads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface RecordSpec {
  convId: string;
  turnIndex: number;
  isl: number;
  osl: number;
  ttftMs: number;
  e2eMs: number;
  itlMs: number;
  startNs: number;
  endNs: number;
}

/** One profile_export.jsonl record, as `_make_record` in the reference's tests. */
export function makeRecord(s: RecordSpec): Json {
  const record: unknown = {
    metadata: {
      session_num: 0,
      x_correlation_id: 'x'.repeat(36),
      conversation_id: s.convId,
      turn_index: s.turnIndex,
      request_start_ns: s.startNs,
      request_ack_ns: s.startNs + 100,
      request_end_ns: s.endNs,
      worker_id: 'worker_test',
      benchmark_phase: 'profiling',
      was_cancelled: false,
      cancellation_time_ns: null,
    },
    metrics: {
      input_sequence_length: { value: s.isl, unit: 'tokens' },
      output_sequence_length: { value: s.osl, unit: 'tokens' },
      time_to_first_token: { value: s.ttftMs, unit: 'ms' },
      request_latency: { value: s.e2eMs, unit: 'ms' },
      inter_token_latency: { value: s.itlMs, unit: 'ms' },
    },
    error: null,
  };
  return record as Json;
}

export const tempDir = (): string => mkdtempSync(join(tmpdir(), 'frontier-agentic-'));

export function writeJsonl(path: string, records: unknown[]): void {
  writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

export const writeJson = (path: string, value: unknown): void => writeFileSync(path, JSON.stringify(value));

export const appendJsonl = (path: string, record: unknown): void => appendFileSync(path, `${JSON.stringify(record)}\n`);

/** `results/` with aiperf_artifacts/ holding records and an aggregate: `_write_fixture`, no server metrics. */
export function writeFixture(tmp: string): string {
  const resultDir = join(tmp, 'results');
  const artifact = join(resultDir, 'aiperf_artifacts');
  mkdirSync(artifact, { recursive: true });
  const r = (
    convId: string,
    turnIndex: number,
    isl: number,
    osl: number,
    ttftMs: number,
    e2eMs: number,
    itlMs: number,
    startNs: number,
    endNs: number,
  ) => makeRecord({ convId, turnIndex, isl, osl, ttftMs, e2eMs, itlMs, startNs, endNs });
  writeJsonl(join(artifact, 'profile_export.jsonl'), [
    r('trace-A', 0, 100, 50, 30.0, 1000.0, 18.0, 1_000_000_000, 2_000_000_000),
    r('trace-A', 1, 180, 60, 35.0, 1100.0, 18.5, 2_500_000_000, 3_700_000_000),
    r('trace-B', 0, 120, 40, 32.0, 900.0, 17.5, 1_500_000_000, 2_300_000_000),
    r('trace-B', 1, 200, 70, 40.0, 1400.0, 19.0, 3_000_000_000, 4_500_000_000),
    r('trace-A', 2, 240, 55, 33.0, 1050.0, 18.2, 4_000_000_000, 5_100_000_000),
  ]);
  writeJson(join(artifact, 'profile_export_aiperf.json'), {
    request_count: 5,
    benchmark_duration: 4.1,
    request_latency: { avg: 1090.0, unit: 'ms' },
    metadata: {
      dataset: {
        source_type: 'public_dataset',
        loader: 'semianalysis_cc_traces_weka_with_subagents',
        hf_dataset_name: 'semianalysisai/cc-traces-weka-062126',
        hf_split: 'train',
        num_dataset_entries: 393,
      },
    },
  });
  return resultDir;
}

/** The variables `_run_processor` sets. */
export function baseEnv(resultDir: string): Record<string, string> {
  return {
    MODEL: 'test-model',
    MODEL_PREFIX: 'test/prefix',
    FRAMEWORK: 'vllm',
    PRECISION: 'fp4',
    TP: '4',
    PP_SIZE: '1',
    DCP_SIZE: '1',
    PCP_SIZE: '1',
    EP_SIZE: '1',
    DP_ATTENTION: 'false',
    CONC: '8',
    KV_OFFLOADING: 'none',
    RUNNER_TYPE: 'b200-x4',
    IMAGE: 'test/image:0.1',
    RECIPE_FINGERPRINT: 'b'.repeat(64),
    SPEC_DECODING: 'none',
    DISAGG: 'false',
    IS_MULTINODE: 'false',
    HF_HUB_CACHE: join(resultDir, '_no_such_cache'),
  };
}

/** Aggregate a result folder as the reference's main() does, and read the file back as JSON. */
export function runProcessor(resultDir: string, overrides: Record<string, string> = {}): Json {
  const context = agenticContextFromEnv({ ...baseEnv(resultDir), ...overrides });
  return JSON.parse(agenticAggregateJson(aggregateAgenticResultDir(resultDir, context))) as Json;
}

export const SERVER_METRICS_KEYS = ['present', 'adapter', 'metric_count', 'cache', 'kv_cache', 'kv_offload', 'tokens', 'sources'];
export const SERVER_CACHE_KEYS = [
  'gpu_cache_hit_rate',
  'cpu_cache_hit_rate',
  'external_cache_hit_rate',
  'overall_cache_hit_rate',
  'prefix_cache_hits',
  'prefix_cache_queries',
  'external_prefix_cache_hits',
  'external_prefix_cache_queries',
  'cached_tokens_by_source',
  'frontend_cache_hit_rate',
  'router_kv_hit_rate',
  'router_shared_cache_hit_rate',
  'frontend_cached_tokens',
  'frontend_input_tokens',
];
const sorted = (o: object): string[] => Object.keys(o).sort();

export function serverSchemaProblems(agg: Json): string[] {
  const s = agg.server_metrics;
  const problems: string[] = [];
  const check = (what: string, got: object, want: string[]): void => {
    if (sorted(got).join() !== [...want].sort().join()) problems.push(`${what}: ${sorted(got).join()}`);
  };
  check('server_metrics', s, SERVER_METRICS_KEYS);
  check('cache', s.cache, SERVER_CACHE_KEYS);
  check('kv_cache', s.kv_cache, ['gpu_usage_pct', 'gpu_total_tokens', 'cpu_usage_pct', 'cpu_used_tokens', 'cpu_total_tokens']);
  check('kv_offload', s.kv_offload, [
    'bytes_gpu_to_cpu',
    'bytes_cpu_to_gpu',
    'time_gpu_to_cpu',
    'time_cpu_to_gpu',
    'bandwidth_gpu_to_cpu_bytes_per_second',
    'bandwidth_cpu_to_gpu_bytes_per_second',
  ]);
  check('tokens', s.tokens, ['prompt_total', 'generation_total', 'requests_completed', 'prompt_by_source']);
  check('prompt_by_source', s.tokens.prompt_by_source, ['gpu_cache_hit', 'cpu_or_external_cache_hit', 'computed', 'raw']);
  return problems;
}

export function requestSchemaProblems(agg: Json): string[] {
  const r = agg.request_metrics;
  const problems: string[] = [];
  const check = (what: string, got: object, want: string[]): void => {
    if (sorted(got).join() !== [...want].sort().join()) problems.push(`${what}: ${sorted(got).join()}`);
  };
  check('request_accounting', agg.request_accounting, [
    'records_total',
    'records_profiled',
    'records_dropped_total',
    'records_warmup_dropped',
    'records_error_dropped',
    'error_categories',
  ]);
  check('request_metrics', r, ['qps', 'latency', 'tokens', 'throughput', 'cache']);
  check('latency', r.latency, [
    'ttft',
    'e2el',
    'itl',
    'tpot',
    'intvty',
    'e2e_norm_intvty',
    'full_response_itl',
    'full_response_intvty',
  ]);
  check('tokens', r.tokens, ['input', 'output_actual', 'output_expected']);
  check('throughput', r.throughput, ['input', 'output', 'total', 'duration_seconds', 'per_gpu']);
  check('cache', r.cache, ['theoretical_cache_hit_rate']);
  return problems;
}
