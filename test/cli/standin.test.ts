import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, announcedUrl, freePort, runCliAsync, tempFiles } from '../helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('an engine stand-in told synthetic acceptance', () => {
  it('serves speculative decoding at that acceptance, and the bench measures it with vLLM’s counters', async () => {
    const port = await freePort();
    // As dsv4_fp4_b300_vllm_mtp.sh starts vLLM: the golden AL in the speculative config.
    const config = {
      method: 'mtp',
      num_speculative_tokens: 3,
      rejection_sample_method: 'synthetic',
      synthetic_acceptance_length: 2.49,
    };
    const env = {
      MODEL: 'meta-llama/Llama-3.1-8B-Instruct',
      FRONTIER_SIM_GPU: 'h100',
      PRECISION: 'fp8',
      TP: '1',
      FRONTIER_SIM_ARGS: '--speed 10',
    };
    const child = spawn(
      process.execPath,
      [
        CLI,
        'standin',
        'engine',
        'vllm',
        'serve',
        env.MODEL,
        '--port',
        String(port),
        '--speculative-config',
        JSON.stringify(config),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await announcedUrl(child);
    expect(stderr).toContain(
      'stand-in: speculative decoding, 3 draft tokens, acceptance length 2.49 (vLLM synthetic_acceptance_length)',
    );

    const out = join(tempFiles({}), 'result.json');
    const bench = await runCliAsync([
      'bench',
      '--base-url',
      url,
      '--model',
      env.MODEL,
      '--tokenizer',
      'gpt2',
      '--dataset-name',
      'random',
      '--random-input-len',
      '256',
      '--random-output-len',
      '64',
      '--num-prompts',
      '32',
      '--max-concurrency',
      '8',
      '--ignore-eos',
      '--time-scale',
      '10',
      '--expected-acceptance-length',
      '2.49',
      '--result-file',
      out,
    ]);
    // Judged on the acceptance check, not the run's validity, which a starved client can take away.
    expect(bench.stderr).toBe(`result written to ${out}\n`);
    expect(bench.stdout).toMatch(/Expected acceptance length 2\.49: within noise/);
    const result = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown> & {
      frontier: { valid: boolean; acceptance_length_check: { far: boolean; stderr: number } };
    };
    expect(result.frontier.acceptance_length_check.far).toBe(false);
    // One draft in two accepts a second token: per-position rates 1, 0.49, 0.
    const drafts = result.spec_decode_num_drafts as number;
    expect(Math.abs((result.spec_decode_acceptance_length as number) - 2.49)).toBeLessThan(4 * Math.sqrt((0.49 * 0.51) / drafts));
    expect(result.spec_decode_per_position_acceptance_rates).toEqual([1, expect.closeTo(0.49, 1), 0]);
    expect(result.spec_decode_draft_tokens).toBe(3 * drafts);
  });
});
