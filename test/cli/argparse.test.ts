import { describe, expect, it } from 'vitest';
import { UsageError, formatHelp, parseArgs } from '../../src/cli/argparse.js';
import { FULL_SWEEP, TEST_CONFIG } from '../../src/cli/matrix.js';

function error(spec: typeof FULL_SWEEP, argv: string[]): string {
  try {
    parseArgs(spec, argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as UsageError).message;
  }
  throw new Error('expected a usage error');
}

describe('argparse-compatible parsing of the reference generator flags', () => {
  it('reads nargs="+" lists up to the next option, and defaults', () => {
    const args = parseArgs(FULL_SWEEP, ['--config-files', 'a.yaml', 'b.yaml', '--precision', 'fp4', '--no-evals']);
    expect(args).toMatchObject({
      config_files: ['a.yaml', 'b.yaml'],
      precision: ['fp4'],
      no_evals: true,
      evals_only: false,
      runner_config: 'configs/runners.yaml',
      step_size: 2,
      max_conc: undefined,
    });
  });

  it('takes negative numbers as values, as argparse does when no option looks like one', () => {
    expect(parseArgs(FULL_SWEEP, ['--config-files', 'a', '--max-conc', '-1', '--min-conc', '-5']).max_conc).toBe(-1);
    expect(parseArgs(TEST_CONFIG, ['--config-files', 'a', '--config-keys', 'k', '--conc', '16', '-4']).conc).toEqual([16, -4]);
  });

  it('accepts --flag=value, Python int() forms and unique prefixes', () => {
    const args = parseArgs(FULL_SWEEP, ['--config-files=a.yaml', '--step=4', '--max-tp', ' 1_0 ', '--single']);
    expect(args).toMatchObject({ config_files: ['a.yaml'], step_size: 4, max_tp: 10, single_node: true });
  });

  it('rejects with argparse messages', () => {
    expect(error(FULL_SWEEP, [])).toBe('the following arguments are required: --config-files');
    expect(error(TEST_CONFIG, [])).toBe('the following arguments are required: --config-files, --config-keys');
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--no-evals', '--evals-only'])).toBe(
      'argument --evals-only: not allowed with argument --no-evals',
    );
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--evals-only', '--no-evals'])).toBe(
      'argument --no-evals: not allowed with argument --evals-only',
    );
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--step-size', 'x'])).toBe("argument --step-size: invalid int value: 'x'");
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--seq-lens', '2k2k'])).toBe(
      "argument --seq-lens: invalid choice: '2k2k' (choose from '1k1k', '8k1k')",
    );
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--scenario-type', 'chat'])).toBe(
      "argument --scenario-type: invalid choice: 'chat' (choose from 'fixed-seq-len', 'agentic-coding')",
    );
    expect(error(FULL_SWEEP, ['--config-files'])).toBe('argument --config-files: expected at least one argument');
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--max-conc'])).toBe('argument --max-conc: expected one argument');
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--no-evals', 'stray', '--bogus'])).toBe(
      'unrecognized arguments: stray --bogus',
    );
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--m', '1'])).toMatch(
      /^ambiguous option: --m could match --model-prefix, --min-conc/,
    );
    expect(error(FULL_SWEEP, ['--config-files', 'a', '--no-evals=1'])).toBe("argument --no-evals: ignored explicit argument '1'");
  });

  it('test-config has no full-sweep filters', () => {
    expect(error(TEST_CONFIG, ['--config-files', 'a', '--config-keys', 'k', '--max-conc', '4'])).toBe(
      'unrecognized arguments: --max-conc 4',
    );
  });

  it('stops at -h/--help and documents every flag', () => {
    expect(parseArgs(FULL_SWEEP, ['-h']).help).toBe(true);
    const help = formatHelp(FULL_SWEEP);
    for (const arg of FULL_SWEEP.args) for (const flag of arg.flags) expect(help).toContain(flag);
    expect(help).toMatch(/^usage: frontier matrix full-sweep --config-files CONFIG_FILES \[CONFIG_FILES \.\.\.\]/);
  });

  it('renders errors as argparse does: usage, then prog: error: message', () => {
    try {
      parseArgs(FULL_SWEEP, []);
    } catch (e) {
      expect((e as UsageError).render()).toMatch(
        /^usage: frontier matrix full-sweep .*\nfrontier matrix full-sweep: error: the following arguments are required: --config-files\n$/,
      );
    }
  });
});
