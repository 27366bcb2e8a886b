import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticSpecFlags, syntheticSpecOf } from '../../src/engines/synthetic-knobs.js';
import { tempFiles } from '../helpers.js';

// Command lines and environments as InferenceX's agentic MTP scripts give them to the engine
// (test/fixtures/inferencex/tree/benchmarks/single_node/agentic/).
describe('the synthetic acceptance an engine command line was told', () => {
  it('reads each engine’s knob as the engine does', () => {
    // dsv4_fp4_b300_vllm_mtp.sh: SPEC_CONFIG with synthetic rejection sampling.
    const vllm = ['serve', 'deepseek-ai/DeepSeek-V4-Pro', '--port', '8888', '--speculative-config'];
    const config = {
      method: 'mtp',
      num_speculative_tokens: 3,
      rejection_sample_method: 'synthetic',
      synthetic_acceptance_length: 2.49,
    };
    expect(syntheticSpecOf([...vllm, JSON.stringify(config)], {})).toEqual({
      draftTokens: 3,
      acceptanceLength: 2.49,
      source: 'vLLM synthetic_acceptance_length',
    });
    expect(syntheticSpecFlags(syntheticSpecOf([...vllm, JSON.stringify(config)], {}))).toEqual([
      '--spec-draft-tokens',
      '3',
      '--spec-acceptance',
      '2.49',
    ]);
    // dsv4_fp4_mi355x_atom_mtp.sh and glm5.2_fp4_mi355x_atom_mtp.sh: ATOM's length, or its rate (AL − 1) / N.
    const atom = ['-m', 'atom.entrypoints.openai_server', '--method', 'mtp', '--num-speculative-tokens', '3'];
    expect(syntheticSpecOf([...atom, '--spec-decode-acceptance-length', '2.49'], {})).toMatchObject({
      draftTokens: 3,
      acceptanceLength: 2.49,
    });
    expect(syntheticSpecOf([...atom, '--spec-decode-acceptance-rate', '0.663333'], {})!.acceptanceLength).toBeCloseTo(2.99, 4);
    // qwen3.5_fp8_h200_mtp.sh (SGLang): the environment, drafts from the EAGLE steps.
    const sglang = ['-m', 'sglang.launch_server', '--speculative-algorithm', 'EAGLE', '--speculative-num-steps', '3'];
    expect(syntheticSpecOf(sglang, { SGLANG_SIMULATE_ACC_LEN: '3.39' })).toMatchObject({
      draftTokens: 3,
      acceptanceLength: 3.39,
    });
    // minimaxm3_fp4_b200_trt_mtp.sh: accepted drafts forced to AL − 1, drafts from the --config YAML.
    const dir = tempFiles({ 'ser.yaml': 'speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n' });
    const trt = ['serve', 'MiniMaxAI/MiniMax-M3', '--config', join(dir, 'ser.yaml')];
    expect(syntheticSpecOf(trt, { TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: '1.78' })).toMatchObject({
      draftTokens: 3,
      acceptanceLength: 2.78,
    });
    // Dynamo's TensorRT-LLM worker: the drafts in --override-engine-args (MTP layers).
    const dynamoTrt = [
      '-m',
      'dynamo.trtllm',
      '--override-engine-args',
      '{"speculative_config":{"decoding_type":"MTP","num_nextn_predict_layers":1}}',
    ];
    expect(syntheticSpecOf(dynamoTrt, { TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: '0.93' })).toMatchObject({
      draftTokens: 1,
      acceptanceLength: 1.93,
    });
  });

  it('real acceptance (an eval-only run, which strips the knob) is not simulated', () => {
    const real = { method: 'mtp', num_speculative_tokens: 3 };
    expect(syntheticSpecOf(['serve', 'm', '--speculative-config', JSON.stringify(real)], {})).toBeUndefined();
    expect(syntheticSpecOf(['serve', 'm', '--speculative-num-steps', '3'], { SGLANG_SIMULATE_ACC_LEN: '' })).toBeUndefined();
    expect(syntheticSpecOf(['serve', 'm'], {})).toBeUndefined();
    expect(syntheticSpecFlags(undefined)).toEqual([]);
  });

  it('a knob the engine could not read is an error naming it', () => {
    expect(() => syntheticSpecOf(['serve', 'm', '--speculative-config', '{method: mtp}'], {})).toThrow(
      /^--speculative-config is not JSON/,
    );
    expect(() =>
      syntheticSpecOf(
        ['serve', 'm', '--speculative-config', '{"rejection_sample_method":"synthetic","num_speculative_tokens":3}'],
        {},
      ),
    ).toThrow(/without a numeric synthetic_acceptance_length/);
    expect(() => syntheticSpecOf(['serve', 'm'], { SGLANG_SIMULATE_ACC_LEN: 'high' })).toThrow(
      'SGLANG_SIMULATE_ACC_LEN is "high", not a number',
    );
    expect(() => syntheticSpecOf(['serve', 'm', '--spec-decode-acceptance-length', '2.49'], {})).toThrow(
      /needs --num-speculative-tokens/,
    );
  });
});
