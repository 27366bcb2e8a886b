import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AcceptanceSampler } from '../../src/sim/speculative.js';
import {
  estimateAl,
  fillTemplate,
  goldenYaml,
  modelKeyOf,
  parseDraftLengths,
  parseKwargs,
  parseThinking,
  roundAl,
} from '../../src/specdec/collect.js';
import type { CollectedCell, RequestWindow } from '../../src/specdec/collect.js';
import { parseGoldenFile } from '../../src/specdec/golden.js';
import { PLACEHOLDER, readSpeedBench, speedBenchFile } from '../../src/specdec/speedbench.js';
import { Rng } from '../../src/util/rng.js';
import { REPO, tempFiles } from '../helpers.js';

/** The pure half of `frontier al collect`: its inputs, a cell's AL and interval, the golden file, SPEED-Bench rows. */

const FIXTURE = join(REPO, 'test/fixtures/speedbench');

describe('al collect inputs', () => {
  it('--draft-lengths takes ranges, lists and InferenceX’s space-separated form, ascending and once each', () => {
    expect(parseDraftLengths('1..8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseDraftLengths('1 2 3 4 5 6 7 8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseDraftLengths('4,1,2')).toEqual([1, 2, 4]);
    expect(parseDraftLengths('1..3,6 3')).toEqual([1, 2, 3, 6]);
    expect(parseDraftLengths('2-4')).toEqual([2, 3, 4]);
  });

  it('a malformed --draft-lengths is an error naming the flag, the value and the fix', () => {
    for (const [value, why] of [
      ['8..1', 'the range 8..1 runs backwards'],
      ['0..3', '0 is not in 1..64'],
      ['1...8', '.8 is not a positive integer'],
      ['one', 'one is not a positive integer'],
      ['', 'no draft length'],
      ['1..100', '100 is not in 1..64'],
    ]) {
      const e = (() => {
        try {
          parseDraftLengths(value!);
        } catch (err) {
          return err as Error & { hint?: string };
        }
        return undefined;
      })();
      expect(e?.message).toBe(`--draft-lengths ${JSON.stringify(value)}: ${why}`);
      expect(e?.hint).toContain('1..8');
    }
  });

  it('--thinking takes on/off in either spelling, in the order given', () => {
    expect(parseThinking('on,off')).toEqual(['thinking_on', 'thinking_off']);
    expect(parseThinking('off on')).toEqual(['thinking_off', 'thinking_on']);
    expect(parseThinking('thinking_on')).toEqual(['thinking_on']);
    expect(() => parseThinking('on,maybe')).toThrow('--thinking "on,maybe": maybe is not a thinking mode');
  });

  it('chat_template_kwargs must be a JSON object', () => {
    expect(parseKwargs('--thinking-kwargs', '{"thinking": true}')).toEqual({ thinking: true });
    expect(() => parseKwargs('--thinking-kwargs', '{thinking: true}')).toThrow('--thinking-kwargs {thinking: true}: not JSON');
    expect(() => parseKwargs('--thinking-kwargs', '[1]')).toThrow('--thinking-kwargs [1]: not a JSON object');
  });

  it('templates fill their placeholders and leave a JSON speculative config’s braces alone', () => {
    const serve = `vllm serve {model} --port {port} --speculative-config '{"method": "mtp", "num_speculative_tokens": {draft}}' # {thinking}`;
    expect(fillTemplate(serve, { draft: 3, thinking: 'thinking_off', port: 8123, model: 'org/M' })).toBe(
      `vllm serve org/M --port 8123 --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' # off`,
    );
    expect(modelKeyOf('deepseek-ai/DeepSeek-V4-Pro')).toBe('deepseek-v4-pro');
  });
});

describe('a cell’s acceptance length', () => {
  it('is rounded to two decimals exactly as the collectors’ awk printf "%.2f" rounds 1 + a/d', () => {
    const pairs: [number, number][] = [];
    for (const d of [1, 2, 3, 4, 6, 7, 8, 16, 24, 40, 200, 400, 1000, 4096])
      for (let a = 0; a <= 8 * d && a <= 400; a += d > 100 ? 7 : 1) pairs.push([a, d]);
    const script = pairs.map(([a, d]) => `printf "%.2f\\n", 1 + (${a} / ${d})`).join('; ');
    const awk = spawnSync('awk', [`BEGIN { ${script} }`], { encoding: 'utf8' });
    expect(awk.status).toBe(0);
    const expected = awk.stdout.trim().split('\n');
    expect(pairs.map(([a, d]) => roundAl(a, d))).toEqual(expected);
    // The exact ties, where toFixed alone would round up: printf rounds to even.
    expect([roundAl(1, 8), roundAl(3, 8), roundAl(5, 8), roundAl(7, 8)]).toEqual(['1.12', '1.38', '1.62', '1.88']);
  });

  it('is 1 + Σ accepted / Σ drafts over the cell, with no interval from one request and none without drafts', () => {
    const e = estimateAl([
      { accepted: 10, drafts: 20 },
      { accepted: 30, drafts: 20 },
    ])!;
    expect(e.al).toBe(2);
    expect(e.rounded).toBe('2.00');
    expect(e.half).toBeGreaterThan(0);
    expect(estimateAl([{ accepted: 10, drafts: 20 }])!.half).toBeUndefined();
    expect(estimateAl([{ accepted: 0, drafts: 0 }])).toBeUndefined();
    // Every prompt alike and every draft alike (an integer AL): no uncertainty at all.
    expect(
      estimateAl([
        { accepted: 20, drafts: 10 },
        { accepted: 40, drafts: 20 },
      ])!.half,
    ).toBe(0);
  });

  /** A cell as the simulator's synthetic sampler draws it: per prompt, `drafts[i]` drafts at `al[i]`. */
  const cell = (rng: Rng, draftTokens: number, al: (i: number) => number, drafts: number[]): RequestWindow[] =>
    drafts.map((d, i) => {
      const sampler = new AcceptanceSampler({ draftTokens, acceptanceLength: al(i) }, rng);
      let accepted = 0;
      for (let k = 0; k < d; k++) accepted += sampler.draw();
      return { accepted, drafts: d };
    });

  it('its 95% interval covers the true AL about 95% of the time (800 simulated cells of 8 prompts)', () => {
    const rng = new Rng(11);
    let covered = 0;
    const trials = 800;
    for (let t = 0; t < trials; t++) {
      const drafts = Array.from({ length: 8 }, () => 15 + rng.int(40));
      const e = estimateAl(cell(rng, 3, () => 2.4, drafts))!;
      if (Math.abs(e.al - 2.4) <= e.half!) covered++;
    }
    // Binomial sd at 95% over 800 trials is 0.8%: 92%–98% is a ±3.7σ band.
    expect(covered / trials).toBeGreaterThan(0.92);
    expect(covered / trials).toBeLessThan(0.98);
  });

  it('its interval widens when prompts differ, as another sample of prompts would move the value', () => {
    const rng = new Rng(5);
    const drafts = Array.from({ length: 16 }, () => 40);
    const alike = estimateAl(cell(rng, 3, () => 2.4, drafts))!;
    const differ = estimateAl(cell(rng, 3, (i) => (i % 2 === 0 ? 1.8 : 3.0), drafts))!;
    expect(differ.half!).toBeGreaterThan(2 * alike.half!);
  });
});

describe('the golden file', () => {
  const cells: CollectedCell[] = [
    {
      mode: 'thinking_on',
      draftLength: 1,
      estimate: estimateAl([
        { accepted: 70, drafts: 90 },
        { accepted: 72, drafts: 90 },
      ]),
      requests: 2,
      failedRequests: 0,
    },
    {
      mode: 'thinking_on',
      draftLength: 3,
      estimate: undefined,
      requests: 0,
      failedRequests: 0,
      error: 'server not ready: the server exited (status 3)',
    },
    {
      mode: 'thinking_off',
      draftLength: 1,
      estimate: estimateAl([
        { accepted: 81, drafts: 90 },
        { accepted: 84, drafts: 90 },
      ]),
      requests: 2,
      failedRequests: 1,
    },
    {
      mode: 'thinking_off',
      draftLength: 3,
      estimate: estimateAl([
        { accepted: 190, drafts: 100 },
        { accepted: 200, drafts: 100 },
      ]),
      requests: 2,
      failedRequests: 0,
    },
  ];
  const text = goldenYaml(
    {
      modelKey: 'my-model',
      measuredOn: 'B300, vLLM MTP',
      category: 'coding',
      temperature: 1,
      topP: 0.95,
      outputLen: 4096,
      kwargs: { thinking_on: '{"thinking": true, "reasoning_effort": "high"}' },
      modes: ['thinking_off', 'thinking_on'],
      draftLengths: [1, 3],
      sourceRun: 'https://github.com/o/r/actions/runs/1',
      version: '1.2.3',
    },
    cells,
  );

  it('has InferenceX’s header and layout: on before off, draft length: AL, N/A for a failed cell', () => {
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '# Source GitHub Actions run: https://github.com/o/r/actions/runs/1',
      '# Acceptance Length (AL) reference values measured with SPEED-Bench.',
      '# dataset: coding | temperature: 1.0 | top_p: 0.95 | output_len: 4096',
      '# thinking_on chat_template_kwargs: {"thinking": true, "reasoning_effort": "high"}',
    ]);
    expect(lines).toContain('# Measured on my-model (B300, vLLM MTP), per num_speculative_tokens.');
    const body = lines.slice(lines.indexOf('my-model:')).map((l) => l.replace(/\s+#.*$/, ''));
    expect(body).toEqual([
      'my-model:',
      '  thinking_on:',
      '    1: 1.79',
      '    3: N/A',
      '  thinking_off:',
      '    1: 1.92',
      '    3: 2.95',
      '',
    ]);
    // Each value says how sure it is; the file is ASCII, whatever encoding its reader assumes.
    expect(text).toContain('    1: 1.92  # 1.9167, 95% CI [');
    expect(text).toContain(', 2 requests, 1 failed, 180 drafts');
    expect(text).toContain('    3: N/A  # server not ready: the server exited (status 3)');
    expect(/^[\x20-\x7e\n]*$/.test(text)).toBe(true);
  });

  it('reads back through Frontier’s golden-curve reader with the same values, kwargs and provenance', async () => {
    const f = await parseGoldenFile('x.yaml', text);
    expect(f.sourceRun).toBe('https://github.com/o/r/actions/runs/1');
    expect(f.measuredOn).toBe('my-model (B300, vLLM MTP)');
    expect(f.chatTemplateKwargs.thinking_on).toEqual({ thinking: true, reasoning_effort: 'high' });
    expect(f.curves.map((c) => c.unmeasured)).toEqual([[3], []]);
    expect(f.curves.map((c) => [c.model, c.mode, c.points.map((p) => [p.draftLength, p.al])])).toEqual([
      ['my-model', 'thinking_on', [[1, 1.79]]],
      [
        'my-model',
        'thinking_off',
        [
          [1, 1.92],
          [3, 2.95],
        ],
      ],
    ]);
  });
});

describe('SPEED-Bench rows', () => {
  it('the fixture folder’s qualitative.jsonl: the category’s first user turns, in file order', () => {
    const data = readSpeedBench(speedBenchFile(FIXTURE), 'coding');
    expect(data.file).toBe(join(FIXTURE, 'qualitative.jsonl'));
    expect(data.categories).toEqual(['coding', 'math', 'writing']);
    expect(data.prompts).toHaveLength(6);
    expect(data.prompts[0]!.prompt).toMatch(/^Write a Python function `merge_intervals/);
    expect(data.prompts[0]!.id).toMatch(/^[0-9a-f]{32}$/);
    expect(readSpeedBench(speedBenchFile(FIXTURE), 'math').prompts).toHaveLength(2);
  });

  it('reads the Hub’s rows (turns) too, and refuses its placeholder rather than send it', () => {
    const dir = tempFiles({
      'hub.jsonl': `${JSON.stringify({ question_id: 'a', category: 'coding', turns: ['first turn', 'second turn'] })}\n`,
      'raw.jsonl': `${JSON.stringify({ question_id: 'b', category: 'coding', turns: [`${PLACEHOLDER}\n\n{question}`] })}\n`,
    });
    const hub = readSpeedBench(join(dir, 'hub.jsonl'), 'coding');
    expect(hub.prompts.map((p) => [p.prompt, p.laterTurns])).toEqual([['first turn', 1]]);
    expect(() => readSpeedBench(join(dir, 'raw.jsonl'), 'coding')).toThrow(
      `${join(dir, 'raw.jsonl')}:1: SPEED-Bench's placeholder instead of the prompt`,
    );
  });

  it('an unknown category, a category the file lacks, a missing file: errors naming the flag or file and the fix', () => {
    expect(() => readSpeedBench(speedBenchFile(FIXTURE), 'cooking')).toThrow('--category cooking: not a SPEED-Bench category');
    expect(() => readSpeedBench(speedBenchFile(FIXTURE), 'roleplay')).toThrow(
      /no roleplay prompts in .*qualitative\.jsonl \(its categories: coding, math, writing\)/,
    );
    const empty = tempFiles({});
    mkdirSync(join(empty, 'data'));
    expect(() => speedBenchFile(join(empty, 'nope'))).toThrow(`--data ${join(empty, 'nope')}: no such file or folder`);
    expect(() => speedBenchFile(join(empty, 'data'))).toThrow(
      `--data ${join(empty, 'data')}: the folder has no qualitative.jsonl`,
    );
    try {
      speedBenchFile(join(empty, 'nope'));
    } catch (e) {
      expect((e as { hint?: string }).hint).toContain('prepare.py');
    }
  });
});
