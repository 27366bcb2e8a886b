// Naive telemetry timestamps are local time: the goldens were recorded under TZ=UTC.
process.env.TZ = 'UTC';

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultsCli } from '../results-cli.js';
import { loads } from '../../../src/pycompat/index.js';
import { identityFromEnv, memoryTelemetry, processResult } from '../../../src/results/index.js';
import type { Env } from '../../../src/results/index.js';
import { REPO, tempFiles } from '../../helpers.js';

// The reference utils/process_result.py with gpu_metrics.csv beside the raw result (scripts/power-golden.py).
const ROOT = join(REPO, 'test/fixtures/power/process');
const read = (c: string, f: string): string => readFileSync(join(ROOT, c, f), 'utf8');

const processCli = (cwd: string, env: Env) => resultsCli(['process', '--env'], cwd, env);

afterEach(() => {
  process.env.TZ = 'UTC';
});

describe('frontier results process integrates telemetry as process_result.py does', () => {
  // `internal` has a GPU id int() refuses; the command refuses it first (docs/power.md, "Plausibility"), below.
  for (const name of readdirSync(ROOT)
    .filter((n) => n !== 'internal')
    .sort()) {
    it(name, async () => {
      const env = JSON.parse(read(name, 'env.json')) as Env;
      const rf = env.RESULT_FILENAME!;
      const dir = tempFiles({ [`${rf}.json`]: read(name, 'raw.json'), 'gpu_metrics.csv': read(name, 'gpu_metrics.csv') });
      const out = await processCli(dir, env);
      const expected = JSON.parse(read(name, 'expected_run.json')) as { exit_code: number; stdout: string; stderr: string };
      expect(readFileSync(join(dir, `agg_${rf}.json`), 'utf8')).toBe(read(name, 'expected_agg.json'));
      expect(readFileSync(join(dir, `power_validation_${rf}.json`), 'utf8')).toBe(read(name, 'expected_power_validation.json'));
      expect(out.stdout).toBe(expected.stdout);
      expect(out.stderr).toBe(expected.stderr);
      expect(out.exitCode ?? 0).toBe(expected.exit_code);
    });
  }

  it('internal: without the node (the library call) the reference bytes; the command refuses the id as not canonical', async () => {
    const env = JSON.parse(read('internal', 'env.json')) as Env;
    const rf = env.RESULT_FILENAME!;
    const files = { [`${rf}.json`]: read('internal', 'raw.json'), 'gpu_metrics.csv': read('internal', 'gpu_metrics.csv') };
    const point = processResult(loads(files[`${rf}.json`]!), identityFromEnv(env), {
      files: memoryTelemetry({ 'gpu_metrics.csv': files['gpu_metrics.csv']! }),
    });
    expect(point.aggJson).toBe(read('internal', 'expected_agg.json'));
    expect(point.powerValidationJson).toBe(read('internal', 'expected_power_validation.json'));

    const dir = tempFiles(files);
    const out = await processCli(dir, env);
    const sidecar = JSON.parse(readFileSync(join(dir, `power_validation_${rf}.json`), 'utf8'));
    expect(sidecar.reasons).toEqual(['gpu_index_not_canonical', 'expected_gpu_count_mismatch']);
    expect(sidecar.plausibility.first_rejected_rows[0]).toMatchObject({ reason: 'gpu_index_not_canonical', gpu: '\u00b2' });
    expect(out.stderr).toContain('Power validation failed: gpu_index_not_canonical, expected_gpu_count_mismatch');
  });

  it('GPU_METRICS_CSV names the telemetry (tried first)', () => {
    const env = JSON.parse(read('valid', 'env.json')) as Env;
    const files = memoryTelemetry({ 'elsewhere/metrics.csv': read('valid', 'gpu_metrics.csv'), 'gpu_metrics.csv': '' });
    const point = processResult(loads(read('valid', 'raw.json')), identityFromEnv(env), {
      settings: { gpuMetricsCsv: 'elsewhere/metrics.csv', requirePower: false },
      files,
    });
    expect(point.powerValidation.telemetry_source).toBe('elsewhere/metrics.csv');
    expect(point.aggJson).toBe(read('valid', 'expected_agg.json'));
    expect(point.noticeOn).toBe('stdout');
  });

  it('a <stem>_timezone_offset.txt beside the CSV sets the zone of naive timestamps (Frontier extension)', () => {
    const env = JSON.parse(read('valid', 'env.json')) as Env;
    const raw = loads(read('valid', 'raw.json'));
    const id = identityFromEnv(env);
    const csv = read('valid', 'gpu_metrics.csv');
    process.env.TZ = 'America/New_York';
    // Without the offset, the host's zone shifts every sample five hours away from the window.
    const local = processResult(raw, id, { files: memoryTelemetry({ 'gpu_metrics.csv': csv }) });
    expect(local.powerValidation.reasons).toEqual(['no_usable_power_samples']);
    // With it, the result is the one recorded under TZ=UTC, whatever the host's zone.
    for (const offset of ['+0000\n', '+00:00']) {
      const fixed = processResult(raw, id, {
        files: memoryTelemetry({ 'gpu_metrics.csv': csv, 'gpu_metrics_timezone_offset.txt': offset }),
      });
      expect(fixed.aggJson).toBe(read('valid', 'expected_agg.json'));
      expect(fixed.powerValidationJson).toBe(read('valid', 'expected_power_validation.json'));
    }
    const bad = processResult(raw, id, {
      files: memoryTelemetry({ 'gpu_metrics.csv': csv, 'gpu_metrics_timezone_offset.txt': 'EST' }),
    });
    expect(bad.powerValidation.reasons).toContain('telemetry_timezone_offset_invalid');
    expect(bad.powerValidation.power_valid).toBe(false);
  });
});
