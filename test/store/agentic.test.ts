import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TtftBucket } from '../../src/contract/index.js';
import { IngestError, TABLES, agenticPoint, agenticPoints, ingestBatch, readArtifacts, runs } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REFERENCE_PERCENTILE } from '../../src/results/agentic/common.js';
import { percentileSorted } from '../../src/util/percentile.js';
import { REPO } from '../helpers.js';
import { DIALECTS, copyDir, editJson, storeFactory } from './helpers.js';

/** A run directory with six agentic points, aggregated by InferenceX's process_agentic_result.py (see SOURCES.md). */
const RUN = join(REPO, 'test/fixtures/agentic/store/run');
const EXPECTED_TTFT = JSON.parse(
  readFileSync(join(REPO, 'test/fixtures/agentic/store/ttft-by-context.expected.json'), 'utf8'),
) as Record<string, TtftBucket[]>;

type Agg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const aggregates = (dir: string): [string, Agg][] =>
  readdirSync(dir)
    .filter((d) => d.startsWith('bmk_agentic_'))
    .sort()
    .map((d) => {
      const rf = d.slice('bmk_agentic_'.length);
      return [rf, JSON.parse(readFileSync(join(dir, d, `${rf}.json`), 'utf8')) as Agg];
    });

const ingest = (store: Store, dir: string, o: Parameters<typeof readArtifacts>[1] = {}) =>
  ingestBatch(store, readArtifacts(dir, o));

