/**
 * The reuse decision for one GitHub event, from the event and what the GitHub API said (recorded):
 *  - pull_request synchronize: the reuse gate; an authorized PR skips its own sweep;
 *  - push to main: which earlier PR run stands in for the merge run's sweep (fail closed when
 *    authorized but not possible);
 *  - issue_comment: whether a `/reuse-sweep-run` comment will be honoured, and with which run.
 */
import type { GithubEvent } from '../event.js';
import type { OutputValue } from '../output.js';
import type { ReuseRefusal } from './reasons.js';
import { refusal } from './reasons.js';
import type { RecordedComment } from './rules.js';
import { ALLOWED_ASSOCIATIONS, REUSE_COMMAND, SWEEP_WORKFLOW, findAuthorization, labelVerdict, reuseAsks } from './rules.js';
import type { WorkflowRun } from './source-run.js';
import type { WorkflowJob } from '../success-rate.js';
import { latestSuccessfulRun, runRefusal } from './source-run.js';

export interface RecordedPullRequest {
  number: number;
  labels: string[];
  mergedAt: string;
  headRef: string;
  headSha: string;
}

/**
 * What the GitHub API answered, looked up by what the decision needs. A lookup of something not
 * recorded throws (a UserError naming the file to record), so the decision never guesses.
 */
export interface GithubRecord {
  /** GET /repos/R/commits/SHA/pulls: the pull requests of a commit. */
  pullsOfCommit(sha: string): number[];
  /** GET /repos/R/pulls/N. */
  pullRequest(pr: number): RecordedPullRequest;
  /** GET /repos/R/issues/N/comments. */
  comments(pr: number): RecordedComment[];
  /** GET /repos/R/pulls/N/commits: the commit shas. */
  commits(pr: number): string[];
  /** GET /repos/R/actions/workflows/WF/runs?event=pull_request&branch=B&status=completed, newest first. */
  workflowRuns(branch: string): WorkflowRun[];
  /** GET /repos/R/actions/runs/ID, or undefined when the run does not exist. */
  run(id: string): WorkflowRun | undefined;
  /** GET /repos/R/actions/runs/ID/artifacts: the names of the unexpired ones. */
  artifactNames(runId: string): Set<string>;
  /** GET /repos/R/actions/runs/ID/jobs: the jobs of its latest attempt, with their steps. */
  jobs(runId: string): WorkflowJob[];
}

export interface ReuseSource {
  runId: string;
  runAttempt: string;
  runUrl: string;
  headSha: string;
  prNumber: number;
  /** Whether a maintainer pinned this run (failed or cancelled runs are then allowed). */
  pinned: boolean;
}

export interface ReuseDecision {
  event: string;
  /** The merge run reuses `source` instead of sweeping (push), or the comment will be honoured (issue_comment). */
  enabled: boolean;
  /** The pull request's own run skips its sweep (pull_request synchronize with an authorization). */
  skipPrSweep: boolean;
  /** The sentence the reference writes as reuse-reason. */
  reason: string;
  prNumber?: number;
  source?: ReuseSource;
  /** Set when reuse did not happen: why, and whether that fails the step. */
  refusal?: ReuseRefusal;
}

export interface DecideOptions {
  workflowId?: string;
  allowedAssociations?: readonly string[];
  command?: string;
}

const refused = (event: string, r: ReuseRefusal, prNumber?: number): ReuseDecision => ({
  event,
  enabled: false,
  skipPrSweep: false,
  reason: r.message,
  refusal: r,
  ...(prNumber !== undefined ? { prNumber } : {}),
});

export function decideReuse(event: GithubEvent, github: GithubRecord, options: DecideOptions = {}): ReuseDecision {
  if (event.name === 'pull_request') return gate(event, github, options);
  if (event.name === 'issue_comment') return commentCheck(event, github, options);
  return mergeRun(event, github, options);
}

