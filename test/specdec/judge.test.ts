import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_GOLDEN_DIR, curvesFor, parseGoldenFile, readGoldenDir } from '../../src/specdec/golden.js';
import type { GoldenFile } from '../../src/specdec/golden.js';
import { alOf, judge, knobValue } from '../../src/specdec/judge.js';
import { REPO } from '../helpers.js';

let files: GoldenFile[];
beforeAll(async () => {
  files = await readGoldenDir(join(REPO, 'src/specdec/golden-al'));
});

describe('golden curves', () => {
  it("read InferenceX's files: models, modes, header kwargs and the source run", () => {
    expect(BUILTIN_GOLDEN_DIR.endsWith('golden-al/')).toBe(true);
    const dsv4 = curvesFor(files, 'dsv4');
    expect(dsv4.map((c) => [c.model, c.mode, c.points.length])).toEqual([
      ['deepseek-v4-pro', 'thinking_on', 8],
      ['deepseek-v4-pro', 'thinking_off', 8],
    ]);
    expect(dsv4[0]!.points[2]).toEqual({ draftLength: 3, al: 2.49, line: 13 });
    const file = files.find((f) => f.file === 'dsv4_mtp.yaml')!;
    expect(file.sourceRun).toBe('https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27180633016');
    expect(file.chatTemplateKwargs.thinking_on).toEqual({ thinking: true, reasoning_effort: 'high' });
    // A prefix InferenceX's injector does not map names the files whose stem starts with it.
    expect(new Set(curvesFor(files, 'minimaxm3').map((c) => c.file))).toEqual(
      new Set(['minimaxm3_eagle3.yaml', 'minimaxm3_eagle3_gqa.yaml']),
    );
    expect(curvesFor(files, 'dsv4dspark').map((c) => c.model)).toEqual(['deepseek-v4-pro-0813']);
  });

  it('refuse a malformed file with its line and key', async () => {
    await expect(parseGoldenFile('x.yaml', 'm:\n  thinking_on:\n    0: 1.5\n')).rejects.toThrow(
      'x.yaml:3: m.thinking_on.0: draft length 0',
    );
    await expect(parseGoldenFile('x.yaml', 'm:\n  thinking_maybe:\n    1: 1.5\n')).rejects.toThrow(
      'x.yaml:2: m.thinking_maybe: unknown thinking mode',
    );
  });
});

describe('judge', () => {
  const dsv4 = (): ReturnType<typeof curvesFor> => curvesFor(files, 'dsv4');
  it('accepts the golden value of either mode when the deployment does not say which it serves', () => {
    const pin = { knob: 'synthetic_acceptance_length' as const, written: '2.97', draftLengths: [3] };
    expect(judge(pin, { model: 'deepseek-v4-pro' }, dsv4(), files)).toBeUndefined();
    expect(judge({ ...pin, written: '2.49' }, { model: 'deepseek-v4-pro' }, dsv4(), files)).toBeUndefined();
  });

  it('holds a value to the mode the deployment serves', () => {
    const pin = { knob: 'SYNTHETIC_ACCEPTANCE_LENGTH' as const, written: '2.97', draftLengths: [3] };
    const verdict = judge(pin, { model: 'deepseek-v4-pro', thinking: 'thinking_on' }, dsv4(), files)!;
    expect(verdict.rule).toBe('specdec/thinking-mode');
    expect(verdict.hint).toContain('set SYNTHETIC_ACCEPTANCE_LENGTH to 2.49');
  });

  it("converts TRT-LLM's accepted-draft count and ATOM's rate", () => {
    expect(alOf('TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS', 1.49, 3)).toBeCloseTo(2.49);
    expect(alOf('--spec-decode-acceptance-rate', 0.5, 3)).toBeCloseTo(2.5);
    expect(knobValue('--spec-decode-acceptance-rate', 2.49, 3)).toBe('0.4967');
    const rate = { knob: '--spec-decode-acceptance-rate' as const, written: '0.4967', draftLengths: [3] };
    expect(judge(rate, { model: 'deepseek-v4-pro' }, dsv4(), files)).toBeUndefined();
  });

  it('says when a model has no curve, or a draft length none of its curves has', () => {
    const pin = { knob: 'SGLANG_SIMULATE_ACC_LEN' as const, written: '2.5', draftLengths: [2] };
    expect(judge(pin, { model: 'deepseek-r1' }, curvesFor(files, 'dsr1'), files)?.message).toContain(
      'has no committed golden AL curve',
    );
    expect(judge({ ...pin, draftLengths: [12] }, { model: 'deepseek-v4-pro' }, dsv4(), files)?.rule).toBe('specdec/draft-length');
  });
});
