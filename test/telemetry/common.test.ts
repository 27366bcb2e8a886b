import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repairTruncatedTail, smiTimestamp, stemOf, timezoneOffset } from '../../src/telemetry/index.js';
import { tempDir } from './fakes.js';

describe('telemetry files', () => {
  it("drops a partial last row as the reference's sed '$d' does, and leaves a whole file alone", () => {
    const dir = tempDir();
    const path = join(dir, 'gpu_metrics.csv');
    writeFileSync(path, 'timestamp, index, power.draw [W]\n2026/01/01 00:00:00.000, 0, 400.00 W\n2026/01/01 00:00:01.000, 0, 4');
    expect(repairTruncatedTail(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('timestamp, index, power.draw [W]\n2026/01/01 00:00:00.000, 0, 400.00 W\n');
    expect(repairTruncatedTail(path)).toBe(false);
    writeFileSync(path, 'timestamp');
    expect(repairTruncatedTail(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('');
    expect(repairTruncatedTail(path)).toBe(false);
    expect(repairTruncatedTail(join(dir, 'missing.csv'))).toBe(false);
  });

  it('names sidecars after the CSV stem, formats offsets as date +%z', () => {
    expect(stemOf('gpu_metrics.csv')).toBe('gpu_metrics');
    expect(stemOf('samples.csv')).toBe('samples');
    expect(timezoneOffset({ ...process.env, TZ: 'America/St_Johns' }, new Date('2026-01-15T12:00:00Z'))).toMatch(/^-0[23]30$/);
    expect(timezoneOffset({ ...process.env, TZ: 'UTC' })).toBe('+0000');
  });

  it('stamps as nvidia-smi: local YYYY/MM/DD HH:MM:SS.mmm', () => {
    const t = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
    expect(smiTimestamp(t)).toBe('2026/01/02 03:04:05.067');
  });
});
