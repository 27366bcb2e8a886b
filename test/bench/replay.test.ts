import { afterEach, describe, expect, it } from 'vitest';
import { BlockTexts, PromptBuilder, planReplay, replayTraces, startTurn, theoreticalHits } from '../../src/bench/replay/index.js';
import { linearTrace, options, recordingServer, req, trace } from './replay-support/fixtures.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(o: Parameters<typeof recordingServer>[0] = {}): ReturnType<typeof recordingServer> {
  const s = await recordingServer(o);
  servers.push(s);
  return s;
}
const header = (h: unknown): string => String(h);

describe('trajectory starts', () => {
  const corpus = Array.from({ length: 20 }, (_, i) => linearTrace(`t${i}`, 40));
  const o = { lanes: 8, startMinRatio: 0.25, startMaxRatio: 0.75, warmupRequestsPerLane: 10 };

  it('are the same for the same seed and differ for another', () => {
    expect(planReplay(corpus, { ...o, seed: 42 })).toEqual(planReplay(corpus, { ...o, seed: 42 }));
    expect(planReplay(corpus, { ...o, seed: 43 }).lanes).not.toEqual(planReplay(corpus, { ...o, seed: 42 }).lanes);
  });

  it('fall in [25%, 75%] of the main turns, with the warmup after them', () => {
    for (const lane of planReplay(corpus, { ...o, seed: 7 }).lanes) {
      expect(lane.start).toBeGreaterThanOrEqual(10);
      expect(lane.start).toBeLessThanOrEqual(30);
      expect(lane.profileFrom).toBe(Math.min(lane.start + 11, 39));
    }
  });

  it('leave at least one profiled turn', () => {
    const w = { startMinRatio: 0.75, startMaxRatio: 0.75, warmupRequestsPerLane: 10 };
    expect(startTurn(4, 0.99, w)).toEqual({ start: 2, profileFrom: 3 });
    expect(startTurn(2, 0.5, w)).toEqual({ start: 0, profileFrom: 1 });
    expect(startTurn(1, 0.5, w)).toEqual({ start: 0, profileFrom: 0 });
  });
});

describe('theoretical prefix cache', () => {
  it('counts the leading blocks already sent in the instance', () => {
    const seen = new Set<number>();
    expect(theoreticalHits(seen, [1, 2, 3])).toEqual({ hits: 0, blocks: 3 });
    expect(theoreticalHits(seen, [1, 2, 3, 4])).toEqual({ hits: 3, blocks: 4 });
    expect(theoreticalHits(seen, [1, 9, 3, 4])).toEqual({ hits: 1, blocks: 4 });
  });
});

