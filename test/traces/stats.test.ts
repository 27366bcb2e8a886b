import { describe, expect, it } from 'vitest';
import { corpusStats, parseTraces, statsSvg, summarize } from '../../src/traces/index.js';
import { percentileSorted as percentile } from '../../src/util/percentile.js';
import type { CorpusStats, Summary } from '../../src/traces/index.js';

const n = (t: number, input: number, output: number, hashIds: number[], extra: Record<string, unknown> = {}) => ({
  t,
  type: 'n',
  in: input,
  out: output,
  hash_ids: hashIds,
  api_time: 0.5,
  ...extra,
});

/** Two traces whose every figure is worked out by hand below. */
const HAND = [
  {
    id: 'a',
    block_size: 64,
    hash_id_scope: 'local',
    requests: [
      n(0, 128, 10, [0, 1]),
      n(2.5, 192, 20, [0, 1, 2], { think_time: 2 }),
      {
        t: 3.5,
        type: 'subagent',
        agent_id: 'x',
        subagent_type: 'Explore',
        duration_ms: 2000,
        requests: [n(3.5, 64, 5, [5]), n(5, 128, 5, [5, 6], { think_time: 1 })],
      },
      n(9.5, 256, 30, [0, 1, 2, 3], { think_time: 4 }),
    ],
  },
  { id: 'b', requests: [n(0, 64, 1, [])] },
]
  .map((t) => JSON.stringify(t))
  .join('\n');

const summary = (stats: CorpusStats, key: string): Summary => stats.distributions.find((d) => d.key === key)!.summary;

describe('corpus stats', () => {
  const stats = corpusStats(parseTraces(HAND, 'hand.jsonl'));

  it('counts traces, requests, subagents and tokens', () => {
    expect(stats).toMatchObject({ traces: 2, requests: 6, subagents: 1, inputTokens: 832, outputTokens: 71 });
  });

  it('per-trace shapes', () => {
    expect(stats.distributions.find((d) => d.key === 'requests_per_trace')!.values).toEqual([5, 1]);
    expect(stats.distributions.find((d) => d.key === 'main_turns_per_trace')!.values).toEqual([3, 1]);
    expect(stats.distributions.find((d) => d.key === 'subagents_per_trace')!.values).toEqual([1, 0]);
    expect(stats.distributions.find((d) => d.key === 'requests_per_subagent')!.values).toEqual([2]);
  });

  it('input tokens: count, mean and percentiles interpolated as numpy does', () => {
    const s = summary(stats, 'input_tokens');
    expect(s.count).toBe(6);
    expect(s.mean).toBeCloseTo(832 / 6, 9);
    expect(s.p50).toBe(128);
    expect(s.p90).toBeCloseTo(224, 9);
    expect(s.p99).toBeCloseTo(252.8, 9);
    expect(s.max).toBe(256);
  });

  it('prefix reuse: the share of each request’s blocks seen earlier in its trace (subagent requests in place)', () => {
    // a: [0,1] → 0; [0,1,2] → 2/3; subagent [5] → 0; [5,6] → 1/2; [0,1,2,3] → 3/4. b has no blocks.
    const reuse = stats.distributions.find((d) => d.key === 'prefix_reuse')!.values;
    expect(reuse.map((v) => +v.toFixed(6))).toEqual([0, 0.666667, 0, 0.5, 0.75]);
    expect(stats.blockReuse).toBe(6 / 12);
  });

  it('idle gaps are the recorded think times', () => {
    expect(stats.distributions.find((d) => d.key === 'idle_gap_s')!.values).toEqual([2, 1, 4]);
    expect(summary(stats, 'idle_gap_s')).toMatchObject({ count: 3, p50: 2, max: 4 });
  });

  it('percentile matches numpy.percentile (linear) on small cases', () => {
    // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) → 2.5, 3.7, 3.97
    expect([50, 90, 99].map((q) => percentile([1, 2, 3, 4], q))).toEqual([2.5, 3.7, expect.closeTo(3.97, 9)]);
    expect(percentile([7], 99)).toBe(7);
    // A distribution of no values has no percentiles (the one percentile gives 0 for none; the summary says NaN).
    expect(summarize([]).p50).toBeNaN();
  });
});

/** Whether every tag closes in order, every attribute is quoted and no `<` or `&` is loose in text (XML's rules, as much as SVG uses). */
function wellFormed(xml: string): boolean {
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(text)) return false;
    if (lt < 0) break;
    tag.lastIndex = lt;
    const m = tag.exec(xml);
    if (!m) return false;
    const [, close, name, , selfClose] = m;
    if (close) {
      if (stack.pop() !== name) return false;
    } else if (!selfClose) stack.push(name!);
    i = tag.lastIndex;
  }
  return stack.length === 0;
}

describe('the SVG plot', () => {
  it('the well-formedness check refuses what it should', () => {
    expect(wellFormed('<svg><text>a</text></svg>')).toBe(true);
    expect(wellFormed('<svg><text>a</svg></text>')).toBe(false);
    expect(wellFormed('<svg><text>a & b</text></svg>')).toBe(false);
    expect(wellFormed('<svg><rect x=1/></svg>')).toBe(false);
  });

  it('is one well-formed, self-contained SVG with a histogram per distribution', () => {
    const stats = corpusStats(parseTraces(HAND, 'hand.jsonl'));
    const svg = statsSvg(stats, 'hand <corpus> & co');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).not.toMatch(/href=|<script|<image/);
    expect(svg).toContain('hand &lt;corpus&gt; &amp; co');
    expect(wellFormed(svg)).toBe(true);
    expect(svg.match(/class="title"/g)!.length).toBe(stats.distributions.length + 1);
    expect(svg.match(/class="p50"/g)!.length).toBe(stats.distributions.length);
    // 30 bars for each distribution with values.
    expect(svg.match(/class="bar"/g)!.length).toBe(30 * stats.distributions.length);
    expect(svg).not.toMatch(/NaN|undefined|Infinity/);
  });

  it('a corpus of 200,000 requests is plotted without a stack overflow', () => {
    const requests = Array.from({ length: 200_000 }, (_, i) => n(i, 64, 1, []));
    const svg = statsSvg(corpusStats(parseTraces(JSON.stringify({ id: 'long', requests }), 'long.jsonl')), 'long');
    expect(wellFormed(svg)).toBe(true);
  });

  it('a distribution with no values says so instead of drawing bars', () => {
    const stats = corpusStats(parseTraces(JSON.stringify({ id: 'c', requests: [n(0, 64, 1, [])] }), 'c.jsonl'));
    const svg = statsSvg(stats, 'c');
    expect(svg).toContain('no values');
    expect(svg).not.toMatch(/NaN|undefined|Infinity/);
  });
});