async function rowCount(store: Store, table: (typeof TABLES)[number]): Promise<number> {
  const r = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe.each(DIALECTS)('agentic points on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('ingests every agentic point: its config, KV offloading, headline numbers, whole aggregate and TTFT by context length', async () => {
    const store = await fresh();
    const s = await ingest(store, RUN, { official: true });
    expect(s).toMatchObject({
      run_id: '20261201T120000-agentic1',
      date: '2026-12-01',
      agentic: { total: 6, new: 6, changed: 0, removed: 0 },
      benchmarks: { total: 0 },
      configs: { total: 1, new: 1 },
    });
    const rows = await agenticPoints(store, { model: 'dsr1' });
    expect(rows).toHaveLength(6);
    expect((await runs(store))[0]).toMatchObject({ points: 0, agentic_points: 6, evals: 0 });
    for (const [rf, agg] of aggregates(RUN)) {
      const row = rows.find((r) => r.conc === agg.conc && r.kv_offloading === agg.kv_offloading)!;
      expect(row).toMatchObject({
        hardware: 'h200',
        runner: 'h200-nv_0',
        framework: 'vllm',
        model: 'deepseek-ai/DeepSeek-R1-0528',
        model_prefix: 'dsr1',
        precision: 'fp8',
        decode_tp: 8,
        official: true,
        kv_offload_backend: agg.kv_offload_backend?.name ?? '',
        allocated_cpu_dram_gb: agg.allocated_cpu_dram_gb,
        num_requests_total: agg.num_requests_total,
        num_requests_successful: agg.num_requests_successful,
        num_errors: 1,
        tput_per_gpu: agg.request_metrics.throughput.per_gpu.total_tput_tps,
        output_tput_per_gpu: agg.request_metrics.throughput.per_gpu.output_tput_tps,
        median_intvty: agg.request_metrics.latency.intvty.p50,
        median_ttft: agg.request_metrics.latency.ttft.p50,
        p95_ttft: agg.request_metrics.latency.ttft.p95,
        gpu_cache_hit_rate: agg.server_metrics.cache.gpu_cache_hit_rate,
        cpu_cache_hit_rate: agg.server_metrics.cache.cpu_cache_hit_rate,
        theoretical_cache_hit_rate: agg.request_metrics.cache.theoretical_cache_hit_rate,
        gpu_kv_usage: agg.server_metrics.kv_cache.gpu_usage_pct,
        kv_cache_pool_tokens: 1048576,
      });
      const detail = (await agenticPoint(store, row.point_id))!;
      expect(detail.aggregate).toEqual(agg);
      const expected = EXPECTED_TTFT[rf];
      if (expected === undefined) {
        expect(detail.ttft_by_context).toBeNull();
        continue;
      }
      expect(detail.ttft_by_context!.map((b) => [b.min_tokens, b.max_tokens, b.count])).toEqual(
        expected.map((b) => [b.min_tokens, b.max_tokens, b.count]),
      );
      detail.ttft_by_context!.forEach((b, i) => {
        for (const k of ['mean', 'p50', 'p90', 'p99'] as const) expect(b[k]).toBeCloseTo(expected[i]![k], 12);
      });
    }
    // The records are kept for the GPU-only arm only; the offload arm has a CPU hit rate, the other none.
    expect(rows.filter((r) => r.cpu_cache_hit_rate === null).map((r) => r.kv_offloading)).toEqual(['none', 'none', 'none']);
  });

  it('a re-ingest changes nothing; one with an edited point reports it changed, one without a point removes it', async () => {
    const store = await fresh();
    await ingest(store, RUN);
    const again = await ingest(store, RUN);
    expect(again.agentic).toEqual({ total: 6, new: 0, changed: 0, removed: 0 });
    const ids = (await agenticPoints(store, { source: 'all' })).map((r) => r.point_id).sort();

    const dir = copyDir(RUN);
    const [rf] = aggregates(dir)[0]!;
    editJson(join(dir, `bmk_agentic_${rf}`, `${rf}.json`), (v) => {
      (v as Agg).request_metrics.throughput.per_gpu.total_tput_tps = 1234.5;
      return v;
    });
    const edited = await ingest(store, dir);
    expect(edited.agentic).toEqual({ total: 6, new: 0, changed: 1, removed: 0 });
    expect((await agenticPoints(store, { source: 'all' })).map((r) => r.point_id).sort()).toEqual(ids);
    expect((await agenticPoints(store, { source: 'all' })).map((r) => r.tput_per_gpu)).toContain(1234.5);

    rmSync(join(dir, `bmk_agentic_${rf}`), { recursive: true });
    const fewer = await ingest(store, dir);
    expect(fewer.agentic).toEqual({ total: 5, new: 0, changed: 0, removed: 1 });
    expect(await rowCount(store, 'agentic_points')).toBe(5);
  });

  it('lists the latest point of each config and conc among official runs, or one run’s, filtered by hardware and engine', async () => {
    const store = await fresh();
    await ingest(store, RUN, { official: true });
    const later = copyDir(RUN);
    editJson(join(later, 'run.json'), (v) => ({ ...(v as object), id: 'pr-run', started: '2026-12-05T10:00:00Z' }));
    const [rf] = aggregates(later)[0]!;
    editJson(join(later, `bmk_agentic_${rf}`, `${rf}.json`), (v) => {
      (v as Agg).request_metrics.throughput.per_gpu.total_tput_tps = 9999;
      return v;
    });
    await ingest(store, later);

    const official = await agenticPoints(store, {});
    expect(official.map((r) => r.run_id)).toEqual(Array(6).fill('20261201T120000-agentic1'));
    const unofficial = await agenticPoints(store, { source: 'unofficial' });
    expect(unofficial.map((r) => r.run_id)).toEqual(Array(6).fill('pr-run'));
    const all = await agenticPoints(store, { source: 'all' });
    expect(all).toHaveLength(6);
    expect(all.every((r) => r.run_id === 'pr-run')).toBe(true);
    expect(all.map((r) => r.tput_per_gpu)).toContain(9999);
    expect(await agenticPoints(store, { run: '20261201T120000-agentic1' })).toHaveLength(6);
    expect(await agenticPoints(store, { source: 'all', date: '2026-12-01' })).toHaveLength(6);
    expect((await agenticPoints(store, { source: 'all', date: '2026-12-01' })).every((r) => r.run_id !== 'pr-run')).toBe(true);
    expect(await agenticPoints(store, { hardware: 'H200', framework: 'vllm' })).toHaveLength(6);
    expect(await agenticPoints(store, { hardware: 'b200' })).toHaveLength(0);
    expect(await agenticPoints(store, { model: "dsr1' or 1=1 --" })).toHaveLength(0);
    expect(await agenticPoint(store, 987654)).toBeUndefined();
  });

  it('a malformed aggregate is refused naming its file and key, and nothing is written', async () => {
    const store = await fresh();
    const dir = copyDir(RUN);
    const [rf] = aggregates(dir)[2]!;
    editJson(join(dir, `bmk_agentic_${rf}`, `${rf}.json`), (v) => {
      const agg = v as Agg;
      agg.request_metrics.latency.ttft.p50 = 'fast';
      delete agg.server_metrics;
      agg.kv_offload_backend = 7;
      return agg;
    });
    let error: unknown;
    try {
      await ingest(store, dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IngestError);
    const message = (error as Error).message;
    expect(message).toContain('3 problems; nothing was written');
    expect(message).toContain(
      `bmk_agentic_${rf}/${rf}.json.request_metrics.latency.ttft.p50: expected a finite number ≥ 0 or null, got "fast"`,
    );
    expect(message).toContain(`bmk_agentic_${rf}/${rf}.json.server_metrics: expected an object, got nothing`);
    expect(message).toContain(`bmk_agentic_${rf}/${rf}.json.kv_offload_backend: expected null or {name, version?}, got 7`);
    for (const t of TABLES) expect(await rowCount(store, t)).toBe(0);
  });
});

