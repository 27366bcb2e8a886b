import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExtraInputs } from '../../src/cli/bench-trace.js';
import { NO_FAULTS, buildTopology, startSimServer } from '../../src/sim/index.js';
import type { SimServer } from '../../src/sim/index.js';
import { runCliAsync, tempFiles } from '../helpers.js';

/** A Weka corpus of `n` traces of 8 turns, a subagent in each (written for these tests). */
function weka(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const requests: unknown[] = [];
    for (let k = 0; k < 8; k++) {
      requests.push({
        type: 'n',
        t: 2 * k,
        in: (3 + k) * 64,
        out: 6,
        hash_ids: Array.from({ length: 3 + k }, (_, j) => j),
        ...(k > 0 ? { think_time: 1 } : {}),
      });
      if (k === 5)
        requests.push({
          type: 'subagent',
          t: 2 * k + 1,
          agent_id: 'explore-1',
          subagent_type: 'Explore',
          duration_ms: 500,
          requests: [{ type: 'n', t: 2 * k + 1, in: 128, out: 4, hash_ids: [50, 51] }],
        });
    }
    lines.push(JSON.stringify({ id: `trace-${i}`, block_size: 64, hash_id_scope: 'local', requests }));
  }
  return `${lines.join('\n')}\n`;
}

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const sims: SimServer[] = [];
const sim = (errorRate = 0): Promise<SimServer> =>
  startSimServer({
    topology: buildTopology({ model: 'llama-3.1-8b', hardware: 'h100', precision: 'fp8' }),
    servedModelName: MODEL,
    maxModelLen: 8192,
    speed: 100,
    seed: 3,
    naturalOutputTokens: 16,
    host: '127.0.0.1',
    port: 0,
    faults: { ...NO_FAULTS, errorRate, errorStatuses: [503] },
  }).then((s) => (sims.push(s), s));
let healthy: SimServer;
let failing: SimServer;

beforeAll(async () => {
  healthy = await sim();
  failing = await sim(0.6);
});
afterAll(async () => {
  for (const s of sims) await s.close();
});

describe('frontier bench --trace', () => {
  it('replays a Weka trace file, prints a summary and writes the AIPerf artifacts', async () => {
    const dir = tempFiles({ 'traces.jsonl': weka(5) });
    const out = join(dir, 'aiperf_artifacts');
    // AIPerf's own flags from build_replay_cmd are accepted as they are.
    const r = await runCliAsync([
      'bench',
      '--trace',
      join(dir, 'traces.jsonl'),
      '--url',
      healthy.url,
      '--concurrency',
      '3',
      '--warmup-requests-per-lane',
      '1',
      '--time-scale',
      '100',
      '--streaming',
      '--use-server-token-count',
      '--random-seed',
      '42',
      '--slice-duration',
      '0.1',
      '--extra-inputs',
      'temperature:0',
      '--output-artifact-dir',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^trace replay: 5 trace\(s\), 3 lane\(s\)/);
    expect(r.stdout).toMatch(/requests: \d+ profiled, 0 failed, 6 warmup, 0 skipped/);
    expect(r.stdout).toMatch(/TTFT p50 [\d.]+ ms, p99 [\d.]+ ms · ITL p50 [\d.]+ ms, p99 [\d.]+ ms/);
    expect(r.stdout).toMatch(/theoretical prefix hit [\d.]+%/);
    const aggregate = JSON.parse(readFileSync(join(out, 'profile_export_aiperf.json'), 'utf8')) as Record<string, unknown>;
    expect(aggregate.metadata).toMatchObject({
      dataset: {
        source_type: 'trace_file',
        path: 'traces.jsonl',
        num_dataset_entries: 5,
        block_size: 64,
        hash_id_scope: 'local',
      },
    });
    expect(aggregate.input_config).toMatchObject({ concurrency: 3, random_seed: 42, extra_inputs: { temperature: 0 } });
    const lines = readFileSync(join(out, 'profile_export.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe((aggregate.completed_request_count as { avg: number }).avg + 6);
    const server = JSON.parse(readFileSync(join(out, 'server_metrics_export.json'), 'utf8')) as {
      metrics: Record<string, unknown>;
    };
    expect(Object.keys(server.metrics)).toContain('vllm:generation_tokens');
  });

  it('exits 1 with the failure when the server fails more requests than the threshold', async () => {
    const dir = tempFiles({ 'traces.jsonl': weka(10) });
    const r = await runCliAsync([
      'bench',
      '--trace',
      join(dir, 'traces.jsonl'),
      '--url',
      failing.url,
      '--concurrency',
      '2',
      '--warmup-requests-per-lane',
      '0',
      '--time-scale',
      '100',
      '--no-server-metrics',
      '--output-artifact-dir',
      join(dir, 'out'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /frontier: error: trace replay stopped: \d+ of \d+ requests failed .* > --failed-request-threshold 0\.1\)/,
    );
    expect(r.stderr).toMatch(/hint: the artifacts written so far are in /);
    expect(readFileSync(join(dir, 'out', 'profile_export.jsonl'), 'utf8')).toMatch(/"HTTP 503"/);
  });

  it('refuses a bad flag value with a usage error (exit 2)', async () => {
    const r = await runCliAsync(['bench', '--trace', 'x.jsonl', '--url', healthy.url, '--concurrency', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/argument --concurrency: must be > 0/);
  });

  it('names the file when the trace file cannot be read', async () => {
    const r = await runCliAsync(['bench', '--trace', '/nonexistent/traces.jsonl', '--url', healthy.url, '--model', MODEL]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot read \/nonexistent\/traces\.jsonl/);
  });

  it('refuses a one-request trace that would build gigabytes of prompt, at once and without a stack', async () => {
    const one = (extra: Record<string, unknown>, hashIds: number[]): string =>
      `${JSON.stringify({ id: 'big', requests: [{ t: 0, type: 'n', in: 64, out: 1, hash_ids: hashIds }], ...extra })}\n`;
    const dir = tempFiles({
      'huge-block.jsonl': one({ block_size: 1e9 }, [0]),
      'many-ids.jsonl': one(
        {},
        Array.from({ length: 2_000_000 }, (_, i) => i),
      ),
    });
    for (const [file, message] of [
      ['huge-block.jsonl', /huge-block\.jsonl:1: Weka trace: block_size: 1000000000 is above the limit of 65536\n +hint: /],
      [
        'many-ids.jsonl',
        /many-ids\.jsonl:1: Weka trace: requests\[0\]\.hash_ids: 2000000 entries, above the limit of 131072\n +hint: /,
      ],
    ] as const) {
      const r = await runCliAsync(['bench', '--trace', join(dir, file), '--url', healthy.url, '--model', MODEL]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n +at /);
    }
  });
});

describe('--extra-inputs', () => {
  it('reads KEY:VALUE pairs as JSON where they parse, and JSON objects whole', () => {
    expect(parseExtraInputs(['temperature:0.2', 'top_k:5', 'stop:</s>', 'flag:true', '{"nvext":{"a":1}}'])).toEqual({
      temperature: 0.2,
      top_k: 5,
      stop: '</s>',
      flag: true,
      nvext: { a: 1 },
    });
  });
});
