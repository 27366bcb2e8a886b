/**
 * Which earlier sweep run may stand in for the merge run: a completed pull_request run of the
 * sweep workflow, for a commit still on the pull request, with result artifacts that have not
 * expired. Inputs are what the GitHub API returns, already read; nothing here fetches.
 */
import type { ReuseRefusal } from './reasons.js';
import { refusal } from './reasons.js';
import { SWEEP_WORKFLOW } from './rules.js';

/** The fields of a workflow run (GET /repos/R/actions/runs/ID) the decision reads. */
export interface WorkflowRun {
  id: string;
  event: string;
  status: string;
  conclusion: string;
  path: string;
  headSha: string;
  headBranch: string;
  runAttempt: string;
  htmlUrl: string;
  /** owner/name of the repository the run belongs to ('' when the answer does not say). */
  repository: string;
  /** The run's title (a dispatched sweep of an external PR names the PR and its approved commit there). */
  displayTitle?: string;
}

/** Aggregate artifacts that carry results; `bmk_agentic_*` point artifacts count too. */
export const RESULT_ARTIFACTS: readonly string[] = ['results_bmk', 'eval_results_all'];

export function hasResultArtifacts(names: ReadonlySet<string>): boolean {
  return RESULT_ARTIFACTS.some((n) => names.has(n)) || [...names].some((n) => n.startsWith('bmk_agentic_'));
}

/** The workflow file path an Actions run of `workflowId` reports. */
export function workflowPath(workflowId: string): string {
  return workflowId.startsWith('.github/') ? workflowId : `.github/workflows/${workflowId}`;
}

/**
 * The newest successful run (the list is newest first, as GitHub returns it) for a commit of
 * the pull request with result artifacts. Runs the reuse gate turned into no-ops succeed with
 * no artifacts, so they are passed over.
 */
export function latestSuccessfulRun(
  runs: readonly WorkflowRun[],
  prShas: ReadonlySet<string>,
  artifactsOf: (runId: string) => ReadonlySet<string>,
): WorkflowRun | undefined {
  if (prShas.size === 0) return undefined;
  return runs.find((run) => run.conclusion === 'success' && prShas.has(run.headSha) && hasResultArtifacts(artifactsOf(run.id)));
}

/**
 * Why `run` may not be reused for pull request `pr`, or undefined when it may. A pinned run is a
 * maintainer's explicit choice, so it may also have failed or been cancelled (a fail-fast sweep
 * ends cancelled even when its finished jobs uploaded results); ingest keeps only the rows with
 * results.
 */
export function runRefusal(
  run: WorkflowRun,
  pr: number,
  prShas: ReadonlySet<string>,
  artifactNames: ReadonlySet<string>,
  options: { allowFailed?: boolean; workflowId?: string } = {},
): ReuseRefusal | undefined {
  const id = run.id;
  const expectedPath = workflowPath(options.workflowId ?? SWEEP_WORKFLOW);
  if (run.event !== 'pull_request')
    return refusal('run-not-pull-request', `Reusable source run ${id} is not a pull_request run.`);
  if (run.status !== 'completed') return refusal('run-not-completed', `Reusable source run ${id} is not completed.`);
  const allowed = options.allowFailed ? ['success', 'failure', 'cancelled'] : ['success'];
  if (!allowed.includes(run.conclusion)) {
    const expected = options.allowFailed ? 'success, failure, or cancelled' : 'success';
    return refusal(
      'run-conclusion',
      `Reusable source run ${id} has conclusion ${run.conclusion ? `'${run.conclusion}'` : 'None'}; expected ${expected}.`,
    );
  }
  if (run.path !== '' && run.path !== expectedPath)
    return refusal('run-wrong-workflow', `Reusable source run ${id} is from ${run.path}, expected ${expectedPath}.`);
  if (run.headSha === '') return refusal('run-no-head-sha', `Reusable source run ${id} has no head_sha.`);
  if (!prShas.has(run.headSha))
    return refusal(
      'run-commit-not-in-pr',
      `Reusable source run ${id} head ${run.headSha} is not in PR #${pr}'s commit list; pin a run whose commit is still part of the PR.`,
    );
  if (!hasResultArtifacts(artifactNames))
    return refusal('run-no-result-artifacts', `Reusable source run ${id} has no benchmark, eval, or agentic result artifact.`);
  return undefined;
}
