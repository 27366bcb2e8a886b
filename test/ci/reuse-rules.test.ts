// Cases ported from InferenceX utils/test_find_reusable_sweep_run.py (same inputs, same outcome),
// for the pure parts: the authorization comment, the latest qualifying run, a run's eligibility.
import { describe, expect, it } from 'vitest';
import type { RecordedComment, WorkflowRun } from '../../src/ci/reuse/index.js';
import {
  artifactNamesByRun,
  commentsOf,
  findAuthorization,
  hasResultArtifacts,
  labelVerdict,
  latestSuccessfulRun,
  reuseAsks,
  runRefusal,
  workflowRunOf,
} from '../../src/ci/reuse/index.js';

const comments = (raw: object[]): RecordedComment[] => commentsOf(raw);
const run = (raw: Record<string, unknown>): WorkflowRun => workflowRunOf(raw);

describe('the authorization comment (find_reuse_authorization)', () => {
  it('uses the latest comment by an allowed author: CONTRIBUTOR comments do not count', () => {
    const auth = findAuthorization(
      comments([
        { created_at: '2026-05-13T00:00:00Z', author_association: 'MEMBER', body: '/reuse-sweep-run 111' },
        { created_at: '2026-05-13T00:01:00Z', author_association: 'CONTRIBUTOR', body: '/reuse-sweep-run 222' },
        { created_at: '2026-05-13T00:02:00Z', author_association: 'OWNER', body: 'approved\n/reuse-sweep-run 333' },
      ]),
    );
    expect([auth.authorized, auth.pinnedRunId]).toEqual([true, '333']);
  });

  it('accepts the command without a run id', () => {
    const auth = findAuthorization(
      comments([{ created_at: '2026-05-13T00:00:00Z', author_association: 'OWNER', body: '/reuse-sweep-run' }]),
    );
    expect([auth.authorized, auth.pinnedRunId]).toEqual([true, null]);
  });

  it('lets a newer bare command un-pin an older pinned one', () => {
    const auth = findAuthorization(
      comments([
        { created_at: '2026-05-13T00:00:00Z', author_association: 'OWNER', body: '/reuse-sweep-run 111' },
        { created_at: '2026-05-13T00:01:00Z', author_association: 'OWNER', body: '/reuse-sweep-run' },
      ]),
    );
    expect([auth.authorized, auth.pinnedRunId]).toEqual([true, null]);
  });

  it('ignores the command mentioned inside a sentence', () => {
    const auth = findAuthorization(
      comments([
        { created_at: '2026-05-13T00:00:00Z', author_association: 'OWNER', body: 'please run /reuse-sweep-run 111 after merge' },
      ]),
    );
    expect([auth.authorized, auth.pinnedRunId]).toEqual([false, null]);
  });

  // Frontier's own cases for the regex's edges (checked against the reference's re.findall).
  it('reads the command as the reference regex does: own line, blanks around, last one in a comment wins', () => {
    expect(reuseAsks('  /reuse-sweep-run   42  ')).toEqual(['42']);
    expect(reuseAsks('/reuse-sweep-run 1\ntext\n/reuse-sweep-run')).toEqual(['1', null]);
    expect(reuseAsks('/reuse-sweep-run\n7')).toEqual(['7']);
    expect(reuseAsks('/reuse-sweep-run abc')).toEqual([]);
    expect(reuseAsks('/reuse-sweep-runs')).toEqual([]);
    expect(reuseAsks('`/reuse-sweep-run`')).toEqual([]);
    expect(reuseAsks('/reuse-sweep-run 12 34')).toEqual([]);
  });

  it('orders comments by created_at, not by their place in the list', () => {
    const auth = findAuthorization(
      comments([
        { created_at: '2026-05-13T00:05:00Z', author_association: 'COLLABORATOR', body: '/reuse-sweep-run 9' },
        { created_at: '2026-05-13T00:01:00Z', author_association: 'OWNER', body: '/reuse-sweep-run 1' },
      ]),
    );
    expect(auth.pinnedRunId).toBe('9');
  });
});

describe('labels', () => {
  it('needs one full-sweep label and none of evals-only, agentx-fast', () => {
    expect(labelVerdict(['non-canary-full-sweep-enabled', 'all-evals'])).toEqual({ incompatible: [], fullSweep: true });
    expect(labelVerdict(['sweep-enabled'])).toEqual({ incompatible: [], fullSweep: false });
    expect(labelVerdict(['full-sweep-enabled', 'evals-only', 'agentx-fast'])).toEqual({
      incompatible: ['agentx-fast', 'evals-only'],
      fullSweep: true,
    });
  });
});

