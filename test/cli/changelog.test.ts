import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/changelog/index.js';
import { changelogGoldenRoot, runCli, tempFiles } from '../helpers.js';

const golden = (name: string): string => join(changelogGoldenRoot(), name);

describe('frontier changelog check', () => {
  it('prints each finding with file:line and the fix, exits 1', () => {
    const dir = golden('neg-no-blank-line');
    const result = runCli(['changelog', 'check', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(
      `${join(dir, 'head', 'perf-changelog.yaml')}:6381:1  a new entry starts right after the previous entry's last line, with no blank line between them\n` +
        '    hint: `frontier changelog check --fix` inserts one blank line before line 6381\n' +
        '\n' +
        '✗ 1 problem (1 appended entry, 0 pr-link corrections, 0 changed configs)\n',
    );
  });

  it('--fix inserts the blank line in the head directory, then the change is clean', () => {
    const work = tempFiles({});
    cpSync(golden('neg-no-blank-line'), work, { recursive: true });
    const file = join(work, 'head', 'perf-changelog.yaml');
    const before = readFileSync(file, 'utf8').split('\n');
    const result = runCli(['changelog', 'check', '--base-dir', 'base', '--head-dir', 'head', '--fix'], { cwd: work });
    expect(result.stderr).toBe(`fixed ${join('head', 'perf-changelog.yaml')}\n`);
    expect(result.stdout).toBe('✓ perf-changelog.yaml: 1 appended entry, 0 pr-link corrections, 0 changed configs\n');
    expect(result.status).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')).toEqual([...before.slice(0, 6380), '', ...before.slice(6380)]);
  });

  it('--format json and markdown', () => {
    const dir = golden('neg-unknown-config-key');
    const args = ['changelog', 'check', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')];
    const json = JSON.parse(runCli([...args, '--format', 'json']).stdout) as CheckReport;
    expect(json).toMatchObject({ ok: false, additions: 1, corrections: 0 });
    expect(json.problems.map((p) => [p.rule, p.line, p.message])).toEqual([
      ['changelog-sweep', 6383, "Config key 'dsr1-fp8-mi300x-sglang-does-not-exist' not found in master configs."],
    ]);
    const markdown = runCli([...args, '--format', 'markdown']).stdout;
    expect(markdown).toContain('### perf-changelog.yaml check: ✗ 1 problem');
    expect(markdown).toContain('| where | problem | fix |');
    expect(markdown).toContain(
      ":6383` | entry 773: Config key 'dsr1-fp8-mi300x-sglang-does-not-exist' not found in master configs. |",
    );
  });

  it('needs a base', () => {
    const result = runCli(['changelog', 'check']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the base revision is missing: give --base <ref> (e.g. origin/main) or --base-dir <dir>');
  });
});

describe('frontier changelog matrix', () => {
  it('prints the reference JSON byte for byte', () => {
    const dir = golden('synthetic-entry-eval-flags-glob');
    const result = runCli([
      'changelog',
      'matrix',
      '--base-dir',
      join(dir, 'base'),
      '--head-dir',
      join(dir, 'head'),
      '--base-label',
      'base',
      '--head-label',
      'head',
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout === readFileSync(join(dir, 'expected.json'), 'utf8')).toBe(true);
  });

  it('fails with the reference message when the history lost a line', () => {
    const dir = golden('neg-deleted-historical-line');
    const result = runCli(['changelog', 'matrix', '--base-dir', join(dir, 'base'), '--head-dir', join(dir, 'head')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('frontier: error: Deletions are not allowed in perf-changelog.yaml.');
  });
});
