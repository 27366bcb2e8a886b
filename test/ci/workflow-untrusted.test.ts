/**
 * What the generated workflows do with strings a pull request's author chooses (its branch names,
 * its base): the workflows run locally (test/support/actions-runner.ts) on hostile values.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { workflowFiles } from '../../src/ci/workflows/index.js';
import { CLI, REPO, git, runCli, tempFiles } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import { catalogRepository, WORKFLOW_OPTIONS } from './repository.js';

/** Commit the workflows `frontier ci init` writes on the checked-out branch; the new head. */
function withWorkflows(dir: string): string {
  const init = runCli(['ci', 'init', '--dir', dir]);
  expect(init.status, init.stderr).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'ci: the Frontier workflows');
  return git(dir, 'rev-parse', 'HEAD');
}

describe('generated workflows and untrusted strings', () => {
  it('no run: script interpolates ${{ }}: values reach the shell through env, quoted', () => {
    for (const [path, text] of workflowFiles(WORKFLOW_OPTIONS, 'test')) {
      const wf = parseYaml(text) as { jobs: Record<string, { steps?: { name?: string; run?: string }[] }> };
      for (const [job, spec] of Object.entries(wf.jobs))
        for (const step of spec.steps ?? []) expect(step.run ?? '', `${path} › ${job} › ${step.name}`).not.toContain('${{');
    }
  });

  it.each(['x&branch=main', 'a b#c'])('the reuse workflow queries the sweep runs of branch %j, encoded', (branch) => {
    const repo = catalogRepository();
    git(repo.dir, 'checkout', '-q', 'main');
    const sha = withWorkflows(repo.dir);
    const r = runWorkflowLocally({
      repo: repo.dir,
      sha,
      workflow: '.github/workflows/frontier-reuse.yml',
      eventName: 'issue_comment',
      event: JSON.stringify({
        action: 'created',
        repository: { full_name: 'acme/catalog', default_branch: 'main' },
        issue: { number: 2, pull_request: {}, body: '' },
        comment: { body: '/reuse-sweep-run', user: { login: 'boss' }, author_association: 'MEMBER' },
      }),
      frontier: CLI,
      api: {
        'pulls/2': {
          number: 2,
          user: { login: 'alice' },
          head: { sha: repo.head, ref: branch, repo: { full_name: 'acme/catalog' } },
          base: { sha: repo.base, ref: 'main', repo: { full_name: 'acme/catalog', default_branch: 'main' } },
        },
      },
    });
    const runsCall = r.gh.find((argv) => argv.some((a) => a.includes('/runs?')));
    expect(runsCall, JSON.stringify(r.gh)).toBeDefined();
    const query = new URL(`https://api.github.com/${runsCall!.find((a) => a.includes('/runs?'))!}`).searchParams;
    expect(query.getAll('branch')).toEqual([branch]);
    expect([...query.keys()].sort()).toEqual(['branch', 'event', 'per_page', 'status']);
  });

  it('the sign-off workflow reads CODEOWNERS on the default branch when the PR targets a branch its author made', () => {
    const fixtures = join(REPO, 'test/fixtures/ci/signoff');
    const dir = tempFiles({
      '.github/CODEOWNERS': readFileSync(join(fixtures, 'CODEOWNERS'), 'utf8'),
      'docs/PR_REVIEW_CHECKLIST.md': readFileSync(join(fixtures, 'PR_REVIEW_CHECKLIST.md'), 'utf8'),
      'configs/amd-master.yaml': 'dsr1-fp8-mi355x-sglang:\n  image: lmsysorg/sglang:v0.5.8-rocm700-mi35x\n',
    });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'base');
    const main = withWorkflows(dir);
    // `evil`: the author's branch, naming themself the owner of everything; the PR targets it.
    git(dir, 'checkout', '-qb', 'evil');
    writeFileSync(join(dir, '.github/CODEOWNERS'), '* @mallory\n');
    git(dir, 'commit', '-qam', 'owners: me');
    git(dir, 'checkout', '-qb', 'evil-pr');
    writeFileSync(join(dir, 'configs/amd-master.yaml'), 'dsr1-fp8-mi355x-sglang:\n  image: lmsysorg/sglang:v0.5.9\n');
    git(dir, 'commit', '-qam', 'bump the image');
    const head = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'update-ref', 'refs/pull/42/head', head);
    git(dir, 'checkout', '-q', 'main');

    const body = 'As a PR reviewer and CODEOWNER, I approve.\n\nSigned: mallory';
    const r = runWorkflowLocally({
      repo: dir,
      sha: main,
      workflow: '.github/workflows/frontier-signoff.yml',
      eventName: 'issue_comment',
      event: JSON.stringify({
        action: 'created',
        repository: { full_name: 'acme/catalog', default_branch: 'main' },
        issue: { number: 42, pull_request: {}, body: '' },
        comment: { body, user: { login: 'mallory' }, author_association: 'CONTRIBUTOR' },
      }),
      frontier: CLI,
      secrets: { FRONTIER_DB: join(tempFiles({}), 'absent.db') },
      api: {
        'pulls/42': {
          number: 42,
          body: 'Bumps the image.',
          user: { login: 'mallory' },
          head: { sha: head, ref: 'evil-pr', repo: { full_name: 'acme/catalog' } },
          base: { ref: 'evil', repo: { full_name: 'acme/catalog', default_branch: 'main' } },
        },
        'pulls/42/commits': [{ sha: head }],
      },
    });
    // The verdict fails (no store, and the owner check), and its comment is posted.
    const log = r.jobs[0]!.steps.map((s) => `${s.name}: ${s.conclusion}\n${s.log}`).join('\n');
    expect(r.jobs[0]!.steps.find((s) => s.name === 'Verify')!.conclusion, log).toBe('failure');
    expect(r.comments, log).toHaveLength(1);
    expect(r.comments[0]!.body).toContain(
      'configs/amd-master.yaml is owned by @billishyahao @chunfangamd @seungrokj @yctseng0211 @1am9trash (.github/CODEOWNERS line 4',
    );
    expect(r.comments[0]!.body).toContain('@mallory is not one of them');
  });
});
