// Naive telemetry timestamps are local time: the goldens were recorded under TZ=UTC.
process.env.TZ = 'UTC';

import { cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAggregatePowerFs } from '../../../src/results/index.js';
import { REPO, runCli } from '../../helpers.js';

// The reference utils/aggregate_power.py run on recorded telemetry (scripts/power-golden.py).
const GOLDEN = join(REPO, 'test/fixtures/power/single-node');
const CASES = readdirSync(GOLDEN).sort();

describe('single-node power step: byte-identical to the reference aggregate_power.py', () => {
  it('has the cases the issue asks for', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(8);
  });

  for (const name of CASES) {
    it(name, () => {
      const folder = join(GOLDEN, name);
      const work = mkdtempSync(join(tmpdir(), 'frontier-power-'));
      for (const file of readdirSync(folder)) if (!file.startsWith('expected_')) cpSync(join(folder, file), join(work, file));
      const args = JSON.parse(readFileSync(join(folder, 'args.json'), 'utf8')) as {
        expected_num_gpus: number;
        require_power: boolean;
      };
      const expected = JSON.parse(readFileSync(join(folder, 'expected_run.json'), 'utf8')) as {
        exit_code: number;
        stdout: string;
        stderr: string;
      };
      const run = runAggregatePowerFs(
        {
          csv: 'gpu_metrics.csv',
          benchResult: 'raw.json',
          aggResult: 'agg.json',
          expectedGpus: args.expected_num_gpus,
          requirePower: args.require_power,
        },
        work,
      );
      expect(readFileSync(join(work, 'agg.json'), 'utf8')).toBe(readFileSync(join(folder, 'expected_agg.json'), 'utf8'));
      expect(readFileSync(join(work, 'power_validation_raw.json'), 'utf8')).toBe(
        readFileSync(join(folder, 'expected_power_validation.json'), 'utf8'),
      );
      expect(run.exitCode).toBe(expected.exit_code);
      expect(run.stdout.map((l) => `${l}\n`).join('')).toBe(expected.stdout);
      expect(run.stderr.map((l) => `${l}\n`).join('')).toBe(expected.stderr);
    });
  }

  it('the built command line: frontier results power with the reference flags (and REQUIRE_POWER)', () => {
    const folder = join(GOLDEN, 'nvidia-missing-gpu');
    const work = mkdtempSync(join(tmpdir(), 'frontier-power-cli-'));
    for (const file of readdirSync(folder)) if (!file.startsWith('expected_')) cpSync(join(folder, file), join(work, file));
    const expected = JSON.parse(readFileSync(join(folder, 'expected_run.json'), 'utf8')) as { exit_code: number; stderr: string };
    const args = ['results', 'power', '--csv', 'gpu_metrics.csv', '--bench-result', 'raw.json', '--agg-result', 'agg.json'];
    const result = runCli([...args, '--expected-num-gpus', '4'], { cwd: work, env: { TZ: 'UTC', REQUIRE_POWER: 'yes' } });
    expect(result.status).toBe(expected.exit_code);
    expect(result.stderr).toBe(expected.stderr);
    expect(readFileSync(join(work, 'agg.json'), 'utf8')).toBe(readFileSync(join(folder, 'expected_agg.json'), 'utf8'));
    expect(readFileSync(join(work, 'power_validation_raw.json'), 'utf8')).toBe(
      readFileSync(join(folder, 'expected_power_validation.json'), 'utf8'),
    );
    const usage = runCli(args, { cwd: work });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('error: the following arguments are required: --expected-num-gpus');
  });
});
