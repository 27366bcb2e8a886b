import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgenticPowerFs } from '../../../src/results/index.js';
import { REPO } from '../../helpers.js';

// The reference utils/agentic/aggregation/power_adapter.py run on AgentX result folders (scripts/power-golden.py).
const ROOT = join(REPO, 'test/fixtures/power/agentic');

describe('AgentX power adapter: byte-identical to the reference power_adapter.py', () => {
  for (const name of readdirSync(ROOT).sort()) {
    it(name, () => {
      const folder = join(ROOT, name);
      const work = mkdtempSync(join(tmpdir(), 'frontier-agentic-power-'));
      cpSync(join(folder, 'results'), join(work, 'results'), { recursive: true });
      cpSync(join(folder, 'agg.json'), join(work, 'agg.json'));
      const args = JSON.parse(readFileSync(join(folder, 'args.json'), 'utf8')) as {
        expected_num_gpus: number | null;
        require_power: boolean;
      };
      const expected = JSON.parse(readFileSync(join(folder, 'expected_run.json'), 'utf8')) as {
        exit_code: number;
        stdout: string;
        stderr: string;
      };
      const run = runAgenticPowerFs(
        { resultDir: 'results', aggResult: 'agg.json', expectedGpus: args.expected_num_gpus, requirePower: args.require_power },
        work,
      );
      const outputs: [string, string][] = [
        ['agg.json', 'expected_agg.json'],
        ['results/agentic_power_window.json', 'expected_window.json'],
        ['results/power_validation.json', 'expected_power_validation.json'],
      ];
      for (const [produced, recorded] of outputs) {
        const want = join(folder, recorded);
        if (existsSync(want)) expect(readFileSync(join(work, produced), 'utf8')).toBe(readFileSync(want, 'utf8'));
        else expect(existsSync(join(work, produced))).toBe(false);
      }
      expect(run.exitCode).toBe(expected.exit_code);
      expect(run.stdout.map((l) => `${l}\n`).join('')).toBe(expected.stdout);
      expect(run.stderr.map((l) => `${l}\n`).join('')).toBe(expected.stderr);
    });
  }
});