describe('the latest successful PR run (find_latest_successful_pr_run)', () => {
  it('skips a newer failed run', () => {
    const failed = run({ id: 222, conclusion: 'failure', head_sha: 'abc123' });
    const ok = run({ id: 111, conclusion: 'success', head_sha: 'abc123' });
    expect(latestSuccessfulRun([failed, ok], new Set(['abc123']), () => new Set(['results_bmk']))).toBe(ok);
  });

  it('skips a gated no-op run (success with no artifacts)', () => {
    const gated = run({ id: 333, conclusion: 'success', head_sha: 'def456' });
    const real = run({ id: 222, conclusion: 'success', head_sha: 'abc123' });
    const artifacts: Record<string, Set<string>> = { '333': new Set(), '222': new Set(['results_bmk']) };
    expect(latestSuccessfulRun([gated, real], new Set(['abc123', 'def456']), (id) => artifacts[id]!)).toBe(real);
  });

  it('accepts an agentic-only run', () => {
    const agentic = run({ id: 444, conclusion: 'success', head_sha: 'abc123' });
    expect(latestSuccessfulRun([agentic], new Set(['abc123']), () => new Set(['bmk_agentic_dsv4_tp8_conc16']))).toBe(agentic);
  });

  it('finds nothing without PR commits, or for a commit not on the PR', () => {
    const ok = run({ id: 1, conclusion: 'success', head_sha: 'abc123' });
    expect(latestSuccessfulRun([ok], new Set(), () => new Set(['results_bmk']))).toBeUndefined();
    expect(latestSuccessfulRun([ok], new Set(['zzz']), () => new Set(['results_bmk']))).toBeUndefined();
  });
});

describe('artifact names', () => {
  it('leave out expired artifacts', () => {
    const names = artifactNamesByRun(
      [
        { name: 'results_bmk', expired: true },
        { name: 'run-stats', expired: false },
      ],
      '123',
    ).get('123');
    expect(names).toEqual(new Set(['run-stats']));
  });

  it('group a multi-run listing by workflow_run.id, and read --paginate --slurp pages', () => {
    const byRun = artifactNamesByRun([
      { total_count: 1, artifacts: [{ name: 'results_bmk', workflow_run: { id: 1 } }] },
      { total_count: 1, artifacts: [{ name: 'eval_results_all', workflow_run: { id: 2 } }] },
    ]);
    expect(byRun.get('1')).toEqual(new Set(['results_bmk']));
    expect(byRun.get('2')).toEqual(new Set(['eval_results_all']));
  });

  it('count results_bmk, eval_results_all and bmk_agentic_* as results; run-stats alone is not', () => {
    expect(hasResultArtifacts(new Set(['run-stats']))).toBe(false);
    expect(hasResultArtifacts(new Set(['eval_results_all']))).toBe(true);
  });
});

describe("a run's eligibility (validate_reusable_run)", () => {
  const base = {
    id: 25763404168,
    event: 'pull_request',
    status: 'completed',
    conclusion: 'success',
    path: '.github/workflows/run-sweep.yml',
    head_sha: 'abc123',
  };
  const results = new Set(['results_bmk']);
  const shas = new Set(['abc123']);

  it('accepts a successful run of the same PR', () => {
    expect(runRefusal(run({ ...base, pull_requests: [{ number: 1321 }] }), 1321, shas, results)).toBeUndefined();
  });

  it('accepts a failed run when explicitly allowed (pinned)', () => {
    expect(runRefusal(run({ ...base, conclusion: 'failure' }), 1321, shas, results, { allowFailed: true })).toBeUndefined();
  });

  it('rejects a failed run by default', () => {
    const r = runRefusal(run({ ...base, conclusion: 'failure' }), 1321, shas, results);
    expect(r?.code).toBe('run-conclusion');
    expect(r?.message).toContain('expected success');
  });

  it('accepts a cancelled run when explicitly allowed (a fail-fast sweep ends cancelled)', () => {
    expect(runRefusal(run({ ...base, conclusion: 'cancelled' }), 1321, shas, results, { allowFailed: true })).toBeUndefined();
  });

  it('rejects a cancelled run by default', () => {
    const r = runRefusal(run({ ...base, conclusion: 'cancelled' }), 1321, shas, results);
    expect(r?.message).toContain('expected success');
  });

  it('accepts a run for an older commit still on the PR (pull_requests recomputed to empty)', () => {
    const prShas = new Set(['e36afac48cc6165f4e1f8ea7e1977b01ef29787c', '5c7d7df8ce125e6c725eb37db123269380b7c97d']);
    const r = run({ ...base, head_sha: 'e36afac48cc6165f4e1f8ea7e1977b01ef29787c', pull_requests: [] });
    expect(runRefusal(r, 1321, prShas, results)).toBeUndefined();
  });

  it('rejects a run for a commit no longer on the PR', () => {
    const r = runRefusal(run({ ...base, pull_requests: [] }), 1321, new Set(['def456']), results);
    expect(r?.code).toBe('run-commit-not-in-pr');
    expect(r?.message).toContain("is not in PR #1321's commit list");
  });

  // Frontier's cases: one per remaining refusal code.
  it.each([
    ['run-not-pull-request', { event: 'push' }],
    ['run-not-completed', { status: 'in_progress' }],
    ['run-wrong-workflow', { path: '.github/workflows/e2e-tests.yml' }],
    ['run-no-head-sha', { head_sha: '' }],
    ['run-conclusion', { conclusion: 'timed_out' }],
  ])('refuses with %s', (code, change) => {
    const r = runRefusal(run({ ...base, ...change }), 1321, shas, results, { allowFailed: true });
    expect(r?.code).toBe(code);
    expect(r?.failClosed).toBe(true);
    expect(r?.hint.length).toBeGreaterThan(10);
  });

  it('refuses a run with no result artifact (run-no-result-artifacts)', () => {
    expect(runRefusal(run(base), 1321, shas, new Set(['run-stats']))?.code).toBe('run-no-result-artifacts');
  });
});
