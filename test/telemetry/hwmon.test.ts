import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HWMON_HEADER, discoverHwmon, startSampler } from '../../src/telemetry/index.js';
import { dataLines, fakeSysfs, tempDir } from './fakes.js';
import { waitFor } from '../support/wait.js';

function sysfs(): string {
  const root = tempDir();
  fakeSysfs(root, [
    { hwmon: 'hwmon10', name: 'amdgpu', file: 'power1_average', microwatts: 301_250_000 },
    { hwmon: 'hwmon2', name: 'amdgpu', file: 'power1_average', microwatts: 250_000_000 },
    { hwmon: 'hwmon0', name: 'k10temp' },
    { hwmon: 'hwmon3', name: 'acpi_power_meter', file: 'power1_input', microwatts: 1_234_567_890 },
  ]);
  const pci = join(root, 'devices', 'pci0000:00', '0000:03:00.0');
  mkdirSync(pci, { recursive: true });
  symlinkSync(pci, join(root, 'class', 'hwmon', 'hwmon2', 'device'));
  return root;
}

describe('hwmon sampler', () => {
  it('finds the devices with a power file, in hwmon number order', () => {
    const root = sysfs();
    const devices = discoverHwmon(root);
    expect(devices.map((d) => [d.index, d.hwmon, d.name, d.file])).toEqual([
      [0, 'hwmon2', 'amdgpu', 'power1_average'],
      [1, 'hwmon3', 'acpi_power_meter', 'power1_input'],
      [2, 'hwmon10', 'amdgpu', 'power1_average'],
    ]);
    expect(devices[0]!.device).toMatch(/devices\/pci0000:00\/0000:03:00\.0$/);
    expect(discoverHwmon(root, ['amdgpu']).map((d) => d.hwmon)).toEqual(['hwmon2', 'hwmon10']);
    expect(discoverHwmon(tempDir())).toEqual([]);
  });

  it("writes nvidia-smi's CSV shape in watts, one row per device per sample, with a final sample at stop", async () => {
    const root = sysfs();
    const out = tempDir();
    const handle = await startSampler({ source: 'hwmon', dir: out, hwmonRoot: root, hwmonNames: ['amdgpu'], intervalMs: 40 });
    await waitFor(() => dataLines(readFileSync(join(out, 'gpu_metrics.csv'), 'utf8')).length >= 4, {
      what: '4 rows in gpu_metrics.csv',
      timeoutMs: 10_000,
    });
    writeFileSync(join(root, 'class', 'hwmon', 'hwmon2', 'power1_average'), 'garbage\n');
    const summary = await handle.stop();
    const lines = readFileSync(join(out, 'gpu_metrics.csv'), 'utf8').split('\n');
    expect(lines[0]).toBe(HWMON_HEADER);
    const rows = lines.slice(1, -1);
    expect(rows.length % 2).toBe(0);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows[0]).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}, 0, 250\.00 W$/);
    expect(rows[1]).toMatch(/, 1, 301\.25 W$/);
    expect(rows.at(-2)).toMatch(/, 0, \[N\/A\]$/);
    expect(summary).toMatchObject({
      source: 'hwmon',
      command: null,
      interval_ms: 40,
      samples: rows.length,
      died_before_stop: false,
    });
    const identity = JSON.parse(readFileSync(join(out, 'gpu_metrics_hwmon.json'), 'utf8')) as { devices: { hwmon: string }[] };
    expect(identity.devices.map((d) => d.hwmon)).toEqual(['hwmon2', 'hwmon10']);
    expect(readFileSync(join(out, 'gpu_metrics_timezone_offset.txt'), 'utf8')).toMatch(/^[+-]\d{4}\n$/);
  });

  it('stamps samples on the virtual clock of a simulated run, and samples k times as often', async () => {
    const root = sysfs();
    const out = tempDir();
    const anchorMs = Date.now() - 1000;
    const handle = await startSampler({
      source: 'hwmon',
      dir: out,
      hwmonRoot: root,
      intervalMs: 1000,
      clock: { scale: 10, anchorMs },
    });
    const t0 = Date.now();
    await waitFor(() => dataLines(readFileSync(join(out, 'gpu_metrics.csv'), 'utf8')).length >= 9, {
      what: '9 rows in gpu_metrics.csv',
      timeoutMs: 10_000,
    });
    // 1 s virtual = 100 ms real: three samples of 3 devices well before 1 s of wall time.
    expect(Date.now() - t0).toBeLessThan(900);
    await handle.stop();
    const rows = readFileSync(join(out, 'gpu_metrics.csv'), 'utf8').split('\n').slice(1, -1);
    const first = rows[0]!.split(', ')[0]!;
    const [date, time] = first.split(' ') as [string, string];
    const [y, mo, d] = date.split('/').map(Number) as [number, number, number];
    const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
    const stamped = new Date(y, mo - 1, d, h, mi, Math.floor(s), Math.round((s % 1) * 1000)).getTime();
    // At start, 1 s of wall time after the anchor is 10 s of virtual time.
    expect(stamped - anchorMs).toBeGreaterThan(9_000);
    expect(stamped - anchorMs).toBeLessThan(14_000);
  });

  it('an explicit hwmon source without power files is an error', async () => {
    await expect(startSampler({ source: 'hwmon', dir: tempDir(), hwmonRoot: tempDir() })).rejects.toThrow(/no hwmon device/);
  });
});
