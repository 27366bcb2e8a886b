// `frontier ci signoff` as a process (dist/): a tiny git repository per test, a store filled by
// `frontier ingest`, and the recorded API data as files.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { templateBlock } from '../../src/ci/signoff/index.js';
import { REPO, runCli, tempFiles } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson } from '../store/helpers.js';

const FIXTURES = join(REPO, 'test/fixtures/ci/signoff');
const CHECKLIST = readFileSync(join(FIXTURES, 'PR_REVIEW_CHECKLIST.md'), 'utf8');

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

const master = (image: string): string =>
  `dsr1-fp8-mi355x-sglang:\n  image: ${image}\n  model: deepseek-ai/DeepSeek-R1\n  model-prefix: dsr1\n  runner: mi355x\n  precision: fp8\n  framework: sglang\n  multinode: false\n`;

/** A repository whose `main` holds CODEOWNERS, the checklist and a master config, and whose `pr` branch changes the config (and adds `extra`). */
function repository(headImage: string, extra: Record<string, string> = {}): { dir: string; head: string } {
  const dir = tempFiles({
    '.github/CODEOWNERS': readFileSync(join(FIXTURES, 'CODEOWNERS'), 'utf8'),
    'docs/PR_REVIEW_CHECKLIST.md': CHECKLIST,
    'configs/amd-master.yaml': master('lmsysorg/sglang:v0.5.8-rocm700-mi35x'),
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  git(dir, 'checkout', '-qb', 'pr');
  writeFileSync(join(dir, 'configs/amd-master.yaml'), master(headImage));
  for (const [path, text] of Object.entries(extra)) {
    execFileSync('mkdir', ['-p', join(dir, path, '..')]);
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'bump the image');
  // The command reads revisions, never the work tree.
  git(dir, 'checkout', '-q', 'main');
  return { dir, head: git(dir, 'rev-parse', 'pr') };
}

const signoff = (details: string[]): string =>
  templateBlock(CHECKLIST)!
    .replace(/\[ \]/g, '[x]')
    .replace('- insert any additional info here', details.map((d) => `- ${d}`).join('\n'))
    .replace('FILL_IN_GITHUB_USERNAME', 'seungrokj');

function files(dir: string, body: string, author: string) {
  const event = join(dir, '..', `event-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    event,
    JSON.stringify({
      action: 'created',
      repository: { full_name: 'o/r' },
      issue: { number: 42, pull_request: {}, body: 'Bumps the SGLang image.' },
      comment: { body, user: { login: author }, author_association: 'CONTRIBUTOR', created_at: '2026-01-01T00:00:00Z' },
    }),
  );
  const comments = join(dir, '..', 'comments.json');
  writeFileSync(comments, JSON.stringify([{ body: '/reuse-sweep-run', user: { login: 'boss' }, author_association: 'MEMBER' }]));
  return { event, comments };
}

/** A store holding the InferenceX artifact fixture as a run of `commit`; `green` makes every job of its run stats succeed. */
function store(commit: string, green: boolean): string {
  const dir = copyDir(ARTIFACTS);
  if (green)
    editJson(join(dir, 'run-stats/run_stats.json'), (v) =>
      Object.fromEntries(
        Object.entries(v as Record<string, { total: number }>).map(([k, s]) => [k, { n_success: s.total, total: s.total }]),
      ),
    );
  const db = join(tempFiles({}), 'frontier.db');
  const r = runCli(['ingest', dir, '--run-id', '777', '--commit', commit, '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

function signoffCli(
  dir: string,
  head: string,
  body: string,
  extra: string[] = [],
  o: { author?: string; trusted?: string[] } = {},
) {
  const { event, comments } = files(dir, body, o.author ?? 'seungrokj');
  const out = tempFiles({});
  const githubOutput = join(out, 'github-output');
  writeFileSync(githubOutput, '');
  const commentFile = join(out, 'verdict.md');
  const r = runCli(
    [
      'ci',
      'signoff',
      '--event',
      event,
      '--event-name',
      'issue_comment',
      '--repo',
      dir,
      '--base',
      'main',
      '--head',
      head,
      ...(o.trusted ?? ['--trusted', 'main']),
      '--comments',
      comments,
      '--comment-file',
      commentFile,
      ...extra,
    ],
    { env: { GITHUB_OUTPUT: githubOutput } },
  );
  return { ...r, outputs: readFileSync(githubOutput, 'utf8'), commentFile };
}

const RECIPE = 'recipe: https://docs.sglang.io/cookbook/dsr1';

describe('frontier ci signoff (the command)', () => {
  it('passes a sign-off of an upstream image bump with a green sweep and passing evals of the PR commit', () => {
    const { dir, head } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    const r = signoffCli(dir, 'pr', signoff([RECIPE]), ['--db', store(head, true)]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.outputs).toBe(`verdict=pass\ncomment-file=${r.commentFile}\n`);
    const md = readFileSync(r.commentFile, 'utf8');
    expect(md).toBe(r.stdout);
    expect(md.split('\n').slice(0, 2)).toEqual([
      `<!-- codeowner-signoff-verify sha=${head} -->`,
      '## ✅✅✅ **Verdict: PASS** ✅✅✅',
    ]);
    expect(md).toContain('✅ Check 1 (green sweep): PASS — run 777');
    expect(md).toContain('✅ Check 2 (evals): PASS — 3 eval(s) of run 777');
  });

  it('fails on a sweep with a failed job (exit 1, verdict=fail), and on one for a commit not in --commits', () => {
    const { dir, head } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    const red = signoffCli(dir, 'pr', signoff([RECIPE]), ['--db', store(head, false), '--format', 'json']);
    expect(red.status).toBe(1);
    expect(red.outputs).toContain('verdict=fail\n');
    const json = JSON.parse(red.stdout) as { verdict: string; findings: { rule: string; message: string }[] };
    expect(json.verdict).toBe('fail');
    expect(json.findings.filter((f) => f.rule === 'signoff/green-sweep').map((f) => f.message)).toEqual([
      'no passing sweep was found on any commit in this PR',
      expect.stringContaining('is not green: 86% of its jobs succeeded'),
    ]);
    const commits = join(tempFiles({}), 'commits.json');
    writeFileSync(commits, JSON.stringify([{ sha: 'f'.repeat(40) }]));
    const elsewhere = signoffCli(dir, 'pr', signoff([RECIPE]), [
      '--db',
      store(head, true),
      '--commits',
      commits,
      '--format',
      'json',
    ]);
    expect(elsewhere.status).toBe(1);
    expect(
      (JSON.parse(elsewhere.stdout) as { rules: { id: string; status: string }[] }).rules.find(
        (x) => x.id === 'signoff/green-sweep',
      )!.status,
    ).toBe('fail');
  });

  it('reads the change from git: a vendor image and an engine patch in the diff fail their rules, naming the file and line', () => {
    const { dir, head } = repository('rocm/sgl-dev:v0.5.9', {
      'benchmarks/single_node/dsr1.sh': '#!/bin/bash\ngit apply /tmp/fix.patch\n',
    });
    const r = signoffCli(dir, head, signoff([RECIPE]), ['--db', store(head, true), '--format', 'json']);
    expect(r.status).toBe(1);
    const json = JSON.parse(r.stdout) as { findings: { rule: string; file?: string; line?: number; message: string }[] };
    const by = (id: string) => json.findings.filter((f) => f.rule === id);
    expect(by('signoff/upstream-image').map((f) => f.message)).toEqual([
      expect.stringContaining('runs rocm/sgl-dev:v0.5.9, not an image of hub.docker.com/u/lmsysorg'),
    ]);
    expect(by('signoff/engine-patch-declared').map((f) => [f.file, f.line])).toEqual([['benchmarks/single_node/dsr1.sh', 2]]);
    // The benchmark script is owned by the catch-all @InferenceX/core, which the AMD owner covers as a named CODEOWNER.
    expect(by('signoff/owner')).toEqual([]);
  });

  it('a comment that is not a sign-off is skipped; a bad revision is a user error', () => {
    const { dir } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    const skip = signoffCli(dir, 'pr', 'thanks!');
    expect(skip.status).toBe(0);
    expect(skip.outputs).toBe('verdict=skip\n');
    const bad = signoffCli(dir, 'no-such-branch', signoff([]));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('frontier: error: git rev-parse --verify no-such-branch^{commit} failed');
    expect(bad.stderr).toContain('hint:');
  });

  it('CODEOWNERS and the checklist come from --trusted (the default branch), not from the base the PR chose', () => {
    // The PR targets `evil`, a branch its author made from main, naming themself owner of everything
    // and cutting the checklist's template down to one item.
    const { dir } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    git(dir, 'checkout', '-qb', 'evil', 'main');
    writeFileSync(join(dir, '.github/CODEOWNERS'), '* @mallory\nconfigs/ @mallory\n');
    const body = 'As a PR reviewer and CODEOWNER, I approve.\n\nSigned: mallory';
    writeFileSync(join(dir, 'docs/PR_REVIEW_CHECKLIST.md'), `## Template\n\n\`\`\`\n${body}\n\`\`\`\n`);
    git(dir, 'commit', '-qam', 'owners: me');
    git(dir, 'checkout', '-qb', 'evil-pr');
    writeFileSync(join(dir, 'configs/amd-master.yaml'), master('lmsysorg/sglang:v0.5.9-rocm700-mi35x'));
    git(dir, 'commit', '-qam', 'bump the image');
    git(dir, 'checkout', '-q', 'main');
    const owner = (trusted: string) => {
      const r = signoffCli(dir, 'evil-pr', body, ['--base', 'evil', '--format', 'json'], {
        author: 'mallory',
        trusted: ['--trusted', trusted],
      });
      const json = JSON.parse(r.stdout) as {
        rules: { id: string; status: string }[];
        findings: { rule: string; message: string }[];
      };
      return { r, json, status: (id: string) => json.rules.find((x) => x.id === id)!.status };
    };
    const trusted = owner('main');
    expect(trusted.r.status).toBe(1);
    expect(trusted.status('signoff/owner')).toBe('fail');
    expect(trusted.status('signoff/template')).toBe('fail');
    expect(trusted.json.findings.filter((f) => f.rule === 'signoff/owner').map((f) => f.message)).toEqual([
      'configs/amd-master.yaml is owned by @billishyahao @chunfangamd @seungrokj @yctseng0211 @1am9trash (.github/CODEOWNERS line 4, `configs/amd-master.yaml`); @mallory is not one of them',
    ]);
    // What reading them at the PR's base would have decided: the author's own CODEOWNERS and template.
    const chosen = owner('evil');
    expect(chosen.status('signoff/owner')).toBe('pass');
    expect(chosen.status('signoff/template')).toBe('pass');
  });

  it('--trusted is required: a sign-off never falls back to the base for its owners', () => {
    const { dir } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    const r = signoffCli(dir, 'pr', signoff([RECIPE]), [], { trusted: [] });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("required option '--trusted <ref>' not specified");
  });

  it('without a store the sweep and eval checks fail as unverifiable rather than pass', () => {
    const { dir } = repository('lmsysorg/sglang:v0.5.9-rocm700-mi35x');
    const r = signoffCli(dir, 'pr', signoff([RECIPE]), ['--db', join(tempFiles({}), 'absent.db')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('❌ Check 1 (green sweep): FAIL — cannot be verified: no store was read');
  });
});
