import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalCheckCommand, evalCollectCommand } from '../../src/cli/eval-report.js';
import type { EvalReportIo } from '../../src/cli/eval-report.js';
import { UserError } from '../../src/util/user-error.js';
import { readFixture, runCli, tempFiles } from '../helpers.js';
import { EVALS, materialize } from './golden.js';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  /** Both streams in the order written. */
  combined: string;
}

/** Run a command in process, as `frontier eval <name> ...args` would. */
async function inProcess(
  make: (io: EvalReportIo) => ReturnType<typeof evalCheckCommand>,
  args: string[],
  cwd: string,
): Promise<Run> {
  const run: Run = { status: 0, stdout: '', stderr: '', combined: '' };
  const io: EvalReportIo = {
    cwd,
    env: {},
    stdout: (t) => ((run.stdout += t), (run.combined += t)),
    stderr: (t) => ((run.stderr += t), (run.combined += t)),
    setExitCode: (code) => (run.status = code),
  };
  await make(io).exitOverride().parseAsync(args, { from: 'user' });
  return run;
}

interface Expected {
  exit_code: number;
  stdout: string;
  stderr: string;
  'combined_2>&1': string;
}
const scenario = (name: string): Expected =>
  JSON.parse(readFixture(`${EVALS}/validate_scores/${name}/expected.json`)) as Expected;
/** The golden's output with the thresholds line as the CLI prints it for the built-in file. */
const builtIn = (text: string): string =>
  text.replace(
    'Loaded thresholds from <IX>/utils/evals/thresholds.yaml',
    'Loaded thresholds from (built-in reference thresholds)',
  );

describe('eval check (in process)', () => {
  it('06_batched_multi_conc with --expected-concs: the golden output and exit 0', async () => {
    const dir = materialize(`${EVALS}/validate_scores/06_batched_multi_conc/input`);
    const r = await inProcess(evalCheckCommand, ['--expected-concs', '16 64 180'], dir);
    const want = scenario('06_batched_multi_conc');
    expect(r.combined).toBe(builtIn(want['combined_2>&1']));
    expect(r.status).toBe(0);
  });

  it('02_fail_strict_only from another directory: FAIL on stderr, exit 1', async () => {
    const dir = materialize(`${EVALS}/validate_scores/02_fail_strict_only/input`);
    const r = await inProcess(evalCheckCommand, [dir], '/');
    const want = scenario('02_fail_strict_only');
    expect(r.stdout).toBe(builtIn(want.stdout));
    expect(r.stderr).toBe(want.stderr);
    expect(r.status).toBe(1);
  });

  it('--thresholds, --min-score and --model-prefix', async () => {
    const dir = materialize(`${EVALS}/validate_scores/01_pass/input`);
    const cwd = tempFiles({ 't.yaml': 'models:\n  other:\n    gsm8k: 0.959\n' });
    const r = await inProcess(
      evalCheckCommand,
      [dir, '--thresholds', 't.yaml', '--model-prefix', 'other', '--min-score', '0.5'],
      cwd,
    );
    expect(r.combined).toBe(
      'Loaded thresholds from t.yaml\n' +
        'Model prefix: other (per-model thresholds apply)\n' +
        'FAIL: gsm8k exact_match,strict-match = 0.9568 (< 0.959 from models.other)\n' +
        'PASS: gsm8k exact_match,flexible-extract = 0.9598 (>= 0.959 from models.other)\n',
    );
    expect(r.status).toBe(1);
    const fallback = await inProcess(evalCheckCommand, [dir, '--thresholds', 't.yaml', '--min-score', '0.99'], cwd);
    expect(fallback.stderr).toContain('(< 0.99 from min-score)');
  });

  it('bad input is a UserError naming the file and the fix', async () => {
    const dir = materialize(`${EVALS}/validate_scores/01_pass/input`);
    await expect(inProcess(evalCheckCommand, [dir, '--thresholds', 'nope.yaml'], dir)).rejects.toThrow(UserError);
    await expect(inProcess(evalCheckCommand, [dir, '--thresholds', 'nope.yaml'], dir)).rejects.toThrow(
      /nope\.yaml: cannot read the thresholds file \(no such file\); give an existing YAML file, or leave out --thresholds/,
    );
    await expect(inProcess(evalCheckCommand, [dir, '--min-score', 'high'], dir)).rejects.toThrow(
      /--min-score high: expected a number/,
    );
    await expect(inProcess(evalCheckCommand, ['missing-dir'], dir)).rejects.toThrow(/missing-dir: no such directory/);
  });
});

