import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/argparse.js';
import { runMatrix } from '../../src/cli/matrix.js';
import type { MatrixCommand } from '../../src/cli/matrix.js';
import { ProblemsError, formatProblem } from '../../src/catalog/index.js';
import { MatrixError } from '../../src/matrix/index.js';
import { INFERENCEX, readFixture, runCli } from '../helpers.js';

interface GoldenCase {
  name: string;
  description: string;
  argv: string[];
  expect?: string;
  expect_error?: string;
  expect_error_full?: string;
  exit_code?: number;
  error_kind?: 'argparse' | 'ValueError';
}

// Every case of the reference generator's golden manifest, run in-process against the same files.
const cases = JSON.parse(readFixture('golden/matrix/cases.json')) as GoldenCase[];

/** What the CLI would print on stderr and its exit status, for an error. */
function describeError(e: unknown): { status: number; message: string } {
  if (e instanceof UsageError) return { status: 2, message: e.render() };
  if (e instanceof ProblemsError) return { status: 1, message: e.problems.map(formatProblem).join('\n') };
  if (e instanceof MatrixError) return { status: 1, message: e.message };
  throw e;
}

describe('golden matrix cases (reference generate_sweep_configs.py)', () => {
  it('has the manifest', () => {
    expect(cases.length).toBeGreaterThanOrEqual(51);
  });

  for (const c of cases) {
    it(`${c.name}: ${c.description}`, async () => {
      const [command, ...argv] = c.argv as [MatrixCommand, ...string[]];
      if (c.expect) {
        const out = await runMatrix(command, argv, INFERENCEX);
        const expected = readFixture(`golden/matrix/${c.expect}`);
        // Same rows, same order, same keys, same values…
        expect(JSON.parse(out)).toEqual(JSON.parse(expected));
        // …and byte for byte the reference's json.dumps text, key order included.
        expect(out === expected).toBe(true);
        return;
      }
      let error: { status: number; message: string } | undefined;
      try {
        await runMatrix(command, argv, INFERENCEX);
      } catch (e) {
        error = describeError(e);
      }
      expect(error, 'expected the generator to fail').toBeDefined();
      expect(error!.status).toBe(c.exit_code);
      expect(error!.message).toContain(c.expect_error);
      if (c.expect_error_full) expect(error!.message).toContain(c.expect_error_full);
    });
  }
});

describe('the CLI on golden cases', () => {
  it('prints the full default sweep byte for byte', () => {
    const result = runCli(['matrix', 'full-sweep', '--config-files', 'configs/nvidia-master.yaml', 'configs/amd-master.yaml'], {
      cwd: INFERENCEX,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout === readFixture('golden/matrix/fs-default.json')).toBe(true);
  });

  it('exits 2 with the argparse message on a usage error', () => {
    const result = runCli(['matrix', 'full-sweep', '--config-files', 'configs/amd-master.yaml', '--no-evals', '--evals-only'], {
      cwd: INFERENCEX,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: frontier matrix full-sweep');
    expect(result.stderr).toContain('error: argument --evals-only: not allowed with argument --no-evals');
    expect(result.stdout).toBe('');
  });

  it('exits 1 with the reference message on a generator error', () => {
    const result = runCli([
      '-C',
      INFERENCEX,
      'matrix',
      'test-config',
      '--config-files',
      join(INFERENCEX, 'configs/amd-master.yaml'),
      '--config-keys',
      'zzz-*',
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Pattern 'zzz-*' matched no config keys.");
    expect(result.stdout).toBe('');
  });
});
