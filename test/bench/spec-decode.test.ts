import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIGMAS,
  TOLERANCE,
  acceptedTokensVariance,
  checkAcceptance,
  specDecodeCounters,
  specDecodeOfExport,
  specDecodeWindow,
  syntheticVariance,
} from '../../src/bench/index.js';
import type { SpecDecodeStats } from '../../src/bench/index.js';
import { MetricsScraper, parsePrometheus } from '../../src/bench/replay/server-metrics.js';
import { CLI, announcedUrl, runCliAsync, tempFiles } from '../helpers.js';

/** /metrics as vLLM's prometheus_client writes it: `_total` samples, `_created` ones, two engines. */
const VLLM_METRICS = (drafts: number, accepted: number, perPos: number[]): string =>
  [
    '# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.',
    '# TYPE vllm:spec_decode_num_drafts_total counter',
    `vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} ${drafts / 2}`,
    `vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} ${drafts / 2}`,
    '# HELP vllm:spec_decode_num_drafts_created Number of spec decoding drafts.',
    '# TYPE vllm:spec_decode_num_drafts_created gauge',
    'vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9',
    '# TYPE vllm:spec_decode_num_draft_tokens_total counter',
    `vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} ${3 * drafts}.0`,
    '# TYPE vllm:spec_decode_num_accepted_tokens_total counter',
    `vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} ${accepted}.0`,
    '# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter',
    ...perPos.map((n, i) => `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="${i}"} ${n}`),
    'vllm:generation_tokens_total{engine="0",model_name="m"} 123456',
  ].join('\n');

describe('spec-decode counters', () => {
  it("reads vLLM's counters from /metrics, summed over engines, without the _created samples", () => {
    const c = specDecodeCounters(VLLM_METRICS(100, 149, [100, 49, 0]))!;
    expect(c).toEqual({
      drafts: 100,
      draftTokens: 300,
      acceptedTokens: 149,
      acceptedPerPosition: new Map([
        [0, 100],
        [1, 49],
        [2, 0],
      ]),
    });
    // OpenMetrics spells a counter's samples without `_total`.
    expect(specDecodeCounters('vllm:spec_decode_num_drafts{engine="0"} 7')!.drafts).toBe(7);
  });

  it('finds none in a server without speculative decoding', () => {
    expect(specDecodeCounters('vllm:generation_tokens_total{model_name="m"} 5\n')).toBeUndefined();
    expect(specDecodeCounters('')).toBeUndefined();
  });

  it("differences two scrapes into `vllm bench serve`'s stats: AL = 1 + Δaccepted / Δdrafts", () => {
    const before = specDecodeCounters(VLLM_METRICS(100, 149, [100, 49, 0]))!;
    const after = specDecodeCounters(VLLM_METRICS(1100, 1649, [1100, 500, 49]))!;
    const s = specDecodeWindow(before, after)!;
    expect(s).toMatchObject({ drafts: 1000, draftTokens: 3000, acceptedTokens: 1500 });
    expect(s.acceptanceLength).toBeCloseTo(2.5, 12);
    expect(s.acceptanceRate).toBeCloseTo(50, 12);
    expect(s.perPositionAcceptanceRates).toEqual([1, 0.451, 0.049]);
    // Nothing drafted in the window: nothing to report, as vLLM.
    expect(specDecodeWindow(after, after)).toBeUndefined();
  });

  it('reads the same window from the trace replay’s server_metrics_export.json (AIPerf’s format)', () => {
    const scraper = new MetricsScraper(['http://127.0.0.1:9/metrics'], 1000);
    const url = 'http://127.0.0.1:9/metrics';
    scraper.add(url, parsePrometheus(VLLM_METRICS(100, 149, [100, 49, 0])), 1e18);
    scraper.add(url, parsePrometheus(VLLM_METRICS(600, 899, [600, 299, 0])), 1e18 + 5e8);
    scraper.add(url, parsePrometheus(VLLM_METRICS(1100, 1649, [1100, 500, 49])), 1e18 + 1e9);
    const exported = JSON.parse(JSON.stringify(scraper.export())) as unknown;
    const before = specDecodeCounters(VLLM_METRICS(100, 149, [100, 49, 0]))!;
    const after = specDecodeCounters(VLLM_METRICS(1100, 1649, [1100, 500, 49]))!;
    expect(specDecodeOfExport(exported)).toEqual(specDecodeWindow(before, after));
    expect(specDecodeOfExport({ metrics: {} })).toBeUndefined();
  });
});

