// The `main()` cases of InferenceX utils/test_find_reusable_sweep_run.py, ported: the same API
// answers (recorded as files, in the API's shapes) and event, the same outcome. A lookup the
// reference's fake API would reject ("unexpected path") is a file not recorded here, which throws.
// Then Frontier's own cases, one per refusal code.
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/ci/event.js';
import type { ReuseDecision } from '../../src/ci/reuse/index.js';
import { REASONS, decideReuse, recordedGithub, reuseOutputs } from '../../src/ci/reuse/index.js';
import { tempFiles } from '../helpers.js';

const REPO = { full_name: 'SemiAnalysisAI/InferenceX' };

const pushToMain = (after = 'merge-sha', ref = 'refs/heads/main') =>
  parseEvent('push', { ref, after, before: 'b', repository: REPO });

const synchronize = (over: { action?: string; labels?: string[]; draft?: boolean } = {}) =>
  parseEvent('pull_request', {
    action: over.action ?? 'synchronize',
    repository: REPO,
    pull_request: {
      number: 1321,
      draft: over.draft ?? false,
      labels: (over.labels ?? ['full-sweep-enabled']).map((name) => ({ name })),
      head: { sha: 'abc123', ref: 'feature-branch', repo: REPO },
      base: { ref: 'main' },
    },
  });

const commentEvent = (body: string, association = 'OWNER', pullRequest = true) =>
  parseEvent('issue_comment', {
    action: 'created',
    repository: REPO,
    issue: { number: 1321, ...(pullRequest ? { pull_request: { url: 'x' } } : {}) },
    comment: { body, author_association: association, user: { login: 'maintainer' }, created_at: '2026-05-14T00:00:00Z' },
  });

/** A recorded GitHub: file name → the API's JSON answer. */
const github = (files: Record<string, unknown>) =>
  recordedGithub({ dir: tempFiles(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, JSON.stringify(v)]))) });

const ownerSays = (body: string) => [{ created_at: '2026-05-13T00:00:00Z', author_association: 'OWNER', body }];

const pinnedRun = {
  id: 25763404168,
  event: 'pull_request',
  status: 'completed',
  conclusion: 'success',
  path: '.github/workflows/run-sweep.yml',
  pull_requests: [{ number: 1321 }],
  run_attempt: 1,
  html_url: 'https://github.com/SemiAnalysisAI/InferenceX/actions/runs/25763404168',
  head_sha: 'abc123',
};

const mergedPr = (labels: string[], head: Record<string, string> = { sha: 'abc123' }) => ({
  number: 1321,
  merged_at: '2026-05-13T00:01:00Z',
  labels: labels.map((name) => ({ name })),
  head,
});

const pinnedFiles = (over: Record<string, unknown> = {}) => ({
  'pulls.json': [{ number: 1321 }],
  'comments.json': ownerSays('/reuse-sweep-run 25763404168'),
  'pr.json': mergedPr(['full-sweep-enabled']),
  'runs-25763404168.json': pinnedRun,
  'commits.json': [{ sha: 'abc123' }],
  'artifacts-25763404168.json': { total_count: 1, artifacts: [{ name: 'results_bmk', expired: false }] },
  ...over,
});

const outputs = (d: ReuseDecision) => reuseOutputs(d) as Record<string, string>;

