import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsScraper, parsePrometheus, replayTraces } from '../../src/bench/replay/index.js';
import { NO_FAULTS, buildTopology, startSimServer } from '../../src/sim/index.js';
import type { SimServer } from '../../src/sim/index.js';
import { linearTrace, options, trace, req } from './replay-support/fixtures.js';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
let sim: SimServer;
let faulty: SimServer;
const dirs: string[] = [];

async function startSim(errorRate = 0): Promise<SimServer> {
  return startSimServer({
    topology: buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' }),
    servedModelName: MODEL,
    maxModelLen: 8192,
    speed: 50,
    seed: 1,
    naturalOutputTokens: 16,
    host: '127.0.0.1',
    port: 0,
    faults: { ...NO_FAULTS, errorRate, errorStatuses: [500] },
  });
}

beforeAll(async () => {
  sim = await startSim();
  faulty = await startSim(0.5);
});
afterAll(async () => {
  await sim.close();
  await faulty.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('trace replay against the simulated engine', () => {
  it('keeps at most --concurrency requests in flight, with every lane busy at once', async () => {
    const corpus = Array.from({ length: 12 }, (_, i) => linearTrace(`c${i}`, 6, { output: 8 }));
    const report = await replayTraces(corpus, options(sim.url, { model: MODEL, concurrency: 4, warmupRequestsPerLane: 1 }));
    expect(report.maxInFlight).toBe(4);
    expect(report.failure).toBeUndefined();
    // Every trace was replayed: the four first ones from their sampled start, the other eight whole.
    const conversations = new Set(report.records.map((r) => r.conversationId));
    expect(conversations.size).toBe(12);
  });

  it('marks warmup records, starts profiling once every lane drained, and leaves warmup out of the aggregate', async () => {
    const corpus = Array.from({ length: 6 }, (_, i) => linearTrace(`w${i}`, 20, { output: 6 }));
    const report = await replayTraces(corpus, options(sim.url, { model: MODEL, concurrency: 3, warmupRequestsPerLane: 3 }));
    const warmup = report.records.filter((r) => r.phase === 'warmup');
    const profiled = report.records.filter((r) => r.phase === 'profiling');
    // A priming request and three one-token requests per lane.
    expect(warmup).toHaveLength(12);
    for (const r of warmup) expect(r.result.usage?.completion_tokens).toBe(1);
    for (const r of profiled) expect(r.result.usage?.completion_tokens).toBe(6);
    const start = report.profilingStart!;
    for (const r of warmup) expect(r.result.endAt).toBeLessThanOrEqual(start);
    for (const r of profiled) expect(r.result.sentAt).toBeGreaterThanOrEqual(start);
    // The first profiled turn of each lane follows its warmup.
    for (const lane of report.plan.lanes) {
      const id = corpus[lane.trace]!.id;
      const turns = report.records.filter((r) => r.conversationId === id && r.lane === report.plan.lanes.indexOf(lane));
      expect(turns.map((r) => r.turnIndex)[0]).toBe(lane.start);
      expect(turns.find((r) => r.phase === 'profiling')?.turnIndex).toBe(lane.profileFrom);
    }
    expect(report.aggregate.request_count).toEqual({ unit: 'requests', avg: profiled.length });
    expect(report.aggregate.warmup_request_count).toEqual({ unit: 'requests', avg: 12 });
  });

  it('writes AIPerf artifacts that parse and carry the fields the aggregation reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    dirs.push(dir);
    const sub = trace('withsub', [
      { kind: 'request', request: req(0, [1, 2]) },
      { kind: 'request', request: req(1, [1, 2, 3]) },
      {
        kind: 'subagent',
        subagent: {
          t: 2,
          agentId: 'a1',
          subagentType: 'Explore',
          duration: 1,
          requests: [req(2, [1, 5])],
          source: { file: 'm', line: 1 },
        },
      },
      { kind: 'request', request: req(4, [1, 2, 3, 4], 4, 0.01) },
    ]);
    const corpus = [...Array.from({ length: 3 }, (_, i) => linearTrace(`a${i}`, 8, { output: 5, delay: 0.01 })), sub];
    const outputDir = join(dir, 'aiperf_artifacts');
    const report = await replayTraces(
      corpus,
      options(sim.url, {
        model: MODEL,
        concurrency: 2,
        warmupRequestsPerLane: 1,
        outputDir,
        serverMetricsUrls: [`${sim.url}/metrics`],
        sliceDurationS: 0.05,
        dataset: { source_type: 'trace_file', loader: 'weka', num_dataset_entries: 4 },
      }),
    );
    const lines = readFileSync(join(outputDir, 'profile_export.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(report.records.length);
    const records = lines.map(
      (l) =>
        JSON.parse(l) as {
          metadata: Record<string, unknown>;
          metrics: Record<string, { value: number; unit: string }>;
          error: unknown;
        },
    );
    for (const r of records) {
      expect(Object.keys(r.metadata)).toEqual(
        expect.arrayContaining([
          'conversation_id',
          'x_correlation_id',
          'x_request_id',
          'turn_index',
          'benchmark_phase',
          'request_start_ns',
          'request_end_ns',
        ]),
      );
      expect(r.error).toBeNull();
      expect(r.metadata.request_end_ns as number).toBeGreaterThan(r.metadata.request_start_ns as number);
      expect(r.metadata.request_start_ns as number).toBeGreaterThan(1.7e18);
      for (const key of ['time_to_first_token', 'request_latency', 'input_sequence_length', 'output_sequence_length'])
        expect(r.metrics[key]?.value).toBeGreaterThan(0);
    }
    const profiled = records.filter((r) => r.metadata.benchmark_phase === 'profiling');
    for (const r of profiled) {
      expect(r.metrics.output_sequence_length!.value).toBe(String(r.metadata.conversation_id).startsWith('withsub') ? 4 : 5);
      expect(r.metrics.inter_token_latency!.unit).toBe('ms');
    }
    expect(records.some((r) => r.metadata.conversation_id === 'withsub::sa:a1')).toBe(true);
    const aggregate = JSON.parse(readFileSync(join(outputDir, 'profile_export_aiperf.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(aggregate.request_count).toEqual({ unit: 'requests', avg: profiled.length });
    expect(aggregate.error_request_count).toEqual({ unit: 'requests', avg: 0 });
    expect(aggregate.completed_request_count).toEqual({ unit: 'requests', avg: profiled.length });
    expect(aggregate.metadata!.dataset).toEqual({ source_type: 'trace_file', loader: 'weka', num_dataset_entries: 4 });
    for (const key of ['time_to_first_token', 'inter_token_latency', 'request_latency'])
      expect(Object.keys(aggregate[key]!)).toEqual(expect.arrayContaining(['avg', 'p50', 'p90', 'p99', 'unit']));
    expect(aggregate.request_throughput!.avg).toBeGreaterThan(0);
    // Each lane's context grows by a block a turn: most of each profiled context was sent before.
    expect(aggregate.theoretical_prefix_cache_hit!.sum as number).toBeGreaterThan(0);
    const server = JSON.parse(readFileSync(join(outputDir, 'server_metrics_export.json'), 'utf8')) as {
      metrics: Record<
        string,
        { type: string; series: { endpoint_url: string; stats: Record<string, number>; timeslices: unknown[] }[] }
      >;
    };
    // Counters under their names without `_total`, as AIPerf exports them and InferenceX's backends read them.
    expect(server.metrics).not.toHaveProperty('vllm:prompt_tokens_total');
    expect(server.metrics['vllm:prefix_cache_hits']!.type).toBe('counter');
    const prompt = server.metrics['vllm:prompt_tokens']!;
    expect(prompt.type).toBe('counter');
    expect(prompt.series[0]!.endpoint_url).toBe(`${sim.url}/metrics`);
    expect(prompt.series[0]!.stats.total).toBeGreaterThan(0);
    expect(server.metrics['vllm:kv_cache_usage_perc']!.series[0]!.stats).toHaveProperty('max');
  });

  it('stops early with a failure when the server fails more than the threshold allows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    dirs.push(dir);
    const corpus = Array.from({ length: 20 }, (_, i) => linearTrace(`e${i}`, 10));
    const report = await replayTraces(
      corpus,
      options(faulty.url, {
        model: MODEL,
        concurrency: 2,
        warmupRequestsPerLane: 0,
        failedRequestThreshold: 0.1,
        outputDir: dir,
      }),
    );
    expect(report.failure).toMatch(/failed-request-threshold/);
    expect(report.records.length).toBeLessThan(100);
    // What it has is still written.
    const lines = readFileSync(join(dir, 'profile_export.jsonl'), 'utf8').trim().split('\n');
    const errors = lines.map((l) => JSON.parse(l) as { error: { code: number; type: string } | null }).filter((r) => r.error);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.error).toMatchObject({ code: 500, type: 'HTTP 500' });
  });
});

describe('server metrics export', () => {
  it('parses Prometheus text: counters, gauges, histograms, labels', () => {
    const text = [
      '# HELP x:tokens_total Tokens.',
      '# TYPE x:tokens_total counter',
      'x:tokens_total{model_name="m",engine="0"} 10',
      '# TYPE x:usage gauge',
      'x:usage 0.5',
      '# TYPE x:ttft histogram',
      'x:ttft_bucket{le="0.1"} 1',
      'x:ttft_sum 0.3',
      'x:ttft_count 4',
    ].join('\n');
    const p = parsePrometheus(text);
    expect(p.types.get('x:ttft')).toBe('histogram');
    expect(p.samples[0]).toEqual({ name: 'x:tokens_total', labels: { model_name: 'm', engine: '0' }, value: 10 });
    const scraper = new MetricsScraper(['http://e/metrics'], 1000);
    scraper.add('http://e/metrics', p, 1e18);
    scraper.add(
      'http://e/metrics',
      parsePrometheus(
        text
          .replace('} 10', '} 25')
          .replace('usage 0.5', 'usage 0.9')
          .replace('_sum 0.3', '_sum 0.9')
          .replace('_count 4', '_count 7'),
      ),
      1e18 + 2e9,
    );
    const out = scraper.export() as {
      metrics: Record<
        string,
        {
          type: string;
          description: string;
          series: { labels: unknown; stats: Record<string, number>; timeslices: Record<string, number>[] }[];
        }
      >;
    };
    expect(out.metrics['x:tokens']!.series[0]!.stats).toMatchObject({ total: 15, rate: 7.5 });
    expect(out.metrics['x:tokens']!.description).toBe('Tokens.');
    expect(out.metrics['x:usage']!.series[0]!.stats).toMatchObject({ max: 0.9, min: 0.5, avg: 0.7 });
    expect(out.metrics['x:ttft']!.series[0]!.stats).toMatchObject({ count: 3 });
    expect(out.metrics['x:ttft']!.series[0]!.stats.sum).toBeCloseTo(0.6);
    expect(out.metrics['x:tokens']!.series[0]!.timeslices).toEqual([
      { start_ns: 1e18, end_ns: 1e18 + 2e9, total: 15, rate: 7.5 },
    ]);
  });
});
