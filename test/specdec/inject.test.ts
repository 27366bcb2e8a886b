import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectSyntheticAcceptance } from '../../src/specdec/inject.js';
import { REPO, tempFiles, yamlCorpus } from '../helpers.js';

/**
 * Synthetic acceptance written into real srt-slurm recipes is byte-identical to what InferenceX's
 * own injector (runners/inject_synthetic_acceptance.py, in the fixture tree) writes, and refused
 * where it refuses.
 */

const INJECTOR = join(REPO, 'test/fixtures/inferencex/tree/runners/inject_synthetic_acceptance.py');
const corpus = yamlCorpus();
const recipe = (path: string): string => corpus[`srt-slurm-recipes/${path}`]!;

function reference(text: string, framework: string, length: string): { status: number; text: string; output: string } {
  const dir = tempFiles({ 'recipe.yaml': text });
  const file = join(dir, 'recipe.yaml');
  const r = spawnSync('python3', [INJECTOR, file, framework], {
    env: { ...process.env, SYNTHETIC_ACCEPTANCE: 'true', SYNTHETIC_ACCEPTANCE_LENGTH: length },
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, text: readFileSync(file, 'utf8'), output: r.stdout + r.stderr };
}

describe('injectSyntheticAcceptance', () => {
  const cases: [string, string, string][] = [
    ['vllm/deepseek-v4/8k1k/disagg-b200-1p1d-dep8-tp8-mtp.yaml', 'dynamo-vllm', '2.49'],
    ['vllm/deepseek-v4/8k1k/disagg-b200-1p1d-dep8-tp8-mtp.yaml', 'dynamo-vllm', '3'],
    ['sglang/deepseek-v4/8k1k/disagg-gb200-low-latency-1p1d-tp8-tp8-mtp.yaml', 'dynamo-sglang', '2.49'],
  ];
  for (const [path, framework, length] of cases)
    it(`writes what InferenceX's injector writes: ${framework} ${path} at ${length}`, () => {
      const text = recipe(path);
      const expected = reference(text, framework, length);
      expect(expected.status).toBe(0);
      expect(expected.text).not.toBe(text);
      const mine = injectSyntheticAcceptance(text, framework, { fixed: Number(length), curve: {}, source: 'test' }, path);
      expect(mine).toBe(expected.text);
    });

  it('refuses where the reference refuses', () => {
    const hardCoded = recipe('sglang/glm5.2/gb300-fp4/agentic/glm5.2-agentx.yaml');
    expect(reference(hardCoded, 'dynamo-sglang', '2.5').status).not.toBe(0);
    expect(() => injectSyntheticAcceptance(hardCoded, 'dynamo-sglang', { fixed: 2.5, curve: {}, source: 't' }, 'x.yaml')).toThrow(
      'x.yaml: the recipe already contains SGLANG_SIMULATE_ACC_* variables',
    );
    const noSpec = recipe('sglang/deepseek-v4/8k1k/disagg-gb200-low-latency-1p1d-tp8-tp8-mtp.yaml');
    expect(reference(noSpec, 'dynamo-vllm', '2.49').status).not.toBe(0);
    expect(() => injectSyntheticAcceptance(noSpec, 'dynamo-vllm', { fixed: 2.49, curve: {}, source: 't' }, 'y.yaml')).toThrow(
      "y.yaml: synthetic acceptance asked for, but the recipe has no speculative-config: '<json>' entry",
    );
    expect(reference(noSpec, 'dynamo-trt', '2.49').output).toContain(
      "no synthetic-acceptance injector is registered for FRAMEWORK='dynamo-trt'",
    );
    expect(() => injectSyntheticAcceptance(noSpec, 'dynamo-trt', { fixed: 2.49, curve: {}, source: 't' }, 'z.yaml')).toThrow(
      'no injector for framework dynamo-trt',
    );
  });

  it('looks the golden AL up at the draft length the recipe runs', () => {
    const text = recipe('vllm/deepseek-v4/8k1k/disagg-b200-3p1d-dep8-dep8-mtp.yaml');
    const out = injectSyntheticAcceptance(text, 'dynamo-vllm', { curve: { 1: 1.79, 3: 2.49 }, source: 'dsv4' }, 'r.yaml');
    expect(out).toContain(
      `'{"method":"mtp","num_speculative_tokens":1,"rejection_sample_method":"synthetic","synthetic_acceptance_length":1.79}'`,
    );
  });
});