/** The reuse gate of a pull request's own run (run-sweep.yml job reuse-sweep-gate). */
function gate(event: GithubEvent, github: GithubRecord, options: DecideOptions): ReuseDecision {
  const command = options.command ?? REUSE_COMMAND;
  const pr = event.pullRequest!;
  const action = event.action ?? '';
  if (action !== 'synchronize')
    return refused(event.name, refusal('not-synchronize', `pull_request action ${action || 'unknown'} is not synchronize`));
  // The gate job's own condition: ready (not draft) full sweeps only.
  if (pr.draft) return refused(event.name, refusal('pr-draft', `PR #${pr.number} is a draft`), pr.number);
  const labels = labelVerdict(pr.labels);
  if (labels.incompatible.length > 0 || !labels.fullSweep) {
    const why = labels.incompatible.length > 0 ? `has ${labels.incompatible.join(', ')}` : 'has no full-sweep label';
    return refused(event.name, refusal('pr-not-full-sweep', `PR #${pr.number} ${why}; its sweep is not reusable`), pr.number);
  }
  const auth = findAuthorization(github.comments(pr.number), options.allowedAssociations ?? ALLOWED_ASSOCIATIONS, command);
  if (!auth.authorized)
    return refused(event.name, refusal('not-authorized', `PR #${pr.number} has no ${command} authorization`), pr.number);
  return {
    event: event.name,
    enabled: false,
    skipPrSweep: true,
    reason: `PR #${pr.number} has ${command} authorization`,
    prNumber: pr.number,
  };
}

/** The merge run on main (run-sweep.yml job setup). */
function mergeRun(event: GithubEvent, github: GithubRecord, options: DecideOptions): ReuseDecision {
  const command = options.command ?? REUSE_COMMAND;
  const allowed = options.allowedAssociations ?? ALLOWED_ASSOCIATIONS;
  if (event.name !== 'push' || event.ref !== 'refs/heads/main')
    return refused(event.name, refusal('not-push-to-main', 'not a push to main'));
  const sha = event.after ?? '';
  const pulls = github.pullsOfCommit(sha);
  if (pulls.length === 0) return refused(event.name, refusal('no-pull-request', 'no associated pull request'));
  if (pulls.length > 1) {
    const authorized = pulls.filter((n) => findAuthorization(github.comments(n), allowed, command).authorized);
    if (authorized.length > 0)
      return refused(
        event.name,
        refusal(
          'ambiguous-pull-requests',
          `Commit ${sha} maps to multiple PRs (${pulls.join(', ')}); found reuse authorization on ${authorized.map((n) => `#${n}`).join(', ')}; refusing to reuse artifacts.`,
        ),
      );
    return refused(event.name, refusal('multiple-pull-requests', 'multiple associated pull requests'));
  }
  const number = pulls[0]!;
  const auth = findAuthorization(github.comments(number), allowed, command);
  if (!auth.authorized)
    return refused(event.name, refusal('not-authorized', `PR #${number} has no ${command} authorization`), number);
  const pr = github.pullRequest(number);
  const labelRefusal = eligibilityRefusal(pr, command);
  if (labelRefusal) return refused(event.name, labelRefusal, number);
  if (!pr.mergedAt) return refused(event.name, refusal('not-merged', `PR #${number} is not marked as merged.`), number);
  return withSource(event.name, pr, auth.pinnedRunId, github, options);
}

/** A `/reuse-sweep-run` comment, checked when it is posted: will the merge honour it? */
function commentCheck(event: GithubEvent, github: GithubRecord, options: DecideOptions): ReuseDecision {
  const command = options.command ?? REUSE_COMMAND;
  const issue = event.issue!;
  const comment = event.comment!;
  if (!issue.isPullRequest)
    return refused(event.name, refusal('not-a-pull-request', `#${issue.number} is an issue, not a pull request`));
  const asks = reuseAsks(comment.body, command);
  if (asks.length === 0) return refused(event.name, refusal('no-command', `the comment has no ${command} line`), issue.number);
  if (!(options.allowedAssociations ?? ALLOWED_ASSOCIATIONS).includes(comment.association))
    return refused(
      event.name,
      refusal(
        'author-not-allowed',
        `${comment.author || 'the author'} is ${comment.association || 'NONE'} of the repository; only ${(options.allowedAssociations ?? ALLOWED_ASSOCIATIONS).join(', ')} may authorize reuse`,
      ),
      issue.number,
    );
  const pr = github.pullRequest(issue.number);
  const labelRefusal = eligibilityRefusal(pr, command);
  if (labelRefusal) return refused(event.name, labelRefusal, pr.number);
  return withSource(event.name, pr, asks[asks.length - 1]!, github, options);
}