describe('eval collect (in process)', () => {
  it('writes agg_eval_all.json (the golden rows) and prints the tables', async () => {
    const cwd = materialize(`${EVALS}/collect_eval_results/input`);
    const r = await inProcess(evalCollectCommand, ['eval_results/'], cwd);
    expect(r.stdout).toMatch(/^### Single-Node Eval Results\n\n\| Model Prefix +\| Hardware/);
    expect(r.stdout).toContain('### Multi-Node Eval Results');
    const written = JSON.parse(readFileSync(join(cwd, 'agg_eval_all.json'), 'utf8')) as { source: string }[];
    const golden = JSON.parse(readFixture(`${EVALS}/collect_eval_results/expected/agg_eval_all.json`)) as { source: string }[];
    expect(new Map(written.map((w) => [w.source, w]))).toEqual(new Map(golden.map((g) => [g.source, g])));
  });

  it('--out, several folders, and a folder that does not exist', async () => {
    const cwd = materialize(`${EVALS}/collect_eval_results/input`);
    await inProcess(evalCollectCommand, ['eval_results', 'eval_results', '--out', 'x.json'], cwd);
    expect(JSON.parse(readFileSync(join(cwd, 'x.json'), 'utf8'))).toHaveLength(6);
    await expect(inProcess(evalCollectCommand, ['nope'], cwd)).rejects.toThrow(/nope: no such directory/);
  });
});

// Through the built CLI: needs `frontier eval` wired into src/cli/main.ts and `npm run build`.
describe('frontier eval check / collect (built CLI)', () => {
  it('frontier eval check DIR reproduces 07_batched_manifest_failure', () => {
    const dir = materialize(`${EVALS}/validate_scores/07_batched_manifest_failure/input`);
    const r = runCli(['eval', 'check', dir, '--expected-concs', '16 64 180'], { env: { MODEL_PREFIX: '' } });
    const want = scenario('07_batched_manifest_failure');
    expect(r.stdout).toBe(builtIn(want.stdout));
    expect(r.stderr).toBe(want.stderr);
    expect(r.status).toBe(1);
  });

  it('frontier eval check exits 0 on a passing run', () => {
    const dir = materialize(`${EVALS}/validate_scores/01_pass/input`);
    const r = runCli(['eval', 'check'], { cwd: dir });
    expect(r.stdout).toBe(builtIn(scenario('01_pass').stdout));
    expect(r.status).toBe(0);
  });

  it('frontier eval check with a missing --thresholds file: one error line, exit 1', () => {
    const dir = materialize(`${EVALS}/validate_scores/01_pass/input`);
    const r = runCli(['eval', 'check', '--thresholds', 'nope.yaml'], { cwd: dir });
    expect(r.stderr).toMatch(/^frontier: error: nope\.yaml: cannot read the thresholds file/);
    expect(r.status).toBe(1);
  });

  it('frontier eval collect eval_results/ writes agg_eval_all.json', () => {
    const cwd = materialize(`${EVALS}/collect_eval_results/input`);
    const r = runCli(['eval', 'collect', 'eval_results/'], { cwd });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('### Multi-Node Eval Results');
    expect(JSON.parse(readFileSync(join(cwd, 'agg_eval_all.json'), 'utf8'))).toHaveLength(3);
  });
});
