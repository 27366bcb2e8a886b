import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NVIDIA_QUERY, detectSource, startSampler } from '../../src/telemetry/index.js';
import type { SamplerSummary } from '../../src/telemetry/index.js';
import { waitFor } from '../support/wait.js';
import { AMD_HEADER, NVIDIA_HEADER, dataLines, fakeAmdSmi, fakeNvidiaSmi, fakePath, fakeSysfs, tempDir } from './fakes.js';

const read = (path: string): string => readFileSync(path, 'utf8');
/** Until the sampler's CSV in `out` holds at least `n` data rows. */
const rowsWritten = (out: string, n: number): Promise<boolean> =>
  waitFor(() => existsSync(join(out, 'gpu_metrics.csv')) && dataLines(read(join(out, 'gpu_metrics.csv'))).length >= n, {
    what: `${n} rows in ${join(out, 'gpu_metrics.csv')}`,
  });
/** Until the sampler's tool has exited by itself. */
const died = (handle: { alive(): boolean }): Promise<boolean> =>
  waitFor(() => !handle.alive(), { what: 'the tool to exit', timeoutMs: 10_000 });
const NVIDIA_ROW = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}, [01], \d+\.\d{2} W, 45, 1980 MHz, 2619 MHz, 87 %, 45 %$/;

function setup(tool: 'nvidia' | 'amd', extra: NodeJS.ProcessEnv = {}) {
  const bin = tempDir();
  const out = tempDir();
  if (tool === 'nvidia') fakeNvidiaSmi(bin);
  else fakeAmdSmi(bin);
  const log = join(bin, 'calls.log');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: fakePath(bin),
    FAKE_LOG: log,
    FAKE_COUNTER: join(bin, 'counter'),
    ...extra,
  };
  delete env.PYTHONUNBUFFERED; // only the watch gets it
  return { bin, out, log, env };
}

const sidecar = (out: string): SamplerSummary => JSON.parse(read(join(out, 'gpu_metrics_sampler.json'))) as SamplerSummary;