describe('agentic ingest input', () => {
  it('a records line that is not JSON is refused naming the file and line', () => {
    const dir = copyDir(RUN);
    const raw = readdirSync(dir).find((d) => d.startsWith('agentic_'))!;
    appendFileSync(join(dir, raw, 'aiperf_artifacts/profile_export.jsonl'), '{"metrics": \n');
    const lines = readFileSync(join(dir, raw, 'aiperf_artifacts/profile_export.jsonl'), 'utf8')
      .trimEnd()
      .split('\n').length;
    expect(() => readArtifacts(dir)).toThrow(`${raw}/aiperf_artifacts/profile_export.jsonl:${lines}: not an AIPerf record`);
  });

  it('finds the records of a per-run subfolder (aiperf_artifacts/run_0/), as the reference does', () => {
    const dir = copyDir(RUN);
    const raw = readdirSync(dir).find((d) => d.startsWith('agentic_'))!;
    const records = readFileSync(join(dir, raw, 'aiperf_artifacts/profile_export.jsonl'));
    rmSync(join(dir, raw, 'aiperf_artifacts'), { recursive: true });
    mkdirSync(join(dir, raw, 'aiperf_artifacts/run_0'), { recursive: true });
    writeFileSync(join(dir, raw, 'aiperf_artifacts/run_0/profile_export.jsonl'), records);
    const batch = readArtifacts(dir);
    const point = batch.agentic.find((a) => `agentic_${a.file.split('/')[1]!.replace(/\.json$/, '')}` === raw)!;
    expect(point.ttft_by_context).toEqual(readArtifacts(RUN).agentic.find((a) => a.file === point.file)!.ttft_by_context);
    expect(batch.files).toContain(`${raw}/aiperf_artifacts/run_0/profile_export.jsonl`);
  });

  it('reads the agentic rows of a collected agg_bmk.json when the per-point folders are not there, and never twice', () => {
    const dir = copyDir(RUN);
    const aggs = aggregates(dir).map(([, a]) => a);
    mkdirSync(join(dir, 'results_bmk'));
    writeFileSync(join(dir, 'results_bmk/agg_bmk.json'), JSON.stringify(aggs));
    expect(readArtifacts(dir).agentic).toHaveLength(6);
    for (const d of readdirSync(dir).filter((d) => d.startsWith('bmk_agentic_'))) rmSync(join(dir, d), { recursive: true });
    const collected = readArtifacts(dir).agentic;
    expect(collected).toHaveLength(6);
    expect(collected.every((a) => a.ttft_by_context === null && a.file === 'results_bmk/agg_bmk.json')).toBe(true);
  });

  it('refuses one agentic point measured twice in a run', () => {
    const dir = copyDir(RUN);
    const [rf, agg] = aggregates(dir)[0]!;
    mkdirSync(join(dir, `bmk_agentic_${rf}-again`));
    writeFileSync(join(dir, `bmk_agentic_${rf}-again`, `${rf}-again.json`), JSON.stringify(agg));
    expect(() => readArtifacts(dir)).toThrow(`the same agentic point as bmk_agentic_${rf}/${rf}.json`);
  });

  it('percentiles interpolate linearly between ranks, as the reference’s', () => {
    const percentile = (sorted: number[], p: number): number => percentileSorted(sorted, p, REFERENCE_PERCENTILE);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 90)).toBeCloseTo(3.7, 12);
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([], 50)).toBe(0);
  });
});
