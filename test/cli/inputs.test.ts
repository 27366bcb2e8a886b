import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isIsoDate } from '../../src/util/date.js';
import { inferencexTree, runCli, tempFiles } from '../helpers.js';

/** A failed command: exit 1, one `frontier: error:` line naming the input, no stack trace. */
function expectCliError(args: string[], message: RegExp, cwd?: string): void {
  const result = runCli(args, { cwd });
  expect(result.status, result.stderr).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/^frontier: error: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).toBe('');
}

describe('paths given on the command line', () => {
  const tree = inferencexTree();
  const missing = join(tempFiles({}), 'missing');
  const file = join(tree, 'configs/runners.yaml');

  it('-C to a missing directory or to a file', () => {
    expectCliError(['-C', missing, 'validate'], /-C .*missing does not exist: give an existing directory/);
    expectCliError(['-C', file, 'validate'], /-C .*runners\.yaml is a file, not a directory/);
  });

  it('lint of a missing directory or of a file', () => {
    expectCliError(['lint', missing], /the tree .*missing does not exist/);
    expectCliError(['lint', file], /the tree .*runners\.yaml is a file, not a directory/);
  });

  it('review with a missing --base-dir, --head-dir, --since-dir or --toolchain-dir (never an empty tree that passes)', () => {
    expectCliError(['review', '--base-dir', missing, '--head-dir', tree], /--base-dir .*missing does not exist/);
    expectCliError(['review', '--base-dir', tree, '--head-dir', missing], /--head-dir .*missing does not exist/);
    expectCliError(
      ['review', '--base-dir', tree, '--head-dir', tree, '--since-dir', missing],
      /--since-dir .*missing does not exist/,
    );
    expectCliError(['review', '--base-dir', tree, '--head-dir', tree, '--toolchain-dir', missing], /--toolchain-dir .*missing/);
  });

  it('changelog check with a missing --base-dir or --head-dir', () => {
    expectCliError(['changelog', 'check', '--base-dir', missing, '--head-dir', tree], /--base-dir .*missing does not exist/);
    expectCliError(['changelog', 'check', '--base-dir', tree, '--head-dir', missing], /--head-dir .*missing does not exist/);
  });

  it('validate of a directory where a file is expected names it', () => {
    const result = runCli(['validate', 'configs'], { cwd: tree });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("configs  'configs' is a directory, not a YAML file");
    expect(result.stderr).toBe('');
  });
});

describe('dates', () => {
  it('one strict parser: a YYYY-MM-DD date that exists', () => {
    for (const good of ['2026-02-28', '2024-02-29', '2000-02-29', '1999-12-31']) expect(isIsoDate(good), good).toBe(true);
    for (const bad of [
      '2026-02-30',
      '2026-02-29',
      '1900-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-04-31',
      '2026-1-01',
      '21/08/2026',
    ])
      expect(isIsoDate(bad), bad).toBe(false);
  });

  it('ingest --date rejects an impossible date before reading anything', () => {
    expectCliError(
      ['ingest', '--date', '2026-02-30', tempFiles({})],
      /--date 2026-02-30: expected a date that exists, YYYY-MM-DD/,
    );
  });
});