describe('nvidia-smi sampler', () => {
  it('writes the CSV as nvidia-smi prints it, then one post-exit sample, the offset and the summary', async () => {
    const { out, log, env } = setup('nvidia');
    const handle = await startSampler({ source: 'nvidia-smi', dir: out, intervalMs: 50, env });
    expect(handle.source).toBe('nvidia-smi');
    await rowsWritten(out, 4);
    expect(handle.alive()).toBe(true);
    const running = sidecar(out);
    expect(running.stopped_at).toBeNull();
    const summary = await handle.stop();
    const lines = read(join(out, 'gpu_metrics.csv')).split('\n');
    expect(lines[0]).toBe(NVIDIA_HEADER);
    expect(lines.at(-1)).toBe('');
    const rows = lines.slice(1, -1);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const row of rows) expect(row).toMatch(NVIDIA_ROW);
    // The last two rows are the post-exit one-shot (999.00 W), one per GPU, no header repeated.
    expect(rows.slice(-2).map((r) => r.split(', ').slice(1, 3).join(','))).toEqual(['0,999.00 W', '1,999.00 W']);
    expect(rows.filter((r) => r.includes('999.00 W'))).toHaveLength(2);
    expect(read(log).trim().split('\n')).toEqual([
      `nvidia-smi --query-gpu=${NVIDIA_QUERY} --format=csv -lms 50`,
      `nvidia-smi --query-gpu=${NVIDIA_QUERY} --format=csv,noheader`,
    ]);
    expect(read(join(out, 'gpu_metrics_timezone_offset.txt'))).toMatch(/^[+-]\d{4}\n$/);
    expect(summary).toMatchObject({
      source: 'nvidia-smi',
      csv: 'gpu_metrics.csv',
      command: ['nvidia-smi', `--query-gpu=${NVIDIA_QUERY}`, '--format=csv', '-lms', '50'],
      interval_ms: 50,
      died_before_stop: false,
      exit_signal: 'SIGTERM',
      samples: rows.length,
      warnings: [],
    });
    expect(sidecar(out)).toEqual(summary);
    expect(await handle.stop()).toBe(summary);
  });

  it('runs the tool in the given TZ: its timestamps and the captured offset follow it', async () => {
    const { out, env } = setup('nvidia', { TZ: 'Asia/Kolkata' });
    const handle = await startSampler({ source: 'nvidia-smi', dir: out, intervalMs: 50, env });
    await rowsWritten(out, 2);
    await handle.stop();
    expect(read(join(out, 'gpu_metrics_timezone_offset.txt'))).toBe('+0530\n');
    const first = read(join(out, 'gpu_metrics.csv')).split('\n')[1]!.split(', ')[0]!;
    const asUtc = Date.parse(`${first.replace(/\//g, '-').replace(' ', 'T')}Z`);
    // Local Kolkata time read as UTC is 5.5 h ahead of now.
    expect(Math.abs(asUtc - Date.now() - 5.5 * 3600_000)).toBeLessThan(60_000);
  });

  it('drops a truncated last row before appending the post-exit sample', async () => {
    const { out, env } = setup('nvidia', { FAKE_TRUNCATE: '1' });
    const handle = await startSampler({ source: 'nvidia-smi', dir: out, intervalMs: 50, env });
    await rowsWritten(out, 2);
    const summary = await handle.stop();
    const text = read(join(out, 'gpu_metrics.csv'));
    const rows = text.split('\n').slice(1, -1);
    for (const row of rows) expect(row).toMatch(NVIDIA_ROW);
    expect(rows.slice(-2).every((r) => r.includes('999.00 W'))).toBe(true);
    expect(summary.warnings).toEqual(['dropped truncated trailing sample']);
  });

  it('a tool that dies mid-run is reported, its rows kept, and no post-exit sample taken', async () => {
    const { out, log, env } = setup('nvidia', { FAKE_DIE_AFTER: '3' });
    const handle = await startSampler({ source: 'nvidia-smi', dir: out, intervalMs: 20, env });
    await died(handle);
    expect(handle.alive()).toBe(false);
    const summary = await handle.stop();
    expect(summary).toMatchObject({ died_before_stop: true, exit_code: 3, exit_signal: null, samples: 6 });
    expect(summary.warnings).toEqual(['nvidia-smi exited before stop (code 3): samples end where it died']);
    expect(summary.stderr_tail).toContain('GPU is lost');
    expect(read(join(out, 'gpu_metrics.csv')).split('\n')).toHaveLength(8);
    expect(read(log)).not.toContain('noheader');
    expect(sidecar(out).died_before_stop).toBe(true);
  });

  it('an explicit source that is not on PATH is an error', async () => {
    const out = tempDir();
    await expect(startSampler({ source: 'nvidia-smi', dir: out, env: { PATH: tempDir() } })).rejects.toThrow(
      /nvidia-smi is not on PATH/,
    );
  });
});

