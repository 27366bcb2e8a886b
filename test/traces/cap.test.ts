import { describe, expect, it } from 'vitest';
import { capTrace, formatWekaTraces, parseTraces } from '../../src/traces/index.js';
import type { Trace, TraceSubagent } from '../../src/traces/index.js';

// The three cases of InferenceX's utils/agentic/datasets/test_build_weka_hf_dataset.py, on the
// same traces (its _request and _subagent helpers), against `_filter_trace_256k(trace, cap=256_000)`.
const request = (t: number, apiTime: number, tokens = 1) => ({
  t,
  type: 'n',
  model: 'test-model',
  in: tokens,
  out: 0,
  hash_ids: [],
  api_time: apiTime,
});
function subagent(agentId: string, requests: ReturnType<typeof request>[]) {
  const first = Math.min(...requests.map((r) => r.t));
  const lastEnd = Math.max(...requests.map((r) => r.t + r.api_time));
  return {
    t: first,
    type: 'subagent',
    agent_id: agentId,
    duration_ms: Math.round((lastEnd - first) * 1000),
    total_tokens: requests.reduce((n, r) => n + r.in + r.out, 0),
    requests,
  };
}
const read = (trace: unknown): Trace => parseTraces(JSON.stringify(trace), 'case.json')[0]!;
const sub = (trace: Trace, i: number): TraceSubagent => (trace.entries[i] as { subagent: TraceSubagent }).subagent;
const CAP = { maxTokens: 256_000 };

describe('capTrace (the 256k variant of build_weka_hf_dataset.py)', () => {
  it('without drops, preserves overlapping subagents exactly', () => {
    const trace = read({
      id: 'overlap',
      requests: [request(0, 1), subagent('child-a', [request(2, 5)]), subagent('child-b', [request(3, 5)])],
    });
    const filtered = capTrace(trace, CAP)!;
    expect(filtered).toEqual(trace);
    const [a, b] = [sub(filtered, 1), sub(filtered, 2)];
    expect(b.t).toBeLessThan(a.t + a.duration);
  });

  it('shifts every time by one offset and preserves overlap', () => {
    const trace = read({
      id: 'shifted-overlap',
      requests: [request(0, 10, 300_000), subagent('child-a', [request(4, 5)]), subagent('child-b', [request(5, 5)])],
    });
    const filtered = capTrace(trace, CAP)!;
    expect(filtered.entries.map((e) => e.kind)).toEqual(['subagent', 'subagent']);
    const [a, b] = [sub(filtered, 0), sub(filtered, 1)];
    expect([a.t, b.t, a.requests[0]!.t, b.requests[0]!.t]).toEqual([0, 1, 0, 1]);
    expect(b.t).toBeLessThan(a.t + a.duration);
  });

  it('a partly filtered subagent gets its start, duration and total tokens recomputed', () => {
    const trace = read({
      id: 'partial',
      requests: [request(0, 1), subagent('child', [request(2, 3, 300_000), request(4, 2, 100), request(8, 1, 200)])],
    });
    const filtered = capTrace(trace, CAP)!;
    const child = sub(filtered, 1);
    expect(child.requests.map((r) => r.t)).toEqual([4, 8]);
    expect(child.t).toBe(4);
    expect(child.duration * 1000).toBe(5_000);
    const written = JSON.parse(formatWekaTraces([filtered])) as { requests: { total_tokens?: number }[] };
    expect(written.requests[1]!.total_tokens).toBe(300);
  });

  it('a trace with nothing under the cap is dropped; --input-only counts input tokens only', () => {
    const trace = read({ id: 'big', requests: [request(0, 1, 300_000)] });
    expect(capTrace(trace, CAP)).toBeUndefined();
    const nearCap = read({ id: 'near', requests: [{ ...request(0, 1, 250_000), out: 10_000 }] });
    expect(capTrace(nearCap, CAP)).toBeUndefined();
    expect(capTrace(nearCap, { ...CAP, inputOnly: true })).toEqual(nearCap);
  });

  it('what the cap writes when it drops a spawning turn reads back with leadingSubagents', () => {
    const trace = read({ id: 's', requests: [request(0, 10, 300_000), subagent('child-a', [request(4, 5)])] });
    const text = formatWekaTraces([capTrace(trace, CAP)!]);
    expect(() => parseTraces(text, 'capped.jsonl')).toThrow(
      /capped.jsonl:1: Weka trace: requests\[0\]\.type: a subagent before the trace's first main request/,
    );
    expect(parseTraces(text, 'capped.jsonl', { leadingSubagents: true })[0]!.entries[0]!.kind).toBe('subagent');
  });

  it('a trace of 200,000 requests (allowed by MAX_TRACE_REQUESTS) is capped without a stack overflow', () => {
    const inner = Array.from({ length: 200_000 }, (_, i) => request(10 + i, 1));
    const child = { t: 10, type: 'subagent', agent_id: 'a', duration_ms: 200_000_000, requests: inner };
    const capped = capTrace(read({ id: 'long', requests: [request(0, 1, 300_000), request(5, 1), child] }), CAP)!;
    expect(capped.entries[0]).toMatchObject({ kind: 'request', request: { t: 0 } });
    expect(sub(capped, 1)).toMatchObject({ t: 5, duration: 200_000 });
  });
});
