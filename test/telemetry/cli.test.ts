import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO, runCli } from '../helpers.js';
import { dcgmEndpoint } from '../../src/cli/telemetry.js';
import { waitFor } from '../support/wait.js';
import { NVIDIA_HEADER, dataLines, fakeNvidiaSmi, fakePath, tempDir } from './fakes.js';

function sample(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, 'telemetry', 'sample', ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('frontier telemetry sample', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`samples until ${signal}, then stops cleanly (post-exit sample, summary) and exits 0`, async () => {
      const bin = tempDir();
      fakeNvidiaSmi(bin);
      const out = join(tempDir(), 'node-1');
      const run = sample(['--source', 'auto', '--out', out, '--interval-ms', '50'], { ...process.env, PATH: fakePath(bin) });
      const csv = join(out, 'gpu_metrics.csv');
      await waitFor(() => existsSync(csv) && dataLines(readFileSync(csv, 'utf8')).length >= 4, {
        what: () => `samples in ${csv}; stderr: ${run.err()}`,
        timeoutMs: 10_000,
      });
      run.child.kill(signal);
      expect(await run.exited).toBe(0);
      const summary = JSON.parse(run.out()) as { source: string; samples: number; died_before_stop: boolean };
      expect(summary).toMatchObject({ source: 'nvidia-smi', died_before_stop: false });
      const lines = readFileSync(join(out, 'gpu_metrics.csv'), 'utf8').split('\n');
      expect(lines[0]).toBe(NVIDIA_HEADER);
      expect(lines.slice(-3, -1).every((l) => l.includes('999.00 W'))).toBe(true);
      expect(summary.samples).toBe(lines.length - 2);
      expect(run.err()).toContain(`${signal}: stopping`);
    });
  }

  it('with no source found still runs until signalled, and says so', async () => {
    const out = tempDir();
    const run = sample(['--out', out, '--hwmon-root', tempDir()], { ...process.env, PATH: '/usr/bin:/bin' });
    await waitFor(() => run.err().includes('no GPU telemetry source found'), {
      what: () => `"no GPU telemetry source found" on stderr: ${run.err()}`,
      timeoutMs: 10_000,
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(JSON.parse(run.out())).toMatchObject({ source: 'none', samples: 0 });
  });

  it('refuses an explicit source that is missing, and a bad interval', () => {
    const missing = runCli(['telemetry', 'sample', '--source', 'amd-smi', '--out', tempDir()], {
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('amd-smi is not on PATH');
    const bad = runCli(['telemetry', 'sample', '--out', tempDir(), '--interval-ms', '0']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--interval-ms');
  });

  it('takes an exporter as URL or HOST=URL', () => {
    expect(dcgmEndpoint('http://n1:9400/metrics')).toEqual({ url: 'http://n1:9400/metrics' });
    expect(dcgmEndpoint('gb200-07=http://10.0.0.7:9400/metrics')).toEqual({
      hostname: 'gb200-07',
      url: 'http://10.0.0.7:9400/metrics',
    });
    expect(dcgmEndpoint('http://n1:9400/metrics?a=b')).toEqual({ url: 'http://n1:9400/metrics?a=b' });
  });
});