describe('the reuse gate on pull_request', () => {
  it('skips the PR sweep when a MEMBER authorized reuse', () => {
    const d = decideReuse(
      synchronize(),
      github({
        'comments.json': [{ created_at: '2026-05-13T00:00:00Z', author_association: 'MEMBER', body: '/reuse-sweep-run' }],
      }),
    );
    const o = outputs(d);
    expect([o['reuse-enabled'], o['skip-pr-sweep'], o['reuse-source-pr-number']]).toEqual(['false', 'true', '1321']);
  });

  it('lets the PR sweep run without an allowed authorization', () => {
    const d = decideReuse(
      synchronize(),
      github({
        'comments.json': [{ created_at: '2026-05-13T00:00:00Z', author_association: 'CONTRIBUTOR', body: '/reuse-sweep-run' }],
      }),
    );
    expect([outputs(d)['reuse-enabled'], outputs(d)['skip-pr-sweep']]).toEqual(['false', 'false']);
    expect(d.refusal?.code).toBe('not-authorized');
  });

  it('does not look at comments for a label event', () => {
    // No comments recorded: reading them would throw.
    const d = decideReuse(synchronize({ action: 'labeled' }), github({}));
    expect(outputs(d)['skip-pr-sweep']).toBe('false');
    expect(d.refusal?.code).toBe('not-synchronize');
    expect(d.reason).toBe('pull_request action labeled is not synchronize');
  });

  // Frontier: the gate job's own condition (run-sweep.yml reuse-sweep-gate `if:`).
  it('never skips a draft or a PR without a reusable full-sweep label', () => {
    expect(decideReuse(synchronize({ draft: true }), github({})).refusal?.code).toBe('pr-draft');
    expect(decideReuse(synchronize({ labels: ['sweep-enabled'] }), github({})).refusal?.code).toBe('pr-not-full-sweep');
    expect(decideReuse(synchronize({ labels: ['full-sweep-enabled', 'evals-only'] }), github({})).refusal?.code).toBe(
      'pr-not-full-sweep',
    );
  });
});

describe('the merge run on main', () => {
  it('enables a pinned reuse with only a full-sweep label', () => {
    const o = outputs(decideReuse(pushToMain(), github(pinnedFiles())));
    expect([o['reuse-enabled'], o['reuse-source-run-id'], o['reuse-source-pr-number'], o['reuse-source-head-sha']]).toEqual([
      'true',
      '25763404168',
      '1321',
      'abc123',
    ]);
    expect(o['reuse-source-run-attempt']).toBe('1');
    expect(o['reuse-source-run-url']).toBe(pinnedRun.html_url);
    expect(o['reuse-reason']).toBe('PR #1321 approved reusable full sweep from pinned run 25763404168');
  });

  it('enables an explicitly pinned failed run', () => {
    const failed = { ...pinnedRun, conclusion: 'failure' } as Record<string, unknown>;
    delete failed.pull_requests;
    const o = outputs(decideReuse(pushToMain(), github(pinnedFiles({ 'runs-25763404168.json': failed }))));
    expect([o['reuse-enabled'], o['reuse-source-run-id']]).toEqual(['true', '25763404168']);
  });

  it('resolves a bare command to the latest sweep of the head branch', () => {
    const d = decideReuse(
      pushToMain(),
      github({
        'pulls.json': [{ number: 1321 }],
        'comments.json': ownerSays('/reuse-sweep-run'),
        'pr.json': mergedPr(['full-sweep-enabled'], { sha: 'abc123', ref: 'feature-branch' }),
        'commits.json': [{ sha: 'abc123' }],
        'runs.json': { total_count: 1, workflow_runs: [{ ...pinnedRun, head_branch: 'feature-branch' }] },
        'artifacts-25763404168.json': { artifacts: [{ name: 'results_bmk' }] },
      }),
    );
    const o = outputs(d);
    expect([o['reuse-enabled'], o['reuse-source-run-id'], o['reuse-source-pr-number'], o['reuse-source-head-sha']]).toEqual([
      'true',
      '25763404168',
      '1321',
      'abc123',
    ]);
    expect(d.source?.pinned).toBe(false);
  });

  it('with a bare command picks the run of an older PR commit', () => {
    const older = {
      ...pinnedRun,
      id: 25763466401,
      pull_requests: [],
      html_url: 'https://github.com/SemiAnalysisAI/InferenceX/actions/runs/25763466401',
      head_sha: 'f6b43f745a7df3653d677b30372b05d3bec6f153',
      head_branch: 'claude/issue-1154-qwen3.5-fp8-h200-sglang-mtp',
    };
    const o = outputs(
      decideReuse(
        pushToMain(),
        github({
          'pulls.json': [{ number: 1347 }],
          'comments-1347.json': ownerSays('/reuse-sweep-run'),
          'pr-1347.json': {
            merged_at: '2026-05-13T00:01:00Z',
            labels: [{ name: 'full-sweep-enabled' }],
            head: { sha: 'f862cb8b126e2437ee793951919f40c23bba3a6f', ref: 'claude/issue-1154-qwen3.5-fp8-h200-sglang-mtp' },
          },
          'commits-1347.json': [
            { sha: 'f6b43f745a7df3653d677b30372b05d3bec6f153' },
            { sha: 'f862cb8b126e2437ee793951919f40c23bba3a6f' },
          ],
          'runs.json': { workflow_runs: [older] },
          'artifacts-25763466401.json': { artifacts: [{ name: 'results_bmk' }] },
        }),
      ),
    );
    expect([o['reuse-enabled'], o['reuse-source-run-id'], o['reuse-source-pr-number'], o['reuse-source-head-sha']]).toEqual([
      'true',
      '25763466401',
      '1347',
      'f6b43f745a7df3653d677b30372b05d3bec6f153',
    ]);
  });

  it('disables reuse without an authorization comment', () => {
    const d = decideReuse(pushToMain(), github({ 'pulls.json': [{ number: 1321 }], 'comments.json': [] }));
    const o = outputs(d);
    expect([o['reuse-enabled'], o['reuse-source-pr-number'], o['reuse-reason']]).toEqual([
      'false',
      '1321',
      'PR #1321 has no /reuse-sweep-run authorization',
    ]);
    expect(d.refusal?.failClosed).toBe(false);
  });

  it('accepts all-evals beside the non-canary full-sweep label', () => {
    const o = outputs(
      decideReuse(pushToMain(), github(pinnedFiles({ 'pr.json': mergedPr(['non-canary-full-sweep-enabled', 'all-evals']) }))),
    );
    expect(o['reuse-enabled']).toBe('true');
  });

  it.each(['evals-only', 'agentx-fast'])('fails closed on the reuse-incompatible label %s', (label) => {
    const d = decideReuse(
      pushToMain(),
      github({
        'pulls.json': [{ number: 1321 }],
        'comments.json': ownerSays('/reuse-sweep-run 25763404168'),
        'pr.json': mergedPr(['full-sweep-enabled', label]),
      }),
    );
    expect(d.refusal?.code).toBe('incompatible-label');
    expect(d.refusal?.failClosed).toBe(true);
    expect(d.reason).toMatch(new RegExp(`reuse-incompatible.*${label}`));
  });

  it('fails closed when the PR has neither full-sweep label', () => {
    const d = decideReuse(
      pushToMain(),
      github({
        'pulls.json': [{ number: 1321 }],
        'comments.json': ownerSays('/reuse-sweep-run 25763404168'),
        'pr.json': mergedPr(['sweep-enabled']),
      }),
    );
    expect(d.refusal?.code).toBe('missing-full-sweep-label');
    expect(d.reason).toContain('full-sweep-enabled');
    expect(d.reason).toContain('non-canary-full-sweep-enabled');
  });
});