describe('amd-smi sampler', () => {
  it('keeps the first header, drops the preamble and repeated headers, snapshots energy and identity', async () => {
    const { out, log, env } = setup('amd');
    const handle = await startSampler({ source: 'amd-smi', dir: out, intervalMs: 1000, env });
    expect(existsSync(join(out, 'gpu_metrics_energy_start.csv'))).toBe(true);
    expect(existsSync(join(out, 'gpu_metrics_identity.json'))).toBe(true);
    expect(existsSync(join(out, 'gpu_metrics_energy_end.csv'))).toBe(false);
    await rowsWritten(out, 4);
    const before = read(join(out, 'gpu_metrics.csv')).split('\n').length;
    const t0 = Date.now();
    const summary = await handle.stop();
    // It waited for three more ticks (fast fake), not the whole interval + 2 s.
    expect(Date.now() - t0).toBeLessThan(2500);
    const lines = read(join(out, 'gpu_metrics.csv')).split('\n');
    expect(lines[0]).toBe(AMD_HEADER);
    expect(lines.filter((l) => l.startsWith('timestamp,'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('CTRL'))).toBe(false);
    expect(lines.at(-1)).toBe('');
    const rows = lines.slice(1, -1);
    for (const row of rows)
      expect(row).toMatch(/^\d{10},[01],95,40,0,\d+,N\/A,N\/A,N\/A,UNTHROTTLED,ENABLED,2100,1900,45,60,55$/);
    expect(lines.length).toBeGreaterThanOrEqual(before + 6);
    const stamps = [...new Set(rows.map((r) => r.split(',')[0]))];
    expect(stamps.length).toBeGreaterThanOrEqual(4);
    expect(read(join(out, 'gpu_metrics_energy_start.csv'))).toBe(
      'gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,total_energy_consumption\n' +
        '0,238,N/A,N/A,N/A,N/A,ENABLED,1000000.5\n1,238,N/A,N/A,N/A,N/A,ENABLED,1000001.5\n',
    );
    expect(read(join(out, 'gpu_metrics_energy_end.csv'))).toContain('0,238,N/A,N/A,N/A,N/A,ENABLED,1005000.5\n');
    expect(JSON.parse(read(join(out, 'gpu_metrics_identity.json')))).toHaveLength(2);
    expect(read(log).trim().split('\n')).toEqual([
      'amd-smi metric -p -c -t -u -w 1 --csv PYTHONUNBUFFERED=1',
      'amd-smi metric -E --csv PYTHONUNBUFFERED=',
      'amd-smi static --json PYTHONUNBUFFERED=',
      'amd-smi metric -E --csv PYTHONUNBUFFERED=',
    ]);
    expect(summary).toMatchObject({
      source: 'amd-smi',
      interval_ms: 1000,
      died_before_stop: false,
      samples: rows.length,
      warnings: [],
    });
    expect(read(join(out, 'gpu_metrics_timezone_offset.txt'))).toMatch(/^[+-]\d{4}\n$/);
  });

  it('waits at most the settle time when no new ticks come (the reference sleeps interval + 2 s)', async () => {
    const { out, env } = setup('amd', { FAKE_AMD_TICK_S: '30' });
    const handle = await startSampler({ source: 'amd-smi', dir: out, intervalMs: 1000, env, amdSettleMs: 300 });
    await rowsWritten(out, 2);
    const t0 = Date.now();
    await handle.stop();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('a failed snapshot leaves no partial file; a dead watch is reported without an end snapshot', async () => {
    const { out, env } = setup('amd', { FAKE_STATIC_FAIL: '1', FAKE_DIE_AFTER: '2' });
    const handle = await startSampler({ source: 'amd-smi', dir: out, intervalMs: 1000, env });
    expect(existsSync(join(out, 'gpu_metrics_identity.json'))).toBe(false);
    await died(handle);
    const summary = await handle.stop();
    expect(summary.died_before_stop).toBe(true);
    expect(summary.exit_code).toBe(1);
    expect(summary.samples).toBe(4);
    expect(summary.warnings[0]).toMatch(/^amd-smi static sidecar failed/);
    expect(summary.warnings[1]).toBe('amd-smi exited before stop (code 1): samples end where it died');
    expect(existsSync(join(out, 'gpu_metrics_energy_end.csv'))).toBe(false);
  });
});

describe('auto', () => {
  it('prefers nvidia-smi, then amd-smi, then hwmon, else none', () => {
    const both = tempDir();
    fakeNvidiaSmi(both);
    fakeAmdSmi(both);
    const amd = tempDir();
    fakeAmdSmi(amd);
    const sys = tempDir();
    fakeSysfs(sys, [{ hwmon: 'hwmon0', name: 'amdgpu', file: 'power1_average', microwatts: 1 }]);
    const empty = tempDir();
    expect(detectSource({ PATH: both }, empty)).toBe('nvidia-smi');
    expect(detectSource({ PATH: amd }, sys)).toBe('amd-smi');
    expect(detectSource({ PATH: empty }, sys)).toBe('hwmon');
    expect(detectSource({ PATH: empty }, empty)).toBe('none');
  });

  it('with no source says so and writes only the summary', async () => {
    const out = tempDir();
    const lines: string[] = [];
    const handle = await startSampler({
      source: 'auto',
      dir: out,
      env: { PATH: tempDir() },
      hwmonRoot: tempDir(),
      log: (l) => lines.push(l),
    });
    expect(handle.source).toBe('none');
    expect(handle.csvPath).toBeUndefined();
    const summary = await handle.stop();
    expect(summary.source).toBe('none');
    expect(summary.warnings[0]).toMatch(/^no GPU telemetry source found/);
    expect(lines[0]).toMatch(/no GPU telemetry source found/);
    expect(existsSync(join(out, 'gpu_metrics.csv'))).toBe(false);
    expect(sidecar(out).stopped_at).not.toBeNull();
  });
});
