/**
 * Why reuse did not happen: a stable code, the sentence saying what is missing, and the fix.
 * `failClosed` marks the refusals that fail the step: reuse was authorized but cannot be honoured,
 * so the merge run must not silently fall back to (or skip) a sweep. The others mean "no reuse
 * asked for here", and the workflow goes on with its normal sweep.
 */

export interface ReasonInfo {
  failClosed: boolean;
  /** How to fix it, or what to do instead. */
  hint: string;
}

export const REASONS = {
  // Nothing to reuse here: the normal sweep runs.
  'not-synchronize': {
    failClosed: false,
    hint: 'the reuse gate acts only on a pull_request synchronize event (a push to the PR branch)',
  },
  'pr-draft': { failClosed: false, hint: 'mark the pull request ready for review; drafts never skip their sweep' },
  'pr-not-full-sweep': {
    failClosed: false,
    hint: 'only full sweeps are reusable: label the PR with one of full-sweep-enabled, non-canary-full-sweep-enabled, full-sweep-fail-fast, full-sweep-fail-fast-no-canary, and without evals-only or agentx-fast',
  },
  'not-push-to-main': { failClosed: false, hint: 'reuse is decided on the push to main that merges the pull request' },
  'no-pull-request': { failClosed: false, hint: 'the merge commit maps to no pull request; the normal sweep runs' },
  'multiple-pull-requests': {
    failClosed: false,
    hint: 'the merge commit maps to several pull requests, none authorized reuse; the normal sweep runs',
  },
  'not-authorized': {
    failClosed: false,
    hint: 'an OWNER, MEMBER or COLLABORATOR comments `/reuse-sweep-run` (or `/reuse-sweep-run <run id>`) on its own line of a PR comment',
  },
  'not-a-pull-request': { failClosed: false, hint: 'comment `/reuse-sweep-run` on the pull request, not on an issue' },
  'no-command': { failClosed: false, hint: 'write `/reuse-sweep-run` or `/reuse-sweep-run <run id>` on a line of its own' },
  'author-not-allowed': {
    failClosed: false,
    hint: 'ask an OWNER, MEMBER or COLLABORATOR of the repository to post the command; other comments are ignored',
  },
  // Authorized, but reuse cannot be honoured: fail closed.
  'ambiguous-pull-requests': {
    failClosed: true,
    hint: 'merge the pull request on its own (one PR per merge commit), or remove the reuse comment so main runs the normal sweep',
  },
  'incompatible-label': {
    failClosed: true,
    hint: 'remove the evals-only / agentx-fast label and run a full sweep, or delete the `/reuse-sweep-run` comment so main runs the normal sweep',
  },
  'missing-full-sweep-label': {
    failClosed: true,
    hint: 'add one full-sweep label (full-sweep-enabled, non-canary-full-sweep-enabled, full-sweep-fail-fast, full-sweep-fail-fast-no-canary) and let its sweep finish, or delete the `/reuse-sweep-run` comment',
  },
  'not-merged': { failClosed: true, hint: 'reuse applies to the merge of the pull request; merge it (squash) first' },
  'no-pr-commits': {
    failClosed: true,
    hint: 'the recorded commit list (GET /repos/R/pulls/N/commits) is empty; record it again',
  },
  'no-successful-run': {
    failClosed: true,
    hint: 'let a full sweep of the PR finish successfully, or pin a finished run with `/reuse-sweep-run <run id>`',
  },
  'run-not-found': {
    failClosed: true,
    hint: 'record the pinned run (gh api repos/R/actions/runs/ID) beside the others, or pin a run id that exists',
  },
  'run-not-pull-request': {
    failClosed: true,
    hint: 'pin a run of the sweep workflow triggered by the pull request (event pull_request)',
  },
  'run-not-completed': { failClosed: true, hint: 'wait for the run to finish, then merge' },
  'run-conclusion': {
    failClosed: true,
    hint: 'without a run id only a successful run qualifies; pin the run explicitly (`/reuse-sweep-run <run id>`) to reuse a failed or cancelled one',
  },
  'run-wrong-workflow': { failClosed: true, hint: 'pin a run of .github/workflows/run-sweep.yml' },
  'run-no-head-sha': { failClosed: true, hint: 'the recorded run has no head_sha; record it again from the API' },
  'run-commit-not-in-pr': {
    failClosed: true,
    hint: "pin a run whose commit is still part of the PR's commit list (not rebased or force-pushed away)",
  },
  'run-no-result-artifacts': {
    failClosed: true,
    hint: 'the run has no unexpired results_bmk, eval_results_all or bmk_agentic_* artifact (a gated no-op run, or expired); pin another run or re-run the sweep',
  },
} as const satisfies Record<string, ReasonInfo>;

export type ReuseCode = keyof typeof REASONS;

export interface ReuseRefusal {
  code: ReuseCode;
  message: string;
  hint: string;
  failClosed: boolean;
}

export function refusal(code: ReuseCode, message: string): ReuseRefusal {
  const info: ReasonInfo = REASONS[code];
  return { code, message, hint: info.hint, failClosed: info.failClosed };
}
