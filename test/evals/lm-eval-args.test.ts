// InferenceX's run_lm_eval command line, as the lm_eval stand-in hands it to frontier eval run.
import { describe, expect, it } from 'vitest';
import { lmEvalArgs, sanitizedModel } from '../../src/evals/lm-eval-args.js';

// benchmark_lib.sh's run_lm_eval, as a script ran it (test/launch/inferencex-run.test.ts records it).
const RUN_LM_EVAL = [
  '--model',
  'local-chat-completions',
  '--apply_chat_template',
  '--tasks',
  'utils/evals/gsm8k.yaml',
  '--output_path',
  '/tmp/eval_out-abc',
  '--log_samples',
  '--model_args',
  'model=deepseek-ai/DeepSeek-R1-0528,base_url=http://0.0.0.0:8888/v1/chat/completions,api_key=EMPTY,eos_string=</s>,max_retries=5,num_concurrent=32,timeout=1800,tokenized_requests=False,max_length=9472',
  '--gen_kwargs',
  'max_tokens=5376,temperature=0,top_p=1',
  '--limit',
  '20',
];
const ENV = { FRONTIER_EVAL_DATA: '/data/evals' };

describe('the lm_eval stand-in', () => {
  it('gives frontier eval run the same tasks, server, sampling, limits and lm-eval’s output folder', () => {
    expect(lmEvalArgs(RUN_LM_EVAL, ENV, '/workspace')).toEqual([
      'run',
      '--task',
      '/workspace/utils/evals/gsm8k.yaml',
      '--data',
      '/data/evals',
      '--base-url',
      'http://0.0.0.0:8888',
      '--model',
      'deepseek-ai/DeepSeek-R1-0528',
      '--endpoint',
      'chat',
      '--api-key',
      'EMPTY',
      '--concurrency',
      '32',
      '--timeout',
      '1800',
      '--max-retries',
      '5',
      '--max-model-len',
      '9472',
      '--temperature',
      '0',
      '--top-p',
      '1',
      '--limit',
      '20',
      '--out',
      '/tmp/eval_out-abc/deepseek-ai__DeepSeek-R1-0528',
    ]);
  });

  it('without the run’s datasets, leaves them to frontier eval run’s own default', () => {
    expect(lmEvalArgs(RUN_LM_EVAL, {}, '/workspace')).not.toContain('--data');
  });

  it('names lm-eval’s model directory as lm-eval does', () => {
    expect(sanitizedModel('deepseek-ai/DeepSeek-R1-0528')).toBe('deepseek-ai__DeepSeek-R1-0528');
    expect(sanitizedModel('a:b/c')).toBe('a__b__c');
  });

  it('refuses what frontier eval run cannot do, by name', () => {
    const without = (flag: string): string[] => {
      const i = RUN_LM_EVAL.indexOf(flag);
      return [...RUN_LM_EVAL.slice(0, i), ...RUN_LM_EVAL.slice(i + 2)];
    };
    expect(() => lmEvalArgs([...RUN_LM_EVAL, '--num_fewshot', '3'], ENV)).toThrow(/--num_fewshot is not supported/);
    expect(() => lmEvalArgs(['--model', 'hf', ...RUN_LM_EVAL.slice(2)], ENV)).toThrow(/--model hf: only local-chat-completions/);
    const args = RUN_LM_EVAL.map((a) => a.replace('timeout=1800', 'seed=1'));
    expect(() => lmEvalArgs(args, ENV)).toThrow(/--model_args: seed is not supported/);
    expect(() =>
      lmEvalArgs(
        RUN_LM_EVAL.map((a) => a.replace('max_tokens=5376', 'max_tokens=100')),
        ENV,
      ),
    ).toThrow(/max_tokens=100: frontier eval run caps output at 5376 for max_length=9472/);
    expect(() => lmEvalArgs(without('--output_path'), ENV)).toThrow(/no --output_path/);
  });
});