describe("Frontier's cases, one per refusal code", () => {
  it('not-push-to-main: a push elsewhere, or a dispatch', () => {
    expect(decideReuse(pushToMain('x', 'refs/heads/feature'), github({})).refusal?.code).toBe('not-push-to-main');
    expect(decideReuse(parseEvent('workflow_dispatch', { ref: 'refs/heads/main', inputs: {} }), github({})).refusal?.code).toBe(
      'not-push-to-main',
    );
  });

  it('no-pull-request', () => {
    const d = decideReuse(pushToMain(), github({ 'pulls.json': [] }));
    expect([d.refusal?.code, d.refusal?.failClosed]).toEqual(['no-pull-request', false]);
  });

  it('multiple-pull-requests without any authorization, ambiguous-pull-requests with one', () => {
    const files = { 'pulls.json': [{ number: 1 }, { number: 2 }], 'comments-1.json': [], 'comments-2.json': [] };
    expect(decideReuse(pushToMain(), github(files)).refusal?.code).toBe('multiple-pull-requests');
    const d = decideReuse(pushToMain(), github({ ...files, 'comments-2.json': ownerSays('/reuse-sweep-run') }));
    expect([d.refusal?.code, d.refusal?.failClosed]).toEqual(['ambiguous-pull-requests', true]);
    expect(d.reason).toBe(
      'Commit merge-sha maps to multiple PRs (1, 2); found reuse authorization on #2; refusing to reuse artifacts.',
    );
  });

  it('not-merged', () => {
    const pr = { ...mergedPr(['full-sweep-enabled']), merged_at: null };
    expect(decideReuse(pushToMain(), github(pinnedFiles({ 'pr.json': pr }))).refusal?.code).toBe('not-merged');
  });

  it('no-pr-commits and no-successful-run (bare command)', () => {
    const files = {
      'pulls.json': [{ number: 1321 }],
      'comments.json': ownerSays('/reuse-sweep-run'),
      'pr.json': mergedPr(['full-sweep-enabled'], { sha: 'abc123', ref: 'feature-branch' }),
      'commits.json': [],
    };
    expect(decideReuse(pushToMain(), github(files)).refusal?.code).toBe('no-pr-commits');
    const d = decideReuse(
      pushToMain(),
      github({
        ...files,
        'commits.json': [{ sha: 'abc123' }],
        'runs.json': { workflow_runs: [{ ...pinnedRun, conclusion: 'failure', head_branch: 'feature-branch' }] },
      }),
    );
    expect(d.refusal?.code).toBe('no-successful-run');
    expect(d.reason).toContain('pin a specific run with `/reuse-sweep-run <run_id>`');
  });

  it('run-not-found: the pinned run is not recorded anywhere', () => {
    const files = pinnedFiles() as Record<string, unknown>;
    delete files['runs-25763404168.json'];
    files['runs.json'] = { workflow_runs: [] };
    expect(decideReuse(pushToMain(), github(files)).refusal?.code).toBe('run-not-found');
  });

  it('run-commit-not-in-pr through the whole decision (a force-pushed PR)', () => {
    expect(decideReuse(pushToMain(), github(pinnedFiles({ 'commits.json': [{ sha: 'other' }] }))).refusal?.code).toBe(
      'run-commit-not-in-pr',
    );
  });

  it('a decision needing an answer nobody recorded throws, naming the file', () => {
    expect(() => decideReuse(pushToMain(), github({}))).toThrow(/pull requests of the merge commit/);
  });

  it('every code has a fix', () => {
    for (const [code, info] of Object.entries(REASONS)) expect(info.hint.length, code).toBeGreaterThan(20);
  });
});

