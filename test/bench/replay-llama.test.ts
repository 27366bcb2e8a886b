// The trace replay against a REAL llama.cpp llama-server (the tiny GPT-2-vocabulary model of
// test/llama-server.test.ts): a small synthetic corpus replayed once, aggregated and validated as
// InferenceX does it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_DEFAULTS, replayTraces } from '../../src/bench/index.js';
import {
  agenticContextFromEnv,
  aggregateAgentic,
  agenticAggregateJson,
  validateAgenticArtifacts,
} from '../../src/results/index.js';
import { DEFAULT_SYNTH_OPTIONS, synthTraces } from '../../src/traces/index.js';
import { startLlamaServer } from '../support/llama-server.js';
import type { LlamaServer } from '../support/llama-server.js';

let server: LlamaServer;
let dir: string;

beforeAll(async () => {
  server = await startLlamaServer({ parallel: 2, ctx: 2048 });
  dir = mkdtempSync(join(tmpdir(), 'replay-llama-'));
}, 20 * 60_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trace replay against llama.cpp', () => {
  it('replays a small corpus, and InferenceX’s aggregation finds it valid', async () => {
    // Contexts of a few hundred tokens in 16-token blocks (the tiny model serves 2048 per slot).
    const traces = synthTraces({ ...DEFAULT_SYNTH_OPTIONS, traces: 3, scale: 0.02, blockSize: 16, maxOutput: 32 });
    const artifacts = join(dir, 'aiperf_artifacts');
    const report = await replayTraces(traces, {
      ...REPLAY_DEFAULTS,
      baseUrl: server.url,
      model: 'tiny',
      concurrency: 2,
      warmupRequestsPerLane: 1,
      liveAssistant: false,
      dynamoSessionBinding: false,
      dynamoSessionHeader: false,
      maxContextLength: 2048,
      failedRequestThreshold: 0.1,
      serverMetricsUrls: [],
      outputDir: artifacts,
    });
    expect(report.failure).toBeUndefined();
    const profiled = report.records.filter((r) => r.phase === 'profiling');
    expect(profiled.length).toBeGreaterThan(3);
    // The server's own counts: a prompt of whole 16-token blocks (GPT-2 words) plus the chat template.
    for (const r of profiled) {
      expect(r.result.error).toBeUndefined();
      expect(r.result.usage!.prompt_tokens).toBeGreaterThanOrEqual(r.recordedInput);
      expect(r.result.usage!.completion_tokens).toBe(r.maxTokens);
    }
    expect(validateAgenticArtifacts(artifacts, 0.1)).toEqual([]);
    const env = { KV_OFFLOADING: 'none', FRAMEWORK: 'llama.cpp', CONC: '2', TP: '1', RUNNER_TYPE: 'cpu', MODEL: 'tiny' };
    const agg = JSON.parse(agenticAggregateJson(aggregateAgentic(artifacts, agenticContextFromEnv(env)))) as {
      num_requests_successful: number;
      request_metrics: { latency: { ttft: { p50: number } }; throughput: { per_gpu: { output_tput_tps: number } } };
    };
    expect(agg.num_requests_successful).toBe(profiled.length);
    expect(agg.request_metrics.latency.ttft.p50).toBeGreaterThan(0);
    expect(agg.request_metrics.throughput.per_gpu.output_tput_tps).toBeGreaterThan(0);
    expect(readFileSync(join(artifacts, 'profile_export.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(
      report.records.length,
    );
  }, 300_000);
});
