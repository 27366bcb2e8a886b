import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/argparse.js';
import { report } from '../../src/cli/report.js';
import { ProblemsError } from '../../src/catalog/index.js';
import { MatrixError } from '../../src/matrix/index.js';
import { UserError } from '../../src/util/user-error.js';

/** What `report` writes on stderr, and the exit status it returns. */
function reported(e: unknown): { stderr: string; status: number } {
  let stderr = '';
  const status = report(e, (text) => (stderr += text));
  return { stderr, status };
}

describe('the CLI reporter', () => {
  it('a UserError: its message, the hint on its own line, its exit status', () => {
    const e = new UserError('--db x.db cannot be opened', { hint: 'give a writable path or a postgres:// URL', exitCode: 3 });
    expect(reported(e)).toEqual({
      stderr: 'frontier: error: --db x.db cannot be opened\n    hint: give a writable path or a postgres:// URL\n',
      status: 3,
    });
  });

  it('without a hint, one line and exit 1; a module’s own kind prints the same way', () => {
    expect(reported(new UserError('give either --each <range> or --last <n>, not both'))).toEqual({
      stderr: 'frontier: error: give either --each <range> or --last <n>, not both\n',
      status: 1,
    });
    expect(reported(new MatrixError("No configs found matching filters: model prefix ['nope']"))).toEqual({
      stderr: "frontier: error: No configs found matching filters: model prefix ['nope']\n",
      status: 1,
    });
  });

  it('usage errors as argparse prints them (exit 2), problems one per line with their hints', () => {
    const usage = new UsageError({ prog: 'frontier bench', args: [] }, 'unrecognized arguments: --nope');
    expect(reported(usage)).toEqual({ stderr: usage.render(), status: 2 });
    expect(usage.render()).toMatch(/\nfrontier bench: error: unrecognized arguments: --nope\n$/);
    const problems = new ProblemsError([
      { severity: 'error', rule: 'schema', file: 'a.yaml', line: 3, col: 5, key: 'k', message: 'bad', hint: 'fix it' },
      { severity: 'warning', rule: 'schema', file: 'a.yaml', line: 4, col: 1, message: 'odd' },
    ]);
    expect(reported(problems)).toEqual({ stderr: 'a.yaml:3:5  k  bad\n    hint: fix it\n', status: 1 });
  });

  it('anything else is an internal error: thrown on unprinted, to end the process with its stack', () => {
    const bug = new Error('undefined is not a function');
    let stderr = '';
    expect(() => report(bug, (text) => (stderr += text))).toThrow(bug);
    expect(() => report(new TypeError('x'), (text) => (stderr += text))).toThrow(TypeError);
    expect(stderr).toBe('');
  });
});
