// The replay against servers whose usage contradicts what the client sent or received: each such
// request fails with its reason (counted by the failed-request threshold) instead of reaching the
// aggregate's figures.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replayTraces } from '../../src/bench/replay/index.js';
import type { ReplayReport } from '../../src/bench/replay/index.js';
import { linearTrace, options, recordingServer } from './replay-support/fixtures.js';
import type { HonestUsage } from './replay-support/fixtures.js';
import { checkAgenticArtifacts } from '../../src/results/index.js';
import { tempFiles } from '../helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

type Lie = NonNullable<Parameters<typeof recordingServer>[0]>;

/** Two 10-turn traces on one lane, profiled from turn 1 (turn 0 primes); the threshold judged from 10 requests. */
async function replay(lie: Lie, outputDir?: string): Promise<ReplayReport> {
  const s = await recordingServer(lie);
  servers.push(s);
  return replayTraces(
    [linearTrace('a', 10), linearTrace('b', 10)],
    options(s.url, { concurrency: 1, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0, outputDir }),
  );
}

const avg = (report: ReplayReport, key: string): unknown => (report.aggregate[key] as { avg?: unknown } | undefined)?.avg;
const max = (report: ReplayReport, key: string): unknown => (report.aggregate[key] as { max?: unknown } | undefined)?.max;

describe('the replay checks the server’s counts against what it sent and received', () => {
  // Request 3 (a profiled one) lies; the others are honest.
  const once =
    (usage: (honest: HonestUsage) => unknown[]): Lie['usage'] =>
    (honest, n) =>
      n === 3 ? usage(honest) : [honest];
  const cases: [string, Lie, string, string | undefined][] = [
    [
      'prompt_tokens of 10^12',
      { usage: once((h) => [{ ...h, prompt_tokens: 1e12 }]) },
      'invalid usage: prompt_tokens far from the prompt sent',
      '1000000000000 tokens for 28 sent',
    ],
    [
      '0 prompt tokens',
      { usage: once((h) => [{ ...h, prompt_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } }]) },
      'invalid usage: prompt_tokens far from the prompt sent',
      '0 tokens for 28 sent',
    ],
    [
      'cached tokens above the prompt',
      { usage: once((h) => [{ ...h, prompt_tokens_details: { cached_tokens: h.prompt_tokens + 1 } }]) },
      'invalid usage: cached_tokens exceeds prompt_tokens',
      '30 > 29',
    ],
    [
      'negative cached tokens',
      { usage: once((h) => [{ ...h, prompt_tokens_details: { cached_tokens: -5 } }]) },
      'invalid usage: cached_tokens is not a non-negative integer',
      'cached_tokens: -5',
    ],
    [
      'a second usage chunk that overrides the first (output 0)',
      { usage: once((h) => [h, { ...h, completion_tokens: 0 }]) },
      'invalid usage: completion_tokens went down during the stream',
      '4 → 0',
    ],
    [
      'output 0 while tokens streamed',
      { usage: once((h) => [{ ...h, completion_tokens: 0 }]) },
      'zero completion tokens',
      undefined,
    ],
    [
      'fewer output tokens than the chunks it streamed',
      { tokens: (maxTokens, n) => (n === 3 ? 3 : maxTokens), usage: once((h) => [{ ...h, completion_tokens: 2 }]) },
      'invalid usage: fewer completion_tokens than chunks streamed',
      '2 < 3',
    ],
    [
      'fewer output tokens than requested with ignore_eos',
      { tokens: (maxTokens, n) => (n === 3 ? 1 : maxTokens) },
      'invalid usage: fewer completion_tokens than max_tokens with ignore_eos',
      '1 < 4',
    ],
  ];

  it.each(cases)(
    '%s: that request fails with its reason, and the aggregate does not carry it',
    async (_name, lie, reason, detail) => {
      const report = await replay(lie);
      const failed = report.records.filter((r) => r.result.error !== undefined);
      expect(failed.map((r) => [r.sessionNum, r.result.error, r.result.errorDetail])).toEqual([[3, reason, detail]]);
      expect(avg(report, 'error_request_count')).toBe(1);
      expect(avg(report, 'request_count')).toBe(18);
      // Every figure is the honest requests': 8 to 52 prompt words (+1 the server counts), 4 output tokens.
      expect(max(report, 'input_sequence_length')).toBeLessThanOrEqual(53);
      expect((report.aggregate.cached_input_tokens as { min: number }).min).toBe(3);
      expect((report.aggregate.output_sequence_length as { min: number }).min).toBe(4);
      expect(report.failure).toBeUndefined();
    },
  );

  it('a server that lies on every request stops the run at the threshold, naming the last reason', async () => {
    const report = await replay({ usage: (h) => [{ ...h, prompt_tokens: 1e12 }] });
    expect(report.failure).toMatch(
      /^10 of 10 requests failed \(100\.0% > --failed-request-threshold 0\.1\); last error: invalid usage: prompt_tokens far from the prompt sent \(1000000000000 tokens for \d+ sent\)$/,
    );
    expect(avg(report, 'request_count')).toBe(0);
    expect(avg(report, 'total_token_throughput')).toBe(0);
  });

  it('the stop message names the last failure even when a success crosses the threshold', async () => {
    // Requests 0-2 fail; the threshold is first judged when the 10th (a success) ends.
    const report = await replay({ fail: (n) => n < 3 });
    expect(report.failure).toBe(
      '3 of 10 requests failed (30.0% > --failed-request-threshold 0.1); last error: HTTP 500: injected failure',
    );
  });

  it('live-assistant mode counts the replies the server sent into the prompt', async () => {
    const s = await recordingServer();
    servers.push(s);
    const report = await replayTraces(
      [linearTrace('a', 10)],
      options(s.url, { concurrency: 1, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0, liveAssistant: true }),
    );
    expect(report.records.map((r) => r.result.error)).toEqual(Array(10).fill(undefined));
    expect(max(report, 'input_sequence_length')).toBeGreaterThan(53);
  });

  it('the aggregate it writes passes results agentic-validate, its figures being possible', async () => {
    const dir = join(tempFiles({}), 'aiperf_artifacts');
    await replay({ usage: (h, n) => (n === 3 ? [{ ...h, prompt_tokens: 1e12 }] : [h]) }, dir);
    expect(checkAgenticArtifacts(dir, 0.1)).toEqual({
      errors: [],
      message: 'Validated aiperf request error rate: 1/19 = 5.263% <= 10.000%',
    });
  });
});
