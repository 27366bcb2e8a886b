// frontier run with agentic-coding rows on the local executor: each point its own simulated engine,
// the trace replay in process, and the point's aggregate and validity as InferenceX makes them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, localExecutor } from '../../src/launch/index.js';
import type { AgenticSettings } from '../../src/launch/index.js';
import type { MatrixRow, SingleNodeAgenticRow } from '../../src/matrix/index.js';
import { specDecodeOfExport } from '../../src/bench/index.js';
import { CLI, runCli, tempFiles } from '../helpers.js';
import { agenticRow, simCluster, singleRow, smallCorpus } from './fixtures.js';

const FRONTIER = [process.execPath, CLI];

function runRows(rows: MatrixRow[], agentic: AgenticSettings | undefined, out = join(tempFiles({}), 'run'), extraArgs?: string) {
  return run({
    rows,
    matrix: { file: 'matrix.json', text: JSON.stringify(rows) },
    cluster: simCluster({ engines: { sim: { speed: 10, ...(extraArgs ? { 'extra-args': extraArgs } : {}) } } }),
    out,
    executor: localExecutor,
    frontierVersion: 'test',
    frontierCommand: FRONTIER,
    commit: null,
    ...(agentic ? { agentic } : {}),
  });
}

interface Aggregate {
  scenario_type: string;
  conc: number;
  kv_offloading: string;
  kv_offload_backend: { name: string } | null;
  allocated_cpu_dram_gb: number;
  num_requests_successful: number;
  request_metrics: { throughput: { per_gpu: { output_tput_tps: number } }; cache: { theoretical_cache_hit_rate: number } };
  server_metrics: { cache: { gpu_cache_hit_rate: number }; kv_cache: { gpu_total_tokens: number } };
}

