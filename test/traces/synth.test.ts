import { describe, expect, it } from 'vitest';
import { corpusStats, formatWekaTraces, parseTraces, synthTraces } from '../../src/traces/index.js';
import type { Trace, TraceRequest, TraceSubagent } from '../../src/traces/index.js';

const mains = (t: Trace): TraceRequest[] => t.entries.flatMap((e) => (e.kind === 'request' ? [e.request] : []));
const subagents = (t: Trace): TraceSubagent[] => t.entries.flatMap((e) => (e.kind === 'subagent' ? [e.subagent] : []));
const extendsPrefix = (a: number[], b: number[]): boolean => b.length > a.length && a.every((h, i) => b[i] === h);

describe('synthTraces', () => {
  const corpus = synthTraces({ traces: 30, seed: 11, scale: 0.25, subagentRate: 0.2 });

  it('is deterministic for a seed, and another seed gives another corpus', () => {
    const again = synthTraces({ traces: 30, seed: 11, scale: 0.25, subagentRate: 0.2 });
    expect(again).toEqual(corpus);
    expect(formatWekaTraces(again)).toBe(formatWekaTraces(corpus));
    expect(formatWekaTraces(synthTraces({ traces: 30, seed: 12, scale: 0.25, subagentRate: 0.2 }))).not.toBe(
      formatWekaTraces(corpus),
    );
  });

  it('round-trips through the Weka writer and reader', () => {
    const text = formatWekaTraces(corpus);
    expect(text.split('\n').length).toBe(corpus.length + 1);
    expect(parseTraces(text, 'traces.jsonl')).toEqual(corpus);
  });

  it('each main turn extends the previous context (prefix sharing), except at a compaction, which keeps the system prompt', () => {
    let extensions = 0;
    let compactions = 0;
    for (const trace of corpus) {
      const turns = mains(trace);
      for (let k = 1; k < turns.length; k++) {
        const [prev, next] = [turns[k - 1]!, turns[k]!];
        if (extendsPrefix(prev.hashIds, next.hashIds)) {
          extensions++;
          // The context grows by at least the previous output.
          expect(next.input - prev.input).toBeGreaterThanOrEqual(prev.output);
        } else {
          compactions++;
          expect(next.hashIds[0]).toBe(turns[0]!.hashIds[0]);
        }
      }
    }
    expect(extensions).toBeGreaterThan(20 * compactions);
  });

  it('a small context cap forces compactions, and inputs stay whole hash blocks', () => {
    const small = synthTraces({ traces: 5, seed: 3, maxContext: 40_000, scale: 1, meanTurns: 60 });
    let compactions = 0;
    for (const trace of small) {
      const turns = mains(trace);
      for (let k = 1; k < turns.length; k++) if (!extendsPrefix(turns[k - 1]!.hashIds, turns[k]!.hashIds)) compactions++;
      for (const r of turns) expect(r.input).toBe(r.hashIds.length * trace.blockSize);
    }
    expect(compactions).toBeGreaterThan(3);
  });

  it('prefix reuse is high, as in the recorded corpora', () => {
    const stats = corpusStats(corpus);
    expect(stats.blockReuse).toBeGreaterThan(0.8);
    expect(stats.distributions.find((d) => d.key === 'prefix_reuse')!.summary.p50).toBeGreaterThan(0.85);
  });

  it('subagents fan out at a turn, start after it, share their type’s system prompt, and the main agent waits for them', () => {
    const all = corpus.flatMap(subagents);
    expect(all.length).toBeGreaterThan(10);
    expect(corpus.some((t) => subagents(t).length >= 2)).toBe(true);
    for (const trace of corpus) {
      let lastMainEnd = 0;
      let waitUntil = 0;
      const prefixOf = new Map<string, number>();
      for (const e of trace.entries) {
        if (e.kind === 'request') {
          expect(e.request.t).toBeGreaterThanOrEqual(waitUntil);
          lastMainEnd = e.request.t + e.request.apiTime!;
          waitUntil = lastMainEnd;
          continue;
        }
        const s = e.subagent;
        expect(s.t).toBeGreaterThanOrEqual(lastMainEnd);
        expect(s.requests.length).toBeGreaterThan(0);
        for (let k = 1; k < s.requests.length; k++)
          expect(extendsPrefix(s.requests[k - 1]!.hashIds, s.requests[k]!.hashIds)).toBe(true);
        const first = s.requests[0]!.hashIds[0]!;
        if (prefixOf.has(s.subagentType)) expect(first).toBe(prefixOf.get(s.subagentType));
        else prefixOf.set(s.subagentType, first);
        waitUntil = Math.max(waitUntil, s.t + s.duration - 1e-9);
      }
    }
  });

  it('idle gaps mix short tool gaps with long human ones, never past --max-gap', () => {
    const gaps = synthTraces({ traces: 20, seed: 5, scale: 0.2, maxGap: 30, humanGapShare: 0.3 })
      .flatMap((t) => t.entries.flatMap((e) => (e.kind === 'request' ? [e.request] : e.subagent.requests)))
      .flatMap((r) => (r.delay === undefined ? [] : [r.delay]));
    expect(gaps.length).toBeGreaterThan(50);
    expect(Math.max(...gaps)).toBe(30);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(0);
    expect(gaps.filter((g) => g < 3).length).toBeGreaterThan(gaps.length / 3);
  });

  it('--scale shrinks the corpus', () => {
    const tiny = corpusStats(synthTraces({ traces: 10, seed: 1, scale: 0.05 }));
    const full = corpusStats(synthTraces({ traces: 10, seed: 1 }));
    expect(tiny.inputTokens * 20).toBeLessThan(full.inputTokens);
    expect(tiny.requests).toBeLessThan(full.requests);
  });
});
