import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogMatrix, checkChangelog, gitSnapshot } from '../../src/changelog/index.js';
import { REPO, git, runCli, tempFiles } from '../helpers.js';

const LINK = 'https://github.com/SemiAnalysisAI/InferenceX/pull/';
const HISTORY = `- config-keys:\n    - dsr1-fp8-h200-vllm\n  description:\n    - "Initial sweep"\n  pr-link: ${LINK}1\n`;
const NEW = `- config-keys:\n    - dsr1-fp8-h200-vllm\n  description:\n    - "Bump vLLM"\n  pr-link: ${LINK}2\n`;

/** The example catalog, with the vLLM config at 8k1k (the scenario evals are chosen from). */
function exampleAt8k1k(): string {
  const example = readFileSync(join(REPO, 'examples/configs/example-master.yaml'), 'utf8');
  const start = example.indexOf('dsr1-fp8-h200-vllm:');
  const end = example.indexOf('\n# ', start);
  return (
    example.slice(0, start) +
    example.slice(start, end).replace('isl: 1024\n        osl: 64', 'isl: 8192\n        osl: 1024') +
    example.slice(end)
  );
}

/** A repository: main holds the example catalog and one changelog entry; branch `pr` bumps vLLM and appends an entry. */
function repository(appended: string): string {
  const dir = tempFiles({
    'configs/example-master.yaml': exampleAt8k1k(),
    'configs/runners.yaml': readFileSync(join(REPO, 'examples/configs/runners.yaml'), 'utf8'),
    'perf-changelog.yaml': HISTORY,
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'checkout', '-q', '-b', 'pr');
  const master = join(dir, 'configs/example-master.yaml');
  writeFileSync(master, readFileSync(master, 'utf8').replace('vllm/vllm-openai:v0.25.0', 'vllm/vllm-openai:v0.26.0'));
  writeFileSync(join(dir, 'perf-changelog.yaml'), HISTORY + appended);
  git(dir, 'commit', '-q', '-am', 'bump vLLM');
  git(dir, 'checkout', '-q', 'main');
  return dir;
}

describe('base and head as git refs', () => {
  it('checks a branch against main without checking it out', async () => {
    const dir = repository(`\n${NEW}`);
    const report = await checkChangelog(gitSnapshot('main', dir), gitSnapshot('pr', dir));
    expect(report).toMatchObject({ ok: true, additions: 1, changedConfigs: ['dsr1-fp8-h200-vllm'] });
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('names files as REF:path in findings', async () => {
    const dir = repository(NEW);
    const report = await checkChangelog(gitSnapshot('main', dir), gitSnapshot('pr', dir));
    expect(report.problems).toMatchObject([{ file: 'pr:perf-changelog.yaml', line: 6, rule: 'changelog-separator' }]);
  });

  it('builds the sweep of the appended entry', async () => {
    const dir = repository(`\n${NEW}`);
    const matrix = await changelogMatrix(gitSnapshot('main', dir), gitSnapshot('pr', dir));
    expect(matrix.changelog_metadata).toMatchObject({ base_ref: 'main', head_ref: 'pr' });
    const rows = matrix.single_node['8k1k']!;
    expect(rows.map((r) => [r.image, r.conc])).toEqual([
      ['vllm/vllm-openai:v0.26.0', 4],
      ['vllm/vllm-openai:v0.26.0', 8],
      ['vllm/vllm-openai:v0.26.0', 16],
      ['vllm/vllm-openai:v0.26.0', 32],
      ['vllm/vllm-openai:v0.26.0', 64],
      ['vllm/vllm-openai:v0.26.0', 128],
    ]);
    expect(matrix.evals.length).toBeGreaterThan(0);
  });

  it('works in a shallow clone that has both commits', async () => {
    const origin = repository(`\n${NEW}`);
    const clone = tempFiles({});
    git(clone, 'clone', '-q', '--depth', '1', '--branch', 'pr', `file://${origin}`, 'repo');
    const repo = join(clone, 'repo');
    git(repo, 'fetch', '-q', '--depth', '1', 'origin', 'main:refs/remotes/origin/main');
    expect(git(repo, 'rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const result = runCli(['changelog', 'check', '--base', 'origin/main', '--head', 'HEAD'], { cwd: repo });
    expect(result.stdout).toBe('✓ perf-changelog.yaml: 1 appended entry, 0 pr-link corrections, 1 changed config\n');
    expect(result.status).toBe(0);
  });

  it('reports a ref that does not exist', async () => {
    const dir = repository(`\n${NEW}`);
    const result = runCli(['changelog', 'check', '--base', 'no-such-branch', '--head', 'pr'], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`frontier: error: cannot read no-such-branch: it is not a revision of ${dir}`);
  });
});