describe('frontier run: agentic-coding rows', () => {
  it('replays the corpus at each point against a fresh engine and writes the aggregate InferenceX would', async () => {
    const out = join(tempFiles({}), 'run');
    const rows: MatrixRow[] = [
      agenticRow({ conc: 2 }),
      agenticRow({
        conc: 2,
        'kv-offloading': 'dram',
        'kv-offload-backend': { name: 'lmcache' },
        'total-cpu-dram-gb': 100,
        'exp-name': 'llama3.1-8b_tp1_conc2_kvdram-lmcache',
      }),
      singleRow({ conc: 1 }),
    ];
    const { manifest, dir } = await runRows(rows, smallCorpus(tempFiles({})), out);
    expect(manifest.status).toBe('completed');
    // One launch per agentic point, and the fixed-length row its own.
    expect(manifest.launches).toHaveLength(3);
    const agentic = manifest.points.filter((p) => p.agentic);
    expect(agentic.map((p) => p.status)).toEqual(['ok', 'ok']);
    for (const p of agentic) {
      // Its GPU power, as InferenceX's AgentX adapter measures it: over the replay's profiling window.
      expect(p.power).toEqual({ valid: true, reasons: [] });
      const verdict = JSON.parse(readFileSync(join(dir.agenticDir(p.resultFilename), 'power_validation.json'), 'utf8')) as {
        metrics: Record<string, number>;
      };
      expect(verdict.metrics.joules_per_output_token).toBeGreaterThan(0);
      const agg = JSON.parse(readFileSync(dir.agenticAggFile(p.resultFilename), 'utf8')) as Aggregate;
      expect(agg.scenario_type).toBe('agentic-coding');
      expect(agg.conc).toBe(2);
      expect(agg.num_requests_successful).toBeGreaterThan(0);
      expect(agg.request_metrics.throughput.per_gpu.output_tput_tps).toBeGreaterThan(0);
      // Turns resend their context: the engine's prefix cache finds most of it.
      expect(agg.request_metrics.cache.theoretical_cache_hit_rate).toBeGreaterThan(0.3);
      expect(agg.server_metrics.cache.gpu_cache_hit_rate).toBeGreaterThan(0.3);
      // From the engine's log ("GPU KV cache size: N tokens").
      expect(agg.server_metrics.kv_cache.gpu_total_tokens).toBeGreaterThan(0);
      expect(p.outputTputPerGpu).toBeCloseTo(agg.request_metrics.throughput.per_gpu.output_tput_tps, 5);
      const command = readFileSync(join(dir.agenticDir(p.resultFilename), 'benchmark_command.txt'), 'utf8');
      expect(command).toMatch(/^frontier bench --trace \S+traces\.jsonl .*--concurrency 2 --benchmark-duration 30 /);
      expect(command).toContain('--time-scale 10');
    }
    const dram = JSON.parse(readFileSync(dir.agenticAggFile(agentic[1]!.resultFilename), 'utf8')) as Aggregate;
    expect(dram.kv_offloading).toBe('dram');
    expect(dram.kv_offload_backend).toEqual({ name: 'lmcache' });
    expect(dram.allocated_cpu_dram_gb).toBe(100);
    // The DRAM budget reached the engine.
    const launch = readFileSync(join(dir.serverLogs(agentic[1]!.resultFilename), 'launch.sh'), 'utf8');
    expect(launch).toContain('--kv-offload-dram-gb 100');
    // InferenceX's collected aggregates hold fixed-length points only; run stats count every job.
    const collected = JSON.parse(readFileSync(join(out, 'results_bmk', 'agg_bmk.json'), 'utf8')) as unknown[];
    expect(collected).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(out, 'run_stats.json'), 'utf8'))).toEqual({ 'test-sim': { n_success: 3, total: 3 } });

    // The store takes the run as it is.
    const db = join(tempFiles({}), 'frontier.db');
    const ingest = runCli(['ingest', out, '--db', db]);
    expect(ingest.stderr + ingest.stdout).toMatch(/agentic points: 2 \(2 new\)/);
  }, 120_000);

  it('a speculative-decoding row replays at its golden AL, measured over the profiling window; another acceptance fails it', async () => {
    // AgentX: every agentic spec-decode row runs with synthetic acceptance; Qwen3.5's golden AL at the sim's 3 drafts is 3.39.
    const mtp = (o: Partial<SingleNodeAgenticRow> = {}): SingleNodeAgenticRow =>
      agenticRow({
        model: 'Qwen/Qwen3.5-397B-A17B',
        'model-prefix': 'qwen3.5',
        runner: 'h200',
        tp: 8,
        'spec-decoding': 'mtp',
        conc: 2,
        'exp-name': 'qwen3.5_tp8_conc2_mtp',
        ...o,
      });
    const corpus = smallCorpus(tempFiles({}));
    const { manifest, dir } = await runRows([mtp()], corpus);
    const [point] = manifest.points;
    expect(point!.status).toBe('ok');
    const artifacts = dir.agenticArtifacts(point!.resultFilename);
    expect(readFileSync(join(dir.agenticDir(point!.resultFilename), 'benchmark_command.txt'), 'utf8')).toContain(
      '--expected-acceptance-length 3.39',
    );
    const measured = specDecodeOfExport(JSON.parse(readFileSync(join(artifacts, 'server_metrics_export.json'), 'utf8')))!;
    expect(Math.abs(measured.acceptanceLength - 3.39)).toBeLessThan(4 * Math.sqrt((0.39 * 0.61) / measured.drafts) + 0.05);

    // The engine at another acceptance (the sim told so after the adapter's flags): the point is invalid, saying why.
    const { manifest: far } = await runRows([mtp()], corpus, join(tempFiles({}), 'run'), '--spec-acceptance 2.5');
    expect(far.points[0]!.status).toBe('invalid');
    expect(far.points[0]!.error).toMatch(/the measured acceptance length 2\.\d+ is far from the expected 3\.39/);
  }, 120_000);

  it('fails agentic rows that have no corpus, naming the option, and runs the rest', async () => {
    const { manifest, dir } = await runRows([agenticRow({ conc: 1 }), singleRow({ conc: 1 })], undefined);
    expect(manifest.points.map((p) => p.status)).toEqual(['failed', 'ok']);
    expect(manifest.points[0]!.error).toMatch(/--traces FILE/);
    expect(existsSync(dir.agenticAggFile(manifest.points[0]!.resultFilename))).toBe(false);
  }, 60_000);
});
