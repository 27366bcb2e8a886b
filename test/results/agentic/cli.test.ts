/** `frontier results agentic` and `agentic-validate` as drop-ins for the reference scripts (the built CLI). */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers.js';
import { tempDir } from './support.js';

const GOLDEN = join(import.meta.dirname, '..', '..', 'fixtures', 'agentic', 'aggregation', 'golden');

function goldenCopy(name: string): { dir: string; env: Record<string, string> } {
  const dir = join(tempDir(), name);
  cpSync(join(GOLDEN, name), dir, { recursive: true });
  return { dir, env: JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as Record<string, string> };
}

describe('frontier results agentic', () => {
  it('writes the reference aggregate and prints its summary, from the environment', () => {
    const { dir, env } = goldenCopy('dynamo-multinode');
    const out = runCli(['results', 'agentic'], { cwd: dir, env: { ...env, AGENTIC_OUTPUT_DIR: 'out' } });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(readFileSync(join(dir, 'out', 'agg_golden.json'), 'utf8')).toBe(readFileSync(join(dir, 'expected.json'), 'utf8'));
    expect(out.stdout).toBe(
      `Saved aggregated agentic result to out/agg_golden.json\n${readFileSync(join(dir, 'expected.stdout'), 'utf8')}`,
    );
  });

  it('lets options override RESULT_DIR, AGENTIC_OUTPUT_DIR and RESULT_FILENAME', () => {
    const { dir, env } = goldenCopy('atom');
    const out = runCli(
      ['results', 'agentic', '--result-dir', env.RESULT_DIR!, '--output-dir', 'elsewhere', '--result-filename', 'agg_x'],
      {
        cwd: dir,
        env: { ...env, RESULT_DIR: 'missing', RESULT_FILENAME: 'ignored' },
      },
    );
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('Saved aggregated agentic result to elsewhere/agg_x.json');
    expect(readFileSync(join(dir, 'elsewhere', 'agg_x.json'), 'utf8')).toBe(readFileSync(join(dir, 'expected.json'), 'utf8'));
  });

  it('refuses without RESULT_FILENAME, without records, and on a bad environment', () => {
    const { dir, env } = goldenCopy('atom');
    expect(runCli(['results', 'agentic'], { cwd: dir, env: { ...env, RESULT_FILENAME: '' } })).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('RESULT_FILENAME env var not set'),
    });
    expect(runCli(['results', 'agentic'], { cwd: dir, env: { ...env, RESULT_DIR: 'nope' } })).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('nope/aiperf_artifacts/profile_export.jsonl not found'),
    });
    const bad = runCli(['results', 'agentic'], {
      cwd: dir,
      env: { ...env, KV_OFFLOADING: 'dram', KV_OFFLOAD_BACKEND: 'lmcache' },
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('KV_OFFLOAD_BACKEND is required when KV_OFFLOADING is enabled');
  });
});

describe('frontier results agentic-validate', () => {
  const artifacts = (dir: string): string => join(dir, 'result', 'aiperf_artifacts');

  it('passes within the threshold with the reference message, fails above it with exit 1', () => {
    const { dir } = goldenCopy('vllm-offload');
    const ok = runCli(['results', 'agentic-validate', artifacts(dir), '--failed-request-threshold', '0.1']);
    expect(ok).toMatchObject({ status: 0, stdout: 'Validated aiperf request error rate: 3/40 = 7.500% <= 10.000%\n' });
    const bad = runCli(['results', 'agentic-validate', artifacts(dir), '--failed-request-threshold', '0.05']);
    expect(bad).toMatchObject({
      status: 1,
      stderr: 'ERROR: aiperf request error rate exceeded the benchmark limit: 3/40 = 7.500% > 5.000%\n',
    });
  });

  it('refuses an aggregate whose figures cannot be, with exit 1 and the reason', () => {
    const dir = join(tempDir(), 'aiperf_artifacts');
    mkdirSync(dir, { recursive: true });
    const aggregate = { request_count: { avg: 19 }, total_token_throughput: { avg: 2.9e11 } };
    writeFileSync(join(dir, 'profile_export_aiperf.json'), JSON.stringify(aggregate));
    expect(runCli(['results', 'agentic-validate', dir, '--failed-request-threshold', '0.1'])).toMatchObject({
      status: 1,
      stdout: '',
      stderr:
        'ERROR: implausible aggregate: total_token_throughput.avg 2.9e+11 tokens/s is above 1e+09, more than any deployment reaches\n',
    });
  });

  it('names a missing aggregate as given, and refuses a threshold outside 0..1 with exit 2', () => {
    const missing = runCli(['results', 'agentic-validate', 'nope', '--failed-request-threshold', '0.1'], { cwd: tempDir() });
    expect(missing).toMatchObject({ status: 1, stderr: 'ERROR: nope/profile_export_aiperf.json not found\n' });
    expect(runCli(['results', 'agentic-validate', 'x', '--failed-request-threshold', '1.5']).status).toBe(2);
    expect(runCli(['results', 'agentic-validate', 'x', '--failed-request-threshold', 'abc']).status).toBe(2);
  });
});
