/** The trusted external sweep's decision (src/ci/external.ts), check by check, with InferenceX's semantics. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/ci/event.js';
import { authorizeExternalSweep, externalComment } from '../../src/ci/external.js';
import { externalPullOf, permissionOf } from '../../src/ci/external-record.js';
import { SWEEP_LABELS } from '../../src/ci/labels.js';
import { planSweep } from '../../src/ci/plan.js';
import { runCli, tempFiles } from '../helpers.js';

const HEAD = 'a'.repeat(40);
const BASE = 'b'.repeat(40);
const MERGE = 'c'.repeat(40);

function event(o: { name?: string; action?: string; label?: string; headRepo?: string; headSha?: string } = {}) {
  return parseEvent(o.name ?? 'pull_request_target', {
    action: o.action ?? 'labeled',
    label: { name: o.label ?? 'full-sweep-fail-fast' },
    sender: { login: 'maintainer' },
    repository: { full_name: 'acme/catalog', default_branch: 'main' },
    pull_request: {
      number: 7,
      head: { sha: o.headSha ?? HEAD, repo: { full_name: o.headRepo ?? 'vendor/catalog' } },
      base: { sha: BASE, ref: 'main' },
      labels: [],
    },
  });
}

const permission = (p = 'write', role = p) =>
  permissionOf({ permission: p, role_name: role, user: { login: 'maintainer' } }, 'permission.json');

function pull(o: Record<string, unknown> = {}) {
  return externalPullOf(
    {
      number: 7,
      state: 'open',
      draft: false,
      head: { sha: HEAD, repo: { full_name: 'vendor/catalog' } },
      base: { sha: BASE, repo: { full_name: 'acme/catalog' } },
      labels: [{ name: 'full-sweep-fail-fast' }, { name: 'all-evals' }],
      merge_commit_sha: MERGE,
      ...o,
    },
    'pull.json',
  );
}

describe('authorizeExternalSweep', () => {
  it('a maintainer’s sweep label on a fork’s open PR approves its head: the dispatch InferenceX sends', () => {
    const d = authorizeExternalSweep({ event: event(), permission: permission(), pull: pull() });
    expect(d.approved).toBe(true);
    expect(d.refusal).toBeUndefined();
    expect(d.reason).toContain('@maintainer has write permission: `full-sweep-fail-fast` approves');
    expect(d.dispatch).toEqual({
      ref: 'main',
      inputs: {
        'test-name': `External PR #7 @ ${HEAD.slice(0, 12)}`,
        ref: MERGE,
        'changelog-base-ref': BASE,
        'changelog-head-ref': HEAD,
        'trim-conc': 'false',
        'all-evals': 'true',
        'evals-only': 'false',
        'fail-fast': 'true',
        'agentx-fast': 'false',
        'pr-labels-json': '["full-sweep-fail-fast","all-evals"]',
      },
    });
    const comment = externalComment(d, 'https://github.com/acme/catalog/actions/workflows/frontier-sweep.yml');
    expect(comment).toContain(`approved external revision \`${HEAD}\``);
    expect(comment).toContain('remove and re-add the sweep label to approve a new revision');
  });

  it.each([
    ['sweep-enabled', 'true', 'false'],
    ['full-sweep-enabled', 'false', 'false'],
    ['non-canary-full-sweep-enabled', 'false', 'false'],
    ['full-sweep-fail-fast', 'false', 'true'],
    ['full-sweep-fail-fast-no-canary', 'false', 'true'],
  ])('%s: trim-conc %s, fail-fast %s', (label, trim, failFast) => {
    const d = authorizeExternalSweep({
      event: event({ label }),
      permission: permission('admin'),
      pull: pull({ labels: [{ name: label }, { name: 'evals-only' }, { name: 'agentx-fast' }] }),
    });
    expect(d.dispatch?.inputs).toMatchObject({
      'trim-conc': trim,
      'fail-fast': failFast,
      'evals-only': 'true',
      'agentx-fast': 'true',
      'all-evals': 'false',
    });
  });

  it('covers every sweep label', () => expect(SWEEP_LABELS).toHaveLength(5));

  const refused = (input: Partial<Parameters<typeof authorizeExternalSweep>[0]>) => {
    const d = authorizeExternalSweep({ event: event(), permission: permission(), pull: pull(), ...input });
    expect(d.approved).toBe(false);
    expect(d.dispatch).toBeUndefined();
    return d;
  };

  it('refuses another event or action', () => {
    expect(refused({ event: event({ name: 'pull_request' }) })).toMatchObject({ refusal: 'event' });
    const d = refused({ event: event({ action: 'synchronize' }) });
    expect(d.refusal).toBe('event');
    expect(d.reason).toContain('a pull_request_target synchronize event');
  });

  it('refuses a pull request whose head is in this repository (event or pull as it stands)', () => {
    expect(refused({ event: event({ headRepo: 'acme/catalog' }) }).reason).toContain('only for fork pull requests');
    const now = refused({ pull: pull({ head: { sha: HEAD, repo: { full_name: 'acme/catalog' } } }) });
    expect(now.refusal).toBe('internal');
  });

  it('refuses a label that is not a sweep label', () => {
    const d = refused({ event: event({ label: 'all-evals' }) });
    expect(d.refusal).toBe('label');
    expect(d.reason).toContain('labeled `all-evals`: not a sweep label');
  });

  it.each([
    ['read', 'triage', '@maintainer has read permission (role triage)'],
    ['read', 'read', '@maintainer has read permission;'],
    ['none', '', '@maintainer has none permission;'],
  ])('refuses a labeller with %s permission (role %s)', (p, role, words) => {
    const d = refused({ permission: permission(p, role) });
    expect(d.refusal).toBe('permission');
    expect(d.reason).toContain(words);
    expect(d.reason).toContain('write, maintain, or admin permission is required to authorize external code');
  });

  it('accepts maintain and admin as write (the API reads maintain as write)', () => {
    for (const p of ['admin', 'maintain'])
      expect(authorizeExternalSweep({ event: event(), permission: permission(p), pull: pull() }).approved).toBe(true);
  });

  it('refuses a closed or draft pull request', () => {
    expect(refused({ pull: pull({ state: 'closed' }) }).reason).toBe(
      'the pull request must be open and ready for review: it is closed',
    );
    expect(refused({ pull: pull({ draft: true }) }).reason).toContain('it is a draft');
  });

  it('refuses when the PR advanced past the labelled head: a new label approves the new revision', () => {
    const newer = 'd'.repeat(40);
    const d = refused({ pull: pull({ head: { sha: newer, repo: { full_name: 'vendor/catalog' } } }) });
    expect(d.refusal).toBe('advanced');
    expect(d.reason).toBe(
      `the PR advanced from ${HEAD} to ${newer}; remove and re-add the sweep label to approve the new revision`,
    );
  });

  it('refuses unless the applied label is the only sweep label', () => {
    const two = refused({ pull: pull({ labels: [{ name: 'full-sweep-fail-fast' }, { name: 'sweep-enabled' }] }) });
    expect(two.refusal).toBe('labels');
    expect(two.reason).toContain('found `full-sweep-fail-fast`, `sweep-enabled`');
    // The label was removed again before the workflow read the pull request.
    expect(refused({ pull: pull({ labels: [] }) }).reason).toContain('found none');
    expect(refused({ pull: pull({ labels: [{ name: 'sweep-enabled' }] }) }).refusal).toBe('labels');
  });

  it('refuses without a merge commit', () => {
    const d = refused({ pull: pull({ merge_commit_sha: null }) });
    expect(d.refusal).toBe('merge-commit');
    expect(d.reason).toContain('resolve conflicts and re-add the label');
    expect(externalComment(d, 'x')).toContain(`No sweep was dispatched for \`${HEAD}\`: GitHub has not produced a merge commit`);
  });

  it('recorded answers in another shape are errors naming the file and the call', () => {
    expect(() => permissionOf({ message: 'Not Found' }, 'p.json')).toThrow(/p\.json: expected a collaborator permission/);
    expect(() => externalPullOf([], 'q.json')).toThrow(/q\.json: expected a pull request object/);
  });
});

describe('the dispatched sweep of an approved revision (planSweep on workflow_dispatch)', () => {
  const dispatch = (inputs: Record<string, unknown>) =>
    planSweep({ event: parseEvent('workflow_dispatch', { ref: 'refs/heads/main', inputs }), headMessage: '' });

  it('a changelog range: unofficial, no canary, shaped by its inputs, labels from pr-labels-json', () => {
    const plan = dispatch({
      'test-name': 'External PR #7 @ aaaaaaaaaaaa',
      ref: MERGE,
      'changelog-base-ref': BASE,
      'changelog-head-ref': HEAD,
      'trim-conc': 'true',
      'fail-fast': true,
      'evals-only': 'true',
      'all-evals': 'true',
      'agentx-fast': 'false',
      'pr-labels-json': '["sweep-enabled","skip_queue"]',
    });
    expect(plan).toMatchObject({
      run: true,
      official: false,
      mode: { trimConc: true, canary: false, failFast: true },
      evals: 'only',
      agentxFast: false,
      skipQueue: true,
      sweepLabel: 'sweep-enabled',
      changelogRange: { base: BASE, head: HEAD },
    });
    expect(plan.reasons).toEqual([
      `dispatched (External PR #7 @ aaaaaaaaaaaa): the changelog entries from ${BASE} to ${HEAD}, an unofficial sweep`,
    ]);
  });

  it('a command dispatch: range-only inputs are noted as ignored', () => {
    const plan = dispatch({ 'generate-cli-command': 'full-sweep', 'trim-conc': 'true', 'fail-fast': 'true' });
    expect(plan).toMatchObject({ mode: { trimConc: false, canary: false, failFast: true }, evals: 'default' });
    expect(plan.changelogRange).toBeUndefined();
    expect(plan.notes).toContain("trim-conc is ignored: it shapes a changelog range's rows, and this dispatch names a command");
  });

  it('half a range, or labels that are not a JSON list, are errors saying what to give', () => {
    expect(() => dispatch({ 'changelog-base-ref': BASE })).toThrow(
      'a dispatch names both changelog-base-ref and changelog-head-ref, or neither',
    );
    expect(() => dispatch({ 'pr-labels-json': 'sweep-enabled' })).toThrow(/pr-labels-json "sweep-enabled" is not a JSON array/);
  });
});

describe('frontier ci external', () => {
  const files = () =>
    tempFiles({
      'event.json': JSON.stringify({
        action: 'labeled',
        label: { name: 'sweep-enabled' },
        sender: { login: 'maintainer' },
        repository: { full_name: 'acme/catalog', default_branch: 'main' },
        pull_request: { number: 7, head: { sha: HEAD, repo: { full_name: 'vendor/catalog' } }, base: { sha: BASE } },
      }),
      'someone-else.json': JSON.stringify({ permission: 'admin', user: { login: 'intruder' } }),
      'permission.json': JSON.stringify({ permission: 'write', user: { login: 'maintainer' } }),
      'pull-8.json': JSON.stringify({ number: 8, state: 'open', head: { sha: HEAD } }),
    });
  const external = (dir: string, permission: string, pull: string) =>
    runCli([
      'ci',
      'external',
      '--event',
      join(dir, 'event.json'),
      '--event-name',
      'pull_request_target',
      '--permission',
      join(dir, permission),
      '--pull',
      join(dir, pull),
    ]);

  it('a recording of someone else’s permission, or of another pull request, is an error naming the file', () => {
    const dir = files();
    const other = external(dir, 'someone-else.json', 'pull-8.json');
    expect(other.status).toBe(1);
    expect(other.stderr).toContain("someone-else.json is @intruder's permission, not the labeller @maintainer's");
    const pr = external(dir, 'permission.json', 'pull-8.json');
    expect(pr.status).toBe(1);
    expect(pr.stderr).toContain("pull-8.json is pull request #8, not the event's #7");
  });
});