function eligibilityRefusal(pr: RecordedPullRequest, command: string): ReuseRefusal | undefined {
  const labels = labelVerdict(pr.labels);
  if (labels.incompatible.length > 0)
    return refusal(
      'incompatible-label',
      `PR #${pr.number} has ${command} authorization but uses reuse-incompatible label(s): ${labels.incompatible.join(', ')}.`,
    );
  if (!labels.fullSweep)
    return refusal(
      'missing-full-sweep-label',
      `PR #${pr.number} has ${command} authorization but is missing any of: ${[...FULL_SWEEP_SORTED].join(', ')}.`,
    );
  return undefined;
}

const FULL_SWEEP_SORTED = [
  'full-sweep-enabled',
  'full-sweep-fail-fast',
  'full-sweep-fail-fast-no-canary',
  'non-canary-full-sweep-enabled',
];

/** Pick the source run (pinned, or the latest qualifying one) and check it. */
function withSource(
  event: string,
  pr: RecordedPullRequest,
  pinned: string | null,
  github: GithubRecord,
  options: DecideOptions,
): ReuseDecision {
  const command = options.command ?? REUSE_COMMAND;
  const workflowId = options.workflowId ?? SWEEP_WORKFLOW;
  let run: WorkflowRun | undefined;
  let reason: string;
  if (pinned !== null) {
    run = github.run(pinned);
    if (!run)
      return refused(
        event,
        refusal('run-not-found', `PR #${pr.number} pins run ${pinned}, which is not recorded or does not exist.`),
        pr.number,
      );
    reason = `PR #${pr.number} approved reusable full sweep from pinned run ${pinned}`;
  } else {
    const shas = new Set(github.commits(pr.number));
    if (shas.size === 0) return refused(event, refusal('no-pr-commits', `PR #${pr.number} has no commits.`), pr.number);
    run = pr.headRef ? latestSuccessfulRun(github.workflowRuns(pr.headRef), shas, (id) => github.artifactNames(id)) : undefined;
    if (!run)
      return refused(
        event,
        refusal(
          'no-successful-run',
          `PR #${pr.number} has ${command} authorization but no successful ${workflowId} pull_request run was found for any of its ${shas.size} commit(s); pin a specific run with \`${command} <run_id>\`.`,
        ),
        pr.number,
      );
    reason = `PR #${pr.number} approved reusable full sweep from latest run on ${run.headSha}`;
  }
  const bad = runRefusal(run, pr.number, new Set(github.commits(pr.number)), github.artifactNames(run.id), {
    allowFailed: pinned !== null,
    workflowId,
  });
  if (bad) return refused(event, bad, pr.number);
  return {
    event,
    enabled: true,
    skipPrSweep: false,
    reason,
    prNumber: pr.number,
    source: {
      runId: run.id,
      runAttempt: run.runAttempt || '1',
      runUrl: run.htmlUrl,
      headSha: run.headSha,
      prNumber: pr.number,
      pinned: pinned !== null,
    },
  };
}

/** The step outputs, under the reference's keys (`true`/`false`, empty when not known). */
export function reuseOutputs(d: ReuseDecision): Record<string, OutputValue> {
  return {
    'reuse-enabled': d.enabled ? 'true' : 'false',
    'skip-pr-sweep': d.skipPrSweep ? 'true' : 'false',
    'reuse-source-run-id': d.source?.runId ?? '',
    'reuse-source-run-attempt': d.source?.runAttempt ?? '',
    'reuse-source-run-url': d.source?.runUrl ?? '',
    'reuse-source-pr-number': d.prNumber !== undefined ? String(d.prNumber) : '',
    'reuse-source-head-sha': d.source?.headSha ?? '',
    'reuse-reason': d.reason,
  };
}
