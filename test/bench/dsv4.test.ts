import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dsv4EncodingError, encodeDsv4Messages } from '../../src/bench/index.js';
import type { Dsv4EncodeOptions, Dsv4Message, Dsv4ReasoningEffort, Dsv4ThinkingMode } from '../../src/bench/index.js';
import { loads } from '../../src/pycompat/index.js';
import { REPO } from '../helpers.js';

/** A case of scripts/dsv4-encoding-golden.py: the reference encoder's input and what it returned or raised. */
interface GoldenCase {
  name: string;
  messages: unknown[];
  options: {
    thinking_mode: string;
    context?: unknown[];
    drop_thinking?: boolean;
    add_default_bos_token?: boolean;
    reasoning_effort?: string | null;
  };
  expected?: string;
  error?: string;
}

// Read as Python reads it: a `7.0` in a tool schema stays a float, which json.dumps prints as `7.0`.
const golden = loads(readFileSync(join(REPO, 'test/fixtures/bench/dsv4-encoding.json'), 'utf8'), { exactInts: true }) as {
  cases: GoldenCase[];
};

const optionsOf = (o: GoldenCase['options']): Dsv4EncodeOptions => ({
  thinkingMode: o.thinking_mode as Dsv4ThinkingMode,
  context: o.context as Dsv4Message[] | undefined,
  dropThinking: o.drop_thinking,
  addBosToken: o.add_default_bos_token,
  reasoningEffort: o.reasoning_effort as Dsv4ReasoningEffort | null | undefined,
});

describe('the DeepSeek-V4 encoder against the reference encoding_dsv4.py', () => {
  it('the fixture covers the benchmark prompts, every role, and the refusals', () => {
    expect(golden.cases.length).toBeGreaterThanOrEqual(80);
    expect(golden.cases.filter((c) => c.name.startsWith('benchmark --dsv4:')).length).toBeGreaterThanOrEqual(10);
    const roles = new Set(golden.cases.flatMap((c) => c.messages.map((m) => (m as { role: string }).role)));
    expect([...roles].sort()).toEqual(['assistant', 'developer', 'latest_reminder', 'narrator', 'system', 'tool', 'user']);
    expect(golden.cases.filter((c) => c.error !== undefined).length).toBeGreaterThanOrEqual(5);
  });

  for (const c of golden.cases) {
    if (c.error === undefined) {
      it(`byte for byte: ${c.name}`, () => {
        expect(encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options))).toBe(c.expected);
      });
    } else {
      it(`refuses as the reference does (${c.error.split(':')[0]}): ${c.name}`, () => {
        expect(() => encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options))).toThrow(Dsv4EncodingError);
      });
    }
  }

  it('leaves the caller’s messages and context as they were', () => {
    const c = golden.cases.find(
      (x) => x.name === "with context ending in tool calls: results sorted by the context's call order",
    )!;
    expect(c).toBeDefined();
    const before = JSON.stringify(c);
    const out = encodeDsv4Messages(c.messages as Dsv4Message[], optionsOf(c.options));
    expect(out).toBe(c.expected);
    expect(out.indexOf('A</tool_result>')).toBeLessThan(out.indexOf('B</tool_result>'));
    expect(JSON.stringify(c)).toBe(before);
  });
});