describe('the comment-time check (issue_comment)', () => {
  const files = pinnedFiles({ 'pr.json': { ...mergedPr(['full-sweep-enabled']), merged_at: null } });

  it('says which run the merge will reuse', () => {
    const d = decideReuse(commentEvent('/reuse-sweep-run 25763404168'), github(files));
    expect(d.enabled).toBe(true);
    expect(d.source).toMatchObject({ runId: '25763404168', pinned: true, headSha: 'abc123' });
  });

  it('not-a-pull-request, no-command, author-not-allowed', () => {
    expect(decideReuse(commentEvent('/reuse-sweep-run', 'OWNER', false), github({})).refusal?.code).toBe('not-a-pull-request');
    expect(decideReuse(commentEvent('please /reuse-sweep-run'), github({})).refusal?.code).toBe('no-command');
    const d = decideReuse(commentEvent('/reuse-sweep-run', 'CONTRIBUTOR'), github({}));
    expect([d.refusal?.code, d.refusal?.failClosed]).toEqual(['author-not-allowed', false]);
  });

  it('refuses at once what the merge would refuse: labels, then the run', () => {
    expect(
      decideReuse(commentEvent('/reuse-sweep-run'), github({ 'pr.json': mergedPr(['full-sweep-enabled', 'agentx-fast']) }))
        .refusal?.code,
    ).toBe('incompatible-label');
    const noArtifacts = { ...files, 'artifacts-25763404168.json': { artifacts: [{ name: 'results_bmk', expired: true }] } };
    expect(decideReuse(commentEvent('/reuse-sweep-run 25763404168'), github(noArtifacts)).refusal?.code).toBe(
      'run-no-result-artifacts',
    );
  });
});