describe('trace replay against a recording server', () => {
  it("honours idle gaps, capped and scaled by --time-scale, and records in the engine's time", async () => {
    const s = await server();
    // Gaps of 2 s and 1000 s; capped at 3 s, ten times faster: 0.2 s and 0.3 s.
    const t = trace('gaps', [
      { kind: 'request', request: req(0, [1]) },
      { kind: 'request', request: req(3, [1, 2], 4, 2) },
      { kind: 'request', request: req(1010, [1, 2, 3], 4, 1000) },
    ]);
    const report = await replayTraces(
      [t],
      options(s.url, {
        concurrency: 1,
        warmupRequestsPerLane: 0,
        startMinRatio: 0,
        startMaxRatio: 0,
        idleGapCapS: 3,
        timeScale: 10,
      }),
    );
    expect(s.seen).toHaveLength(3);
    const gap1 = s.seen[1]!.start - s.seen[0]!.end;
    const gap2 = s.seen[2]!.start - s.seen[1]!.end;
    expect(gap1).toBeGreaterThanOrEqual(195);
    expect(gap2).toBeGreaterThanOrEqual(295);
    // Uncapped, the last gap would be 100 s.
    expect(gap2).toBeLessThan(50_000);
    // The first request of a lane with profiling from turn 0 is the priming request: warmup.
    expect(report.records.map((r) => r.phase)).toEqual(['warmup', 'profiling', 'profiling']);
    // Records are in the engine's time: ten times what the request took here.
    const served = s.seen[1]!.end - s.seen[1]!.start;
    expect(report.records[1]!.result.latency).toBeGreaterThanOrEqual(served * 10 * 0.99);
    // The profiling window as AIPerf writes it (naive local ISO), on the same engine clock.
    const startIso = report.aggregate.start_time as string;
    const endIso = report.aggregate.end_time as string;
    expect(startIso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
    const windowS = (Date.parse(endIso) - Date.parse(startIso)) / 1000;
    expect(windowS).toBeCloseTo((report.aggregate.benchmark_duration as { avg: number }).avg, 2);
  });

  it('runs subagents beside the parent and joins only those that ended before the next request', async () => {
    const s = await server({ delayMs: (h) => (String(h['x-correlation-id']).endsWith('::sa:bg') ? 400 : 20) });
    const t = trace('parent', [
      { kind: 'request', request: req(0, [1]) },
      { kind: 'request', request: req(1, [1, 2]) },
      {
        kind: 'subagent',
        subagent: { t: 2, agentId: 'fg', subagentType: 'x', duration: 2, requests: [req(2, [7]), req(3, [7, 8])], source: t0() },
      },
      {
        kind: 'subagent',
        subagent: {
          t: 2.5,
          agentId: 'bg',
          subagentType: 'x',
          duration: 100,
          requests: [req(2.5, [9]), req(50, [9, 10])],
          source: t0(),
        },
      },
      { kind: 'request', request: req(5, [1, 2, 3]) },
      { kind: 'request', request: req(6, [1, 2, 3, 4]) },
    ]);
    const report = await replayTraces(
      [t],
      options(s.url, { concurrency: 1, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0 }),
    );
    const by = (suffix: string): typeof s.seen =>
      s.seen.filter((x) => {
        const id = header(x.headers['x-correlation-id']);
        return suffix === '' ? !id.includes('::sa:') : id.endsWith(suffix);
      });
    const main = by('');
    const fg = by('::sa:fg');
    const bg = by('::sa:bg');
    expect([main.length, fg.length, bg.length]).toEqual([4, 2, 2]);
    // Both subagents start after the main request before them, before the next main request.
    expect(fg[0]!.start).toBeGreaterThanOrEqual(main[1]!.end);
    expect(bg[0]!.start).toBeGreaterThanOrEqual(main[1]!.end);
    // The next main request (t=5) waits for fg (ended at 4) ...
    expect(main[2]!.start).toBeGreaterThanOrEqual(fg[1]!.end);
    // ... but not for bg (recorded to end at 102.5), still running.
    expect(main[2]!.start).toBeLessThan(bg[1]!.end);
    // The trajectory waits for its background subagent before it ends.
    expect(report.records).toHaveLength(8);
    const sub = report.records.find((r) => r.conversationId === 'parent::sa:fg');
    expect(sub?.phase).toBe('profiling');
  });

  it('sends correlation and session headers, Dynamo session bindings and extra inputs', async () => {
    const s = await server();
    const t = linearTrace('sess', 4);
    await replayTraces(
      [t],
      options(s.url, {
        concurrency: 2,
        warmupRequestsPerLane: 0,
        startMinRatio: 0,
        startMaxRatio: 0,
        dynamoSessionBinding: true,
        dynamoSessionHeader: true,
        dynamoSessionTimeoutS: 3600,
        extraBody: { temperature: 0.5, nvext: { keep: 1 } },
      }),
    );
    // Two lanes replay the one trace: two instances, each its own session.
    const sessions = new Map<string, typeof s.seen>();
    for (const x of s.seen) {
      const id = header(x.headers['x-correlation-id']);
      expect(x.headers['x-dynamo-session-id']).toBe(id);
      expect(x.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(x.body.temperature).toBe(0.5);
      expect(x.body.stream).toBe(true);
      expect(x.body.stream_options).toEqual({ include_usage: true });
      sessions.set(id, [...(sessions.get(id) ?? []), x]);
    }
    expect(sessions.size).toBe(2);
    const prompts: string[] = [];
    const builder = new PromptBuilder(new BlockTexts(4));
    for (const [id, requests] of sessions) {
      expect(requests).toHaveLength(4);
      const controls = requests.map((x) => (x.body.nvext as { session_control?: unknown }).session_control);
      expect(controls).toEqual([
        { action: 'open', session_id: id, timeout: 3600 },
        undefined,
        undefined,
        { action: 'close', session_id: id },
      ]);
      for (const x of requests) expect((x.body.nvext as { keep: number }).keep).toBe(1);
      const prompt = (requests[0]!.body.messages as { content: string }[])[0]!.content;
      // The instance's cache-bust prefix, then the trace's blocks 0 and 1 (scoped to the trace).
      expect(prompt).toBe(builder.prefix(id) + builder.text('sess', [0, 1]));
      prompts.push(prompt);
    }
    expect(prompts[0]).not.toBe(prompts[1]);
  });

  it('sends equal text for equal blocks across instances with the cache-bust prefix off', async () => {
    const s = await server();
    const report = await replayTraces(
      [linearTrace('nb', 3)],
      options(s.url, { concurrency: 2, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0, cacheBust: false }),
    );
    const firsts = s.seen
      .filter((x) => x.body.max_tokens === 1)
      .map((x) => (x.body.messages as { content: string }[])[0]!.content);
    expect(firsts).toHaveLength(2);
    expect(firsts[0]).toBe(firsts[1]);
    expect(firsts[0]).toBe(new PromptBuilder(new BlockTexts(4)).text('nb', [0, 1]));
    // One theoretical cache for the run: the second lane's first context was sent by the first.
    expect(report.records.some((r) => r.turnIndex === 0 && r.theoreticalHitBlocks === 2)).toBe(true);
  });

  it('sends recorded contexts with the recorded output length (pre-canned) or threads live replies', async () => {
    const s = await server();
    const t = linearTrace('live', 3, { output: 5 });
    const common = { concurrency: 1, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0 };
    await replayTraces([t], options(s.url, common));
    const precanned = s.seen.splice(0);
    expect(precanned.map((x) => (x.body.messages as unknown[]).length)).toEqual([1, 1, 1]);
    expect(precanned.map((x) => [x.body.max_tokens, x.body.min_tokens, x.body.ignore_eos])).toEqual([
      [1, 1, true],
      [5, 5, true],
      [5, 5, true],
    ]);
    await replayTraces([t], options(s.url, { ...common, liveAssistant: true }));
    const live = s.seen.splice(0);
    const last = live[2]!.body.messages as { role: string; content: string }[];
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    // The server's reply to turn 0 (one token, " w0"), then turn 1's new block only.
    expect(last[1]!.content).toBe(' w0');
    expect(last[2]!.content.trim().split(' ')).toHaveLength(4);
  });

  it('skips requests over --max-context-length and counts them', async () => {
    const s = await server();
    const t = linearTrace('long', 6); // inputs 8, 12, … 28 tokens, output 4
    const report = await replayTraces(
      [t],
      options(s.url, { concurrency: 1, warmupRequestsPerLane: 0, startMinRatio: 0, startMaxRatio: 0, maxContextLength: 20 }),
    );
    expect(report.skipped).toBe(3);
    expect(s.seen).toHaveLength(3);
    expect(report.aggregate.skipped_request_count).toEqual({ unit: 'requests', avg: 3 });
  });

  it('stops the run once the share of failed requests exceeds the threshold', async () => {
    const s = await server({ fail: (n) => n % 2 === 1 });
    const corpus = Array.from({ length: 10 }, (_, i) => linearTrace(`f${i}`, 10));
    const report = await replayTraces(
      corpus,
      options(s.url, {
        concurrency: 2,
        warmupRequestsPerLane: 0,
        startMinRatio: 0,
        startMaxRatio: 0,
        failedRequestThreshold: 0.1,
      }),
    );
    expect(report.failure).toMatch(/requests failed .*> --failed-request-threshold 0\.1/);
    expect(report.stopReason).toBe('failed-request threshold exceeded');
    // Stopped long before the 100 requests of the corpus.
    expect(s.seen.length).toBeLessThan(20);
  });

  it('cancels warmup stragglers once the warmup grace period is over, and profiles from then on', async () => {
    // Lane 0's priming request hangs; lane 1's warmup drains at once.
    const s = await server({
      delayMs: (h, body) => (body.max_tokens === 1 && String(h['x-correlation-id']).endsWith('@0.0') ? 60_000 : 0),
    });
    const report = await replayTraces(
      [linearTrace('g0', 6), linearTrace('g1', 6)],
      options(s.url, { concurrency: 2, warmupRequestsPerLane: 1, warmupGracePeriodS: 0.3 }),
    );
    const cancelled = report.records.filter((r) => r.cancelled);
    expect(cancelled.map((r) => [r.lane, r.phase])).toEqual([[0, 'warmup']]);
    // Lane 0 skips the rest of its warmup and profiles the turns after it.
    const lane0 = report.records.filter((r) => r.lane === 0 && !r.cancelled);
    expect(lane0.length).toBeGreaterThan(0);
    expect(lane0.every((r) => r.phase === 'profiling')).toBe(true);
    expect(report.aggregate.cancelled_request_count).toEqual({ unit: 'requests', avg: 0 });
  });

  it('ends a --benchmark-duration run at the duration, cutting idle gaps short', async () => {
    const s = await server();
    const corpus = [linearTrace('d', 50, { delay: 0.05 })];
    const report = await replayTraces(
      corpus,
      options(s.url, { concurrency: 2, warmupRequestsPerLane: 2, benchmarkDurationS: 0.3, benchmarkGracePeriodS: 5 }),
    );
    expect(report.stopReason).toBe('benchmark duration reached');
    expect(report.records.length).toBeLessThan(100);
    expect(report.records.some((r) => r.phase === 'profiling')).toBe(true);
  });
});

function t0(): { file: string; line: number } {
  return { file: 'memory.jsonl', line: 1 };
}