describe('the acceptance-length check', () => {
  const stats = (acceptanceLength: number, drafts: number, rates: number[]): SpecDecodeStats => ({
    drafts,
    draftTokens: 3 * drafts,
    acceptedTokens: Math.round((acceptanceLength - 1) * drafts),
    acceptanceRate: ((acceptanceLength - 1) / 3) * 100,
    acceptanceLength,
    perPositionAcceptanceRates: rates,
  });

  it('the variance of accepted tokens per draft, from per-position rates', () => {
    expect(acceptedTokensVariance([1, 0.49, 0])).toBeCloseTo(0.49 * 0.51, 12);
    expect(syntheticVariance(2.49)).toBeCloseTo(0.49 * 0.51, 12);
    expect(syntheticVariance(3)).toBe(0);
    // Geometric-like rates are noisier than the minimum-variance schedule of the same mean.
    expect(acceptedTokensVariance([0.8, 0.5, 0.19])).toBeGreaterThan(syntheticVariance(2.49));
  });

  it('within noise of the target: not far', () => {
    // stderr = sqrt(0.2499 / 10 000) = 0.005: 2.50 is 2σ off.
    const c = checkAcceptance(stats(2.5, 10_000, [1, 0.5, 0]), 2.49);
    expect(c.stderr).toBeCloseTo(0.005, 4);
    expect(c.sigmas).toBeLessThan(SIGMAS);
    expect(c.far).toBe(false);
  });

  it('many standard errors away but within the rounding tolerance: not far', () => {
    // 0.03 off is 6σ with a million drafts, yet a golden value's rounding allows it.
    const c = checkAcceptance(stats(2.52, 1_000_000, [1, 0.52, 0]), 2.49);
    expect(c.sigmas).toBeGreaterThan(SIGMAS);
    expect(Math.abs(c.measured - c.expected)).toBeLessThan(TOLERANCE);
    expect(c.far).toBe(false);
  });

  it('beyond both: far; a short window needs a larger deviation', () => {
    expect(checkAcceptance(stats(2.6, 10_000, [1, 0.6, 0]), 2.49).far).toBe(true);
    // 100 drafts: stderr 0.05, so 0.11 off is 2.2σ, noise.
    expect(checkAcceptance(stats(2.6, 100, [1, 0.6, 0]), 2.49).far).toBe(false);
    // A target with zero variance (an integer AL) and a clear deviation: infinitely many σ.
    const exact = checkAcceptance(stats(3.2, 1000, [1, 1, 0.2]), 3);
    expect(exact.far).toBe(true);
  });
});

/** A `frontier sim serve` process, as users run it. */
async function sim(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'sim', 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { url: await announcedUrl(child), child };
}

const BENCH = ['bench', '--random-input-len', '128', '--random-output-len', '64', '--num-prompts', '64'];
const benchArgs = (url: string, file: string, ...more: string[]): string[] => [
  ...BENCH,
  '--base-url',
  url,
  '--max-concurrency',
  '16',
  '--ignore-eos',
  '--tokenizer',
  'gpt2',
  '--time-scale',
  '20',
  '--result-file',
  file,
  ...more,
];

describe('frontier bench against frontier sim with speculative decoding', () => {
  let spec: { url: string; child: ChildProcess };
  let plain: { url: string; child: ChildProcess };
  beforeAll(async () => {
    [spec, plain] = await Promise.all([
      sim(['--speed', '20', '--seed', '3', '--spec-draft-tokens', '3', '--spec-acceptance', '2.49']),
      sim(['--speed', '20']),
    ]);
  });
  afterAll(() => {
    spec.child.kill('SIGTERM');
    plain.child.kill('SIGTERM');
  });

  const read = (file: string): Record<string, unknown> & { frontier: Record<string, unknown> } =>
    JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { frontier: Record<string, unknown> };

  it('reports the measured AL within its noise of 2.49, and the expected-AL check passes', async () => {
    const file = join(tempFiles({}), 'r.json');
    const run = await runCliAsync(benchArgs(spec.url, file, '--expected-acceptance-length', '2.49'));
    expect(run.stderr).toContain('result written to');
    const r = read(file);
    const drafts = r.spec_decode_num_drafts as number;
    // 64 requests, 63 decoded tokens each at most, about 2.5 a step.
    expect(drafts).toBeGreaterThan(500);
    expect(r.spec_decode_draft_tokens).toBe(3 * drafts);
    const al = r.spec_decode_acceptance_length as number;
    expect(al).toBeCloseTo(1 + (r.spec_decode_accepted_tokens as number) / drafts, 12);
    expect(Math.abs(al - 2.49)).toBeLessThan(4 * Math.sqrt((0.49 * 0.51) / drafts));
    const perPosition = r.spec_decode_per_position_acceptance_rates as number[];
    expect(perPosition).toHaveLength(3);
    expect(perPosition[0]).toBe(1);
    expect(perPosition[2]).toBe(0);
    expect(r.spec_decode_acceptance_rate as number).toBeCloseTo(((al - 1) / 3) * 100, 9);
    expect(r.frontier.acceptance_length_check).toMatchObject({ expected: 2.49, drafts, far: false, tolerance: TOLERANCE });
    // Whatever else a busy test machine may do to the run's validity (a starved client), not this.
    expect((r.frontier.problems as string[]).filter((p) => p.includes('acceptance'))).toEqual([]);
    expect(run.stdout).toMatch(/Acceptance length:\s+2\.\d\d\n/);
    expect(run.stdout).toMatch(/Position 0:\s+100\.00\n/);
    expect(run.stdout).toContain('Expected acceptance length 2.49: within noise');
  });

  it('flags a measured AL far from the expected one: the run is invalid (exit 1)', async () => {
    const file = join(tempFiles({}), 'r.json');
    const run = await runCliAsync(benchArgs(spec.url, file, '--expected-acceptance-length', '3.2'));
    expect(run.status).toBe(1);
    const r = read(file);
    expect(r.frontier.acceptance_length_check).toMatchObject({ expected: 3.2, far: true });
    expect(r.frontier.valid).toBe(false);
    expect((r.frontier.problems as string[]).join()).toMatch(/acceptance length 2\.\d+ is far from the expected 3\.2/);
    expect(run.stdout).toContain('✗ invalid run');
  });

  it('without speculative decoding on the server: no spec-decode keys, and the check says it could not run', async () => {
    const file = join(tempFiles({}), 'r.json');
    const run = await runCliAsync(benchArgs(plain.url, file, '--expected-acceptance-length', '2.49'));
    expect(run.stderr).toContain('result written to');
    const r = read(file);
    expect(Object.keys(r).filter((k) => k.startsWith('spec_decode'))).toEqual([]);
    expect(r.frontier.acceptance_length_check).toMatchObject({ expected: 2.49, measured: null, far: null });
    expect((r.frontier.problems as string[]).filter((p) => p.includes('acceptance'))).toEqual([]);
    expect(run.stdout).not.toContain('Speculative Decoding');
  });
});
