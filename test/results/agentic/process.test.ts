/**
 * The cases of InferenceX's utils/agentic/aggregation/test_process_agentic_result.py (34 with
 * the parametrised ones), over the same inline artifacts, through the library the CLI calls.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PyFloat } from '../../../src/pycompat/index.js';
import {
  agenticContextFromEnv,
  computeRequestMetrics,
  computeServerMetrics,
  gpuShape,
  loadRecordsWithAccounting,
  loadServerMetrics,
} from '../../../src/results/index.js';
import {
  appendJsonl,
  makeRecord,
  requestSchemaProblems,
  runProcessor,
  serverSchemaProblems,
  tempDir,
  writeFixture,
  writeJson,
  writeJsonl,
} from './support.js';
import type { Json } from './support.js';

const AGG_TOP_LEVEL_KEYS = [
  'infmax_model_prefix',
  'model',
  'hw',
  'framework',
  'precision',
  'conc',
  'scenario_type',
  'is_multinode',
  'tp',
  'pp',
  'dcp_size',
  'pcp_size',
  'ep',
  'dp_attention',
  'kv_offloading',
  'kv_offload_backend',
  'allocated_cpu_dram_gb',
  'num_requests_total',
  'num_requests_successful',
  'request_accounting',
  'request_metrics',
  'server_metrics',
  'kv_cache_pool_tokens',
];

const plain = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(v, (_k, x: unknown) => (x instanceof PyFloat ? x.value : x instanceof Map ? Object.fromEntries(x) : x)),
  );

const rec = (i: {
  conv?: string;
  turn?: number;
  isl?: number;
  osl?: number;
  ttft?: number;
  e2e?: number;
  itl?: number;
  start: number;
  end: number;
}) =>
  makeRecord({
    convId: i.conv ?? 'trace-A',
    turnIndex: i.turn ?? 0,
    isl: i.isl ?? 100,
    osl: i.osl ?? 50,
    ttftMs: i.ttft ?? 30.0,
    e2eMs: i.e2e ?? 1000.0,
    itlMs: i.itl ?? 10.0,
    startNs: i.start,
    endNs: i.end,
  });

function freshArtifacts(): { tmp: string; resultDir: string; artifact: string } {
  const tmp = tempDir();
  const resultDir = join(tmp, 'results');
  const artifact = join(resultDir, 'aiperf_artifacts');
  mkdirSync(artifact, { recursive: true });
  return { tmp, resultDir, artifact };
}

function withServerMetrics(serverMetrics: unknown): string {
  const resultDir = writeFixture(tempDir());
  writeJson(join(resultDir, 'aiperf_artifacts', 'server_metrics_export.json'), serverMetrics);
  return resultDir;
}

const counter = (total: number, labels?: Record<string, string>) => ({ ...(labels ? { labels } : {}), stats: { total } });

describe('process_agentic_result cases', () => {
  it('emits nested request and server metrics, no flat keys at the top', () => {
    const resultDir = writeFixture(tempDir());
    const agg = runProcessor(resultDir);
    expect(agg.recipe_fingerprint).toBe('b'.repeat(64));
    expect(AGG_TOP_LEVEL_KEYS.filter((k) => !(k in agg))).toEqual([]);
    const { records } = loadRecordsWithAccounting(join(resultDir, 'aiperf_artifacts', 'profile_export.jsonl'));
    const [flat] = computeRequestMetrics(records, {});
    expect(Object.keys(flat).filter((k) => k in agg)).toEqual([]);
    const server = computeServerMetrics({}, { framework: 'vllm', records });
    expect(Object.keys(server.flat).filter((k) => k in agg)).toEqual([]);
    expect(requestSchemaProblems(agg)).toEqual([]);
    expect(serverSchemaProblems(agg)).toEqual([]);
  });

  it('preserves dataset provenance', () => {
    const agg = runProcessor(writeFixture(tempDir()));
    expect(agg.dataset).toEqual({
      source_type: 'public_dataset',
      loader: 'semianalysis_cc_traces_weka_with_subagents',
      hf_dataset_name: 'semianalysisai/cc-traces-weka-062126',
      hf_split: 'train',
      num_dataset_entries: 393,
    });
  });

  it('emits component metadata when present', () => {
    const agg = runProcessor(writeFixture(tempDir()), {
      ROUTER_METADATA: JSON.stringify({ name: 'vllm-router', version: '0.1.14' }),
      KV_P2P_TRANSFER: 'mooncake',
    });
    expect(agg.router).toEqual({ name: 'vllm-router', version: '0.1.14' });
    expect(agg.kv_p2p_transfer).toBe('mooncake');
  });

  it('omits component metadata when absent', () => {
    const agg = runProcessor(writeFixture(tempDir()));
    expect('router' in agg).toBe(false);
    expect('kv_p2p_transfer' in agg).toBe(false);
  });

  for (const metadata of [{ name: 'lmcache' }, { name: 'lmcache', version: '0.5.1' }]) {
    it(`emits KV offload backend metadata ${JSON.stringify(metadata)}`, () => {
      const agg = runProcessor(writeFixture(tempDir()), {
        KV_OFFLOADING: 'dram',
        KV_OFFLOAD_BACKEND: 'lmcache',
        KV_OFFLOAD_BACKEND_METADATA: JSON.stringify(metadata),
      });
      expect(agg.kv_offload_backend).toEqual(metadata);
    });
  }

  it('reports latencies in seconds (AIPerf writes ms)', () => {
    const agg = runProcessor(writeFixture(tempDir()));
    const latency = agg.request_metrics.latency;
    expect(latency.ttft.mean).toBeGreaterThan(0.02);
    expect(latency.ttft.mean).toBeLessThan(0.05);
    expect(latency.ttft.p50).toBeGreaterThan(0.02);
    expect(latency.ttft.p50).toBeLessThan(0.05);
    expect(latency.e2el.mean).toBeGreaterThan(0.5);
    expect(latency.e2el.mean).toBeLessThan(2.0);
    expect(latency.itl.mean).toBeGreaterThan(0.01);
    expect(latency.itl.mean).toBeLessThan(0.03);
    expect(requestSchemaProblems(agg)).toEqual([]);
    for (const key of ['mean_ttft', 'p50_ttft', 'p90_itl']) expect(key in agg).toBe(false);
  });

  it('derives interactivity from the matching ITL percentile', () => {
    const { resultDir, artifact } = freshArtifacts();
    [10.0, 20.0, 100.0].forEach((itl, idx) =>
      appendJsonl(
        join(artifact, 'profile_export.jsonl'),
        rec({ conv: `trace-${idx}`, itl, start: (idx + 1) * 1e9, end: (idx + 2) * 1e9 }),
      ),
    );
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 3 });
    const latency = runProcessor(resultDir).request_metrics.latency;
    for (const p of ['p90', 'p75', 'p50', 'mean']) expect(latency.intvty[p]).toBeCloseTo(1 / latency.itl[p], 0);
    for (const p of ['p90', 'p75', 'p50', 'mean']) expect(Math.abs(latency.intvty[p] * latency.itl[p] - 1)).toBeLessThan(0.01);
    expect(latency.intvty.p90).toBeLessThan(20);
  });

  it('aggregates E2E-normalised interactivity from the slow tail', () => {
    const { resultDir, artifact } = freshArtifacts();
    writeJsonl(join(artifact, 'profile_export.jsonl'), [
      rec({ conv: 'trace-fast', e2e: 1000.0, start: 1e9, end: 2e9 }),
      rec({ conv: 'trace-slow', e2e: 2000.0, start: 2e9, end: 4e9 }),
    ]);
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 2 });
    const agg = runProcessor(resultDir);
    const m = agg.request_metrics.latency.e2e_norm_intvty;
    expect(m.mean).toBeCloseTo(1 / 0.03, 4);
    expect(m.p75).toBeCloseTo(1 / 0.035, 4);
    expect(m.p90).toBeCloseTo(1 / 0.038, 4);
    expect(m.std).toBeCloseTo(12.5, 4);
    expect(m.p50 >= m.p75 && m.p75 >= m.p90 && m.p90 >= m.p95).toBe(true);
    expect('p99' in m).toBe(false);
    expect(requestSchemaProblems(agg)).toEqual([]);
  });

  it('pairs E2EL and OSL within each record', () => {
    const missingOsl = rec({ conv: 'trace-missing-osl', start: 1e9, end: 2e9 });
    delete missingOsl.metrics.output_sequence_length;
    const missingE2el = rec({ conv: 'trace-missing-e2el', start: 2e9, end: 3e9 });
    delete missingE2el.metrics.request_latency;
    const [, nested] = computeRequestMetrics([missingOsl, missingE2el]);
    expect(plain((nested.latency as Json).e2e_norm_intvty)).toEqual({});
  });

  it('skips non-positive and non-finite E2EL/OSL values', () => {
    const invalid: [number, number][] = [
      [0.0, 50],
      [-1.0, 50],
      [NaN, 50],
      [Infinity, 50],
      [1000.0, 0],
      [1000.0, -1],
      [1000.0, NaN],
      [1000.0, Infinity],
    ];
    const records = invalid.map(([e2e, osl], idx) =>
      rec({ conv: `trace-invalid-${idx}`, e2e, osl, start: (idx + 1) * 1e9, end: (idx + 2) * 1e9 }),
    );
    records.push(rec({ conv: 'trace-valid', start: 10e9, end: 11e9 }));
    // Python floats NaN and inf reach the records as such.
    for (const r of records) {
      r.metrics.request_latency.value = new PyFloat(r.metrics.request_latency.value) as unknown as Json;
      r.metrics.output_sequence_length.value = Number.isFinite(r.metrics.output_sequence_length.value)
        ? r.metrics.output_sequence_length.value
        : (new PyFloat(r.metrics.output_sequence_length.value) as unknown as Json);
    }
    const [, nested] = computeRequestMetrics(records);
    expect(plain((nested.latency as Json).e2e_norm_intvty)).toEqual({ mean: 50, p50: 50, p75: 50, p90: 50, p95: 50, std: 0 });
  });

  it('has empty E2E-normalised interactivity without valid samples', () => {
    const [, nested] = computeRequestMetrics([]);
    expect(plain((nested.latency as Json).e2e_norm_intvty)).toEqual({});
  });

  it('divides throughput per GPU by TP × PP × PCP', () => {
    const agg = runProcessor(writeFixture(tempDir()), { TP: '4', PP_SIZE: '2', DCP_SIZE: '2', PCP_SIZE: '2' });
    const t = agg.request_metrics.throughput;
    expect([agg.pp, agg.dcp_size, agg.pcp_size]).toEqual([2, 2, 2]);
    expect(t.per_gpu.total_tput_tps).toBeCloseTo(t.total.tokens_per_second / 16, 4);
    expect(t.per_gpu.input_tput_tps).toBeCloseTo(t.input.tokens_per_second / 16, 4);
    expect(t.per_gpu.output_tput_tps).toBeCloseTo(t.output.tokens_per_second / 16, 4);
  });

  it('aggregates full-response ITL and its interactivity', () => {
    const { resultDir, artifact } = freshArtifacts();
    const itls = [5.469791, 5.0, 4.0];
    writeJsonl(
      join(artifact, 'profile_export.jsonl'),
      itls.map((full, idx) => {
        const r = rec({
          conv: `trace-${idx}`,
          osl: 26_571,
          ttft: 529.058811,
          e2e: 610.559573,
          itl: 0.003067398,
          start: (idx + 1) * 1e9,
          end: (idx + 1) * 1e9 + 145_861_451_008,
        });
        r.metrics.full_response_inter_token_latency = { value: full, unit: 'ms' };
        return r;
      }),
    );
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 3 });
    const latency = runProcessor(resultDir).request_metrics.latency;
    expect(latency.full_response_itl.p50).toBeCloseTo(0.005, 6);
    expect(latency.full_response_itl.p75).toBeCloseTo(0.00523, 6);
    expect(latency.full_response_intvty.p50).toBeCloseTo(1 / latency.full_response_itl.p50, 4);
    expect(latency.full_response_intvty.p75).toBeCloseTo(1 / 0.0052348955, 4);
    expect(latency.full_response_intvty.p75).toBeLessThan(latency.full_response_intvty.p50);
  });

  it('surfaces allocated CPU DRAM', () => {
    expect(runProcessor(writeFixture(tempDir()), { TOTAL_CPU_DRAM_GB: '2400' }).allocated_cpu_dram_gb).toBe(2400);
  });

  it('multinode: surfaces heterogeneous hardware and per-role parallelism', () => {
    const agg = runProcessor(writeFixture(tempDir()), {
      IS_MULTINODE: 'true',
      DISAGG: 'true',
      PREFILL_NUM_WORKERS: '1',
      PREFILL_TP: '8',
      PREFILL_PP_SIZE: '2',
      PREFILL_DCP_SIZE: '2',
      PREFILL_PCP_SIZE: '2',
      PREFILL_EP: '8',
      PREFILL_DP_ATTN: 'false',
      PREFILL_HARDWARE: 'b200',
      DECODE_NUM_WORKERS: '2',
      DECODE_TP: '8',
      DECODE_PP_SIZE: '2',
      DECODE_DCP_SIZE: '4',
      DECODE_PCP_SIZE: '1',
      DECODE_EP: '8',
      DECODE_DP_ATTN: 'false',
      DECODE_HARDWARE: 'h100',
    });
    expect(agg.prefill_hw).toBe('b200');
    expect(agg.decode_hw).toBe('h100');
    expect([agg.prefill_pp, agg.prefill_dcp_size, agg.prefill_pcp_size, agg.num_prefill_gpu]).toEqual([2, 2, 2, 32]);
    expect([agg.decode_pp, agg.decode_dcp_size, agg.decode_pcp_size, agg.num_decode_gpu]).toEqual([2, 4, 1, 32]);
  });

  it('multinode: omits homogeneous hardware', () => {
    const agg = runProcessor(writeFixture(tempDir()), {
      IS_MULTINODE: 'true',
      DISAGG: 'true',
      PREFILL_NUM_WORKERS: '1',
      PREFILL_TP: '8',
      DECODE_NUM_WORKERS: '2',
      DECODE_TP: '8',
    });
    expect('prefill_hw' in agg).toBe(false);
    expect('decode_hw' in agg).toBe(false);
  });

  for (const [present, missing] of [
    ['PREFILL_HARDWARE', 'DECODE_HARDWARE'],
    ['DECODE_HARDWARE', 'PREFILL_HARDWARE'],
  ] as const) {
    it(`multinode: rejects ${present} without ${missing}`, () => {
      expect(() => gpuShape({ IS_MULTINODE: 'true', [present]: 'b200' })).toThrow(/must be specified together/);
      expect(() => gpuShape({ IS_MULTINODE: 'true', [present]: 'b200', [missing]: 'b200' })).not.toThrow();
    });
  }

  it('surfaces request accounting (warm-up and error rows dropped)', () => {
    const { resultDir, artifact } = freshArtifacts();
    const profiling = rec({ start: 1e9, end: 2e9 });
    const warmup = rec({ turn: 1, e2e: 10_000.0, start: 2e9, end: 3e9 });
    warmup.metadata.benchmark_phase = 'warmup';
    const errored = rec({ turn: 2, e2e: 20_000.0, start: 3e9, end: 4e9 });
    errored.error = { type: 'HTTPStatusError', message: '500 server error' } as unknown as Json;
    writeJsonl(join(artifact, 'profile_export.jsonl'), [profiling, warmup, errored]);
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 1, error_request_count: 1 });
    const agg = runProcessor(resultDir);
    expect(agg.num_requests_total).toBe(3);
    expect(agg.num_requests_successful).toBe(1);
    expect(agg.request_accounting).toEqual({
      records_total: 3,
      records_profiled: 1,
      records_dropped_total: 2,
      records_warmup_dropped: 1,
      records_error_dropped: 1,
      error_categories: { HTTPStatusError: 1 },
    });
    expect(agg.server_metrics.tokens.requests_completed).toBe(1);
    expect(agg.request_metrics.latency.e2e_norm_intvty.mean).toBeCloseTo(50, 6);
    expect(agg.request_metrics.latency.e2e_norm_intvty.p95).toBeCloseTo(50, 6);
  });

  it('handles missing server metrics: nulls and record totals, not an error', () => {
    const agg = runProcessor(writeFixture(tempDir()));
    const s = agg.server_metrics;
    expect(s.cache.gpu_cache_hit_rate).toBeNull();
    expect(s.kv_cache.gpu_total_tokens).toBeNull();
    expect(agg.kv_cache_pool_tokens).toBeNull();
    expect(agg.request_metrics.cache.theoretical_cache_hit_rate).toBeNull();
    expect(s.tokens.prompt_total).toBe(100 + 180 + 120 + 200 + 240);
    expect(s.tokens.generation_total).toBe(50 + 60 + 40 + 70 + 55);
    expect(s.tokens.requests_completed).toBe(5);
    expect(serverSchemaProblems(agg)).toEqual([]);
    expect(s.present).toBe(false);
  });

  it('reads the GPU KV cache capacity from server.log', () => {
    const resultDir = writeFixture(tempDir());
    writeFileSync(
      join(resultDir, 'server.log'),
      [
        'INFO (EngineCore_DP0 pid=100) GPU KV cache size: 5,000,000 tokens',
        'INFO (EngineCore_DP0 pid=100) GPU KV cache size: 5,000,000 tokens',
        'INFO (EngineCore_DP1 pid=101) GPU KV cache size: 6,500,000 tokens',
      ].join('\n'),
    );
    const agg = runProcessor(resultDir);
    expect(agg.server_metrics.kv_cache.gpu_total_tokens).toBe(11_500_000);
    expect(agg.kv_cache_pool_tokens).toBe(11_500_000);
    expect(serverSchemaProblems(agg)).toEqual([]);
  });

  it('reads the SGLang KV pool from server.log', () => {
    const resultDir = writeFixture(tempDir());
    writeFileSync(
      join(resultDir, 'server.log'),
      '[2026-07-08 16:43:35] server_args=ServerArgs(tp_size=4, dp_size=4)\n[2026-07-08 16:49:59 DP0 TP0 EP0] max_total_num_tokens=4602880, chunked_prefill_size=4096',
    );
    const agg = runProcessor(resultDir, { FRAMEWORK: 'sglang' });
    expect(agg.server_metrics.kv_cache.gpu_total_tokens).toBe(18_411_520);
    expect(agg.kv_cache_pool_tokens).toBe(18_411_520);
    expect(serverSchemaProblems(agg)).toEqual([]);
  });

  it('reads the multinode GPU KV cache capacity from the worker logs', () => {
    const resultDir = writeFixture(tempDir());
    const logRoot = join(resultDir, '..');
    writeFileSync(
      join(logRoot, 'watchtower-node-a_prefill_w0.out'),
      'INFO (EngineCore_DP0 pid=100) GPU KV cache size: 5,000,000 tokens\nINFO (EngineCore_DP1 pid=101) GPU KV cache size: 6,500,000 tokens',
    );
    writeFileSync(
      join(logRoot, 'watchtower-node-b_decode_w0.out'),
      'INFO (EngineCore_DP0 pid=200) GPU KV cache size: 7,000,000 tokens',
    );
    const agg = runProcessor(resultDir);
    expect(agg.server_metrics.kv_cache.gpu_total_tokens).toBe(18_500_000);
    expect(serverSchemaProblems(agg)).toEqual([]);
  });

  it('falls back to the SGLang max_total_num_tokens gauge', () => {
    const resultDir = withServerMetrics({
      metrics: {
        'sglang:max_total_num_tokens': {
          type: 'gauge',
          series: [
            { labels: { dp_rank: '0' }, stats: { max: 1000.0 } },
            { labels: { dp_rank: '1' }, stats: { max: 1200.0 } },
          ],
        },
        'sglang:token_usage': { type: 'gauge', series: [{ stats: { max: 0.25 } }] },
      },
    });
    const agg = runProcessor(resultDir, { FRAMEWORK: 'sglang' });
    expect(agg.server_metrics.kv_cache.gpu_total_tokens).toBe(2200);
    expect(agg.server_metrics.kv_cache.gpu_usage_pct).toBeCloseTo(0.25, 6);
    expect(serverSchemaProblems(agg)).toEqual([]);
  });

  it('rejects an unknown server metrics backend', () => {
    expect(() =>
      computeServerMetrics(
        { metrics: { 'unknown_backend:cache_hits': { type: 'counter', series: [{ stats: { total: 1.0 } }] } } },
        { framework: 'unknown', records: [] },
      ),
    ).toThrow(/Unsupported agentic server metrics backend; framework='unknown', metric_names=\[unknown_backend:cache_hits\]/);
  });

  it('excludes warm-up phase records', () => {
    const { resultDir, artifact } = freshArtifacts();
    const warmup = rec({ isl: 10_000, osl: 5_000, ttft: 9_000.0, e2e: 30_000.0, itl: 900.0, start: 1e9, end: 2e9 });
    warmup.metadata.benchmark_phase = 'warmup';
    const profiling = rec({ turn: 1, start: 3e9, end: 4e9 });
    writeJsonl(join(artifact, 'profile_export.jsonl'), [warmup, profiling]);
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 1 });
    const agg = runProcessor(resultDir);
    expect(agg.num_requests_total).toBe(2);
    expect(agg.num_requests_successful).toBe(1);
    expect(agg.request_accounting).toMatchObject({
      records_total: 2,
      records_profiled: 1,
      records_dropped_total: 1,
      records_warmup_dropped: 1,
      records_error_dropped: 0,
    });
    expect(agg.server_metrics.tokens).toMatchObject({ requests_completed: 1, prompt_total: 100, generation_total: 50 });
    expect(agg.request_metrics.latency.ttft.mean).toBeCloseTo(0.03, 6);
  });

  it('rounds decimal outputs to five places', () => {
    const resultDir = withServerMetrics({
      metrics: {
        'vllm:prefix_cache_hits': { type: 'counter', series: [counter(12345.678901)] },
        'vllm:prefix_cache_queries': { type: 'counter', series: [counter(37037.036703)] },
        'vllm:kv_cache_usage_perc': { type: 'gauge', series: [{ stats: { max: 0.123456789 } }] },
      },
    });
    const agg = runProcessor(resultDir);
    expect(agg.server_metrics.cache.gpu_cache_hit_rate).toBe(0.33333);
    expect(agg.server_metrics.cache.prefix_cache_hits).toBe(12345.6789);
    expect(agg.server_metrics.kv_cache.gpu_usage_pct).toBe(0.12346);
  });

  it("parses AIPerf's real server_metrics_export.json shape", () => {
    const series = (total: number, rate: number) => [
      { endpoint_url: 'http://localhost:8888/metrics', labels: { model: 'test' }, stats: { total, rate } },
    ];
    const resultDir = withServerMetrics({
      schema_version: '1.0',
      summary: {
        endpoints_configured: ['http://localhost:8888/metrics'],
        endpoints_successful: ['http://localhost:8888/metrics'],
      },
      metrics: {
        'vllm:prefix_cache_hits': { type: 'counter', unit: 'tokens', series: series(800.0, 8.0) },
        'vllm:prefix_cache_queries': { type: 'counter', unit: 'tokens', series: series(1000.0, 10.0) },
        'vllm:prompt_tokens': { type: 'counter', unit: 'tokens', series: series(12345.0, 100.0) },
        'vllm:generation_tokens': { type: 'counter', unit: 'tokens', series: series(6789.0, 50.0) },
      },
    });
    const agg = runProcessor(resultDir);
    expect(agg.server_metrics.cache.gpu_cache_hit_rate).toBeCloseTo(0.8, 6);
    expect(agg.server_metrics.tokens.prompt_total).toBe(12345);
    expect(agg.server_metrics.tokens.generation_total).toBe(6789);
    expect(serverSchemaProblems(agg)).toEqual([]);
    expect(agg.server_metrics.adapter).toBe('vllm');
  });

  it('sums counters across series (multi-endpoint)', () => {
    const resultDir = withServerMetrics({
      metrics: {
        'vllm:prefix_cache_hits': { type: 'counter', series: [counter(100.0), counter(200.0)] },
        'vllm:prefix_cache_queries': { type: 'counter', series: [counter(400.0), counter(600.0)] },
      },
    });
    expect(runProcessor(resultDir).server_metrics.cache.gpu_cache_hit_rate).toBeCloseTo(0.3, 6);
  });

  it('surfaces vLLM KV offload transfer stats', () => {
    const resultDir = withServerMetrics({
      metrics: {
        'vllm:kv_offload_bytes_gpu_to_cpu': { type: 'counter', series: [counter(10_000_000.0)] },
        'vllm:kv_offload_bytes_cpu_to_gpu': { type: 'counter', series: [counter(5_000_000.0)] },
        'vllm:kv_offload_time_gpu_to_cpu': { type: 'counter', series: [counter(2.0)] },
        'vllm:kv_offload_time_cpu_to_gpu': { type: 'counter', series: [counter(0.5)] },
      },
    });
    expect(runProcessor(resultDir).server_metrics.kv_offload).toEqual({
      bytes_gpu_to_cpu: 10_000_000,
      bytes_cpu_to_gpu: 5_000_000,
      time_gpu_to_cpu: 2,
      time_cpu_to_gpu: 0.5,
      bandwidth_gpu_to_cpu_bytes_per_second: 5_000_000,
      bandwidth_cpu_to_gpu_bytes_per_second: 10_000_000,
    });
  });

  it('ignores the warm-up scrape for headline stats', () => {
    const resultDir = withServerMetrics({
      metrics_phase: 'profiling',
      metrics: {
        'vllm:prefix_cache_hits': { type: 'counter', series: [counter(100.0)] },
        'vllm:prefix_cache_queries': { type: 'counter', series: [counter(200.0)] },
        'vllm:prompt_tokens': { type: 'counter', series: [counter(1000.0)] },
      },
      warmup_metrics: {
        'vllm:prefix_cache_hits': { type: 'counter', series: [counter(900000.0)] },
        'vllm:prefix_cache_queries': { type: 'counter', series: [counter(900000.0)] },
        'vllm:prompt_tokens': { type: 'counter', series: [counter(900000.0)] },
      },
    });
    const agg = runProcessor(resultDir);
    expect(agg.server_metrics.cache.gpu_cache_hit_rate).toBeCloseTo(0.5, 6);
    expect(agg.server_metrics.tokens.prompt_total).toBe(1000);
  });

  it('normalises SGLang server metrics', () => {
    const resultDir = withServerMetrics({
      metrics: {
        'sglang:prompt_tokens': { type: 'counter', series: [counter(1000.0)] },
        'sglang:generation_tokens': { type: 'counter', series: [counter(200.0)] },
        'sglang:cached_tokens': {
          type: 'counter',
          series: [counter(400.0, { cache_source: 'device' }), counter(100.0, { cache_source: 'host' })],
        },
        'sglang:token_usage': { type: 'gauge', series: [{ stats: { max: 0.75 } }] },
        'sglang:hicache_host_used_tokens': { type: 'gauge', series: [{ stats: { max: 300.0 } }] },
        'sglang:hicache_host_total_tokens': { type: 'gauge', series: [{ stats: { max: 1000.0 } }] },
        'sglang:realtime_tokens': { type: 'counter', series: [counter(500.0, { mode: 'prefill_compute' })] },
      },
    });
    const agg = runProcessor(resultDir, { FRAMEWORK: 'sglang' });
    const s = agg.server_metrics;
    expect(s.adapter).toBe('sglang');
    expect(serverSchemaProblems(agg)).toEqual([]);
    expect(s.cache.gpu_cache_hit_rate).toBeCloseTo(0.4, 6);
    expect(s.cache.cpu_cache_hit_rate).toBeCloseTo(0.1, 6);
    expect(s.cache.external_cache_hit_rate).toBeCloseTo(0.1, 6);
    expect(s.cache.overall_cache_hit_rate).toBeCloseTo(0.5, 6);
    expect(s.kv_cache.gpu_usage_pct).toBeCloseTo(0.75, 6);
    expect(s.kv_cache.cpu_usage_pct).toBeCloseTo(0.3, 6);
    expect(s.tokens.prompt_by_source.computed).toBe(500);
  });

  it('normalises Dynamo server metrics', () => {
    const prefill = { dynamo_component: 'prefill', worker_id: 'p0' };
    const resultDir = withServerMetrics({
      metrics: {
        dynamo_frontend_input_sequence_tokens: { type: 'counter', series: [counter(900.0)] },
        dynamo_frontend_output_tokens: { type: 'counter', series: [counter(300.0)] },
        dynamo_frontend_cached_tokens: { type: 'counter', series: [counter(450.0)] },
        dynamo_component_router_shared_cache_hit_rate: { type: 'gauge', series: [{ stats: { avg: 0.55 } }] },
        dynamo_component_gpu_cache_usage_percent: { type: 'gauge', series: [{ stats: { max: 75.0 } }] },
        'vllm:prefix_cache_hits': { type: 'counter', series: [counter(400.0, prefill)] },
        'vllm:prefix_cache_queries': { type: 'counter', series: [counter(800.0, prefill)] },
        'vllm:prompt_tokens_by_source': {
          type: 'counter',
          series: [
            counter(300.0, { source: 'local_cache_hit' }),
            counter(150.0, { source: 'external_kv_transfer' }),
            counter(450.0, { source: 'local_compute' }),
          ],
        },
      },
    });
    const agg = runProcessor(resultDir, { FRAMEWORK: 'dynamo-vllm', IS_MULTINODE: 'true' });
    const s = agg.server_metrics;
    expect(s.adapter).toBe('dynamo-vllm');
    expect(serverSchemaProblems(agg)).toEqual([]);
    expect(s.tokens.prompt_total).toBe(900);
    expect(s.tokens.generation_total).toBe(300);
    expect(s.cache.gpu_cache_hit_rate).toBeCloseTo(0.33333, 5);
    expect(s.cache.cpu_cache_hit_rate).toBeCloseTo(0.16667, 5);
    expect(s.cache.overall_cache_hit_rate).toBeCloseTo(0.5, 6);
    expect(s.kv_cache.gpu_usage_pct).toBeCloseTo(0.75, 6);
    expect(s.cache.frontend_cache_hit_rate).toBeCloseTo(0.5, 6);
    expect(s.cache.router_shared_cache_hit_rate).toBeCloseTo(0.55, 6);
    expect((s.sources as unknown as { role: string }[]).some((source) => source.role === 'prefill')).toBe(true);
  });

  it("uses AIPerf's theoretical cache metric; expected output lengths from the HF trace cache", () => {
    const tmp = tempDir();
    const resultDir = writeFixture(tmp);
    writeJson(join(resultDir, 'aiperf_artifacts', 'profile_export_aiperf.json'), {
      request_count: 5,
      theoretical_prefix_cache_hit: { unit: '%', avg: 25.0, count: 4, sum: 1 },
    });
    const hfCache = join(tmp, '_hf');
    const snapshot = join(hfCache, 'datasets--semianalysisai--cc-traces-weka-042026', 'snapshots', 'abc');
    mkdirSync(snapshot, { recursive: true });
    // The real corpus uses the `out` alias; both spellings are read.
    writeJsonl(join(snapshot, 'traces.jsonl'), [
      {
        id: 'trace-A',
        requests: [
          { type: 'n', hash_ids: [1, 2, 3], out: 50 },
          { type: 'n', hash_ids: [1, 2, 3, 4], out: 60 },
          { type: 'n', hash_ids: [1, 2, 3, 4, 5], output_length: 55 },
        ],
      },
      {
        id: 'trace-B',
        requests: [
          { type: 'n', hash_ids: [10, 11], out: 40 },
          { type: 'n', hash_ids: [10, 11, 12, 13], out: 70 },
        ],
      },
    ]);
    const context = agenticContextFromEnv({
      MODEL: 'test-model',
      TP: '4',
      CONC: '8',
      KV_OFFLOADING: 'none',
      RUNNER_TYPE: 'h100-x4',
      HF_HUB_CACHE: hfCache,
    });
    expect(context.hfHubCache).toBe(hfCache);
    const agg = runProcessor(resultDir, { HF_HUB_CACHE: hfCache });
    expect(agg.request_metrics.cache.theoretical_cache_hit_rate).toBeCloseTo(0.25, 6);
    expect(agg.request_metrics.tokens.output_expected.mean).toBeCloseTo((50 + 60 + 55 + 40 + 70) / 5, 6);
  });

  it('supports the per-run subfolder layout', () => {
    const tmp = tempDir();
    const resultDir = join(tmp, 'results');
    const artifact = join(resultDir, 'aiperf_artifacts', 'run_0');
    mkdirSync(artifact, { recursive: true });
    writeJsonl(join(artifact, 'profile_export.jsonl'), [rec({ itl: 18.0, start: 1e9, end: 2e9 })]);
    writeJson(join(artifact, 'profile_export_aiperf.json'), { request_count: 1 });
    expect(runProcessor(resultDir).num_requests_total).toBe(1);
  });

  it('loads server metrics as {} when the file is absent', () => {
    expect(loadServerMetrics(join(tempDir(), 'server_metrics_export.json'))).toEqual({});
  });
});
