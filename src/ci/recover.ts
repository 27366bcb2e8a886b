/**
 * Recovering an ingest that failed after the sweep itself went well (InferenceX's
 * recover_failed_ingest.py and recover-reused-ingest.yml), decided from what the GitHub API
 * answered (recorded) and the downloaded artifacts: nothing here fetches or writes.
 *  - a failed ingest: the run's own artifacts, ingested as its results job would have (official
 *    iff it was a push to main, with its changelog metadata);
 *  - a reused run: a merge run on main that published a pull-request run's results; the results
 *    are the source run's artifacts, the changelog metadata the merge run's.
 * Every check that fails refuses with a code, what is wrong and the fix; nothing is re-measured.
 * A recovery that finds the run already stored as it would write it writes nothing at all.
 */
import { artifactRoot, ingestBatch, readArtifacts } from '../store/index.js';
import type { ChangelogInput, IngestOptions, IngestSummary, Store } from '../store/index.js';
import { UserError } from '../util/user-error.js';
import type { ArtifactSet } from './reuse/artifact-set.js';
import { readArtifactSet } from './reuse/artifact-set.js';
import { applyDedupePlan, dedupeRerunEvals } from './reuse/index.js';
import { recordedGithub } from './reuse/github-record.js';
import type { GithubRecord } from './reuse/decide.js';
import { evalKey } from './reuse/identity.js';
import { REASONS } from './reuse/reasons.js';
import { hasResultArtifacts, runRefusal, workflowPath } from './reuse/source-run.js';
import type { WorkflowRun } from './reuse/source-run.js';
import type { ArtifactProblem } from './reuse/validate.js';
import {
  agenticProblems,
  duplicateProblems,
  evalProblems,
  fixedProblems,
  fixedRows,
  rowsOf,
  runStatsProblems,
} from './reuse/validate.js';
import type { WorkflowJob } from './success-rate.js';
import { SWEEP_NAMES } from './workflows/sweep.js';

export const RECOVERY_REFUSALS = {
  'run-not-found': 'record the run: gh api repos/OWNER/REPO/actions/runs/ID > runs-ID.json (the id of the run, not of a job)',
  'wrong-repository':
    'recover a run of this repository: pass --repo OWNER/REPO of the sweep, and record the run from that repository',
  'wrong-workflow': 'name a run of the sweep workflow (--workflow-id says which file that is)',
  'not-completed': 'wait for the run to finish, then recover it',
  'sweep-not-green':
    're-run its failed jobs (gh run rerun ID --failed): recovery re-ingests results a sweep finished, it does not stand in for a sweep',
  'results-not-kept':
    'the results job failed before it kept the results (or never ran): re-run it (gh run rerun ID --failed), which collects and ingests again',
  'run-reused':
    'the run published another run’s results: recover it as a reused run, --run-id this run and --source-run the pull-request run its plan named',
  'run-not-reused': 'the run measured its own results: recover it without --source-run',
  'merge-not-main': 'a reused run is recovered through its merge run: the push to the main branch that published it (--run-id)',
  'no-pull-request': 'the merge commit must map to exactly one merged pull request (record commits/SHA/pulls and pulls/N again)',
  'source-run': 'name the pull-request run the merge run published (--source-run)',
  'artifacts-expired':
    'its result artifacts expired or were never uploaded: the results are gone; re-run the sweep (its results job ingests them)',
  'artifacts-not-downloaded': 'download every result artifact of the run first: gh run download ID -D DIR',
  'artifacts-invalid':
    'the artifacts contradict themselves: see each problem’s hint; download them again or re-run the job named',
  'changelog-missing':
    'an official run is published with its changelog metadata: download the changelog-metadata artifact (a reused run: the merge run’s frontier-sweep artifact, --changelog FILE)',
  'changelog-mismatch':
    'the changelog metadata belongs to another commit: download the one of the run being recovered (a reused run: the merge run’s frontier-sweep artifact)',
} as const;

export type RecoveryCode = keyof typeof RECOVERY_REFUSALS;

export class RecoveryRefused extends UserError {
  constructor(
    readonly code: RecoveryCode,
    message: string,
    hint: string = RECOVERY_REFUSALS[code],
  ) {
    super(`cannot recover: ${message} [${code}]`, { hint });
    this.name = 'RecoveryRefused';
  }
}

export interface RecoveryInput {
  /** The run whose ingest failed, or (with `sourceRunId`) the merge run that published a reused run. */
  runId: string;
  sourceRunId?: string | undefined;
  /** owner/name: the repository the runs must belong to. */
  repository: string;
  /** The sweep workflow's file name. */
  workflowId: string;
  mainBranch: string;
  github: GithubRecord;
  /** The downloaded artifacts of the run whose results are ingested (the source run, when reused). */
  artifacts: ArtifactSet;
  /** Reused: the merge run's changelog metadata file (its frontier-sweep artifact's changelog_metadata.json). */
  changelogFile?: string | undefined;
}

export interface RecoveryPlan {
  kind: 'failed-ingest' | 'reused-run';
  run: WorkflowRun;
  source?: WorkflowRun;
  prNumber?: number;
  official: boolean;
  /** What ingest is given: exactly what the sweep's results job passes. */
  ingest: Pick<IngestOptions, 'runId' | 'attempt' | 'url' | 'commit' | 'official' | 'sourceRun' | 'changelogFile'>;
  /** What was checked, one line each. */
  checked: string[];
}

/** Result artifacts a run's results job keeps (and the reused run's results a merge run downloads). */
const isResultArtifact = (name: string): boolean =>
  ['results_bmk', 'eval_results_all', 'run-stats', 'changelog-metadata'].includes(name) ||
  name.startsWith('bmk_agentic_') ||
  name.startsWith('agentic_');

function recordedRun(github: GithubRecord, id: string, what: string): WorkflowRun {
  const run = github.run(id);
  if (!run) throw new RecoveryRefused('run-not-found', `${what} ${id} is not recorded`);
  if (run.id !== id) throw new RecoveryRefused('run-not-found', `the answer recorded for ${what} ${id} is run ${run.id}`);
  return run;
}

/** The run's repository: its own field, else its page's address. */
const repositoryOf = (run: WorkflowRun): string =>
  run.repository || (/^https:\/\/github\.com\/([^/]+\/[^/]+)\/actions\/runs\//.exec(run.htmlUrl)?.[1] ?? '');

function checkIdentity(run: WorkflowRun, what: string, input: RecoveryInput, checked: string[]): void {
  const repo = repositoryOf(run);
  if (repo !== input.repository)
    throw new RecoveryRefused(
      'wrong-repository',
      `${what} ${run.id} belongs to ${repo || 'an unnamed repository'}, not ${input.repository}`,
    );
  const path = workflowPath(input.workflowId);
  if (run.path !== path)
    throw new RecoveryRefused('wrong-workflow', `${what} ${run.id} is a run of ${run.path || '?'}, not ${path}`);
  if (run.status !== 'completed')
    throw new RecoveryRefused('not-completed', `${what} ${run.id} is ${run.status || 'in an unknown state'}, not completed`);
  checked.push(`${what} ${run.id}: a completed ${run.event} run of ${path} in ${repo} (attempt ${run.runAttempt || '1'})`);
}

/**
 * The sweep went well and only its ingest (or what follows it) failed: every job but the results
 * job succeeded or was skipped, and the results job got past every step before Ingest.
 * Returns whether the results job downloaded a reused run's results.
 */
function checkGreen(run: WorkflowRun, jobs: WorkflowJob[], checked: string[]): { reused: boolean } {
  if (run.conclusion !== 'success' && run.conclusion !== 'failure')
    throw new RecoveryRefused('sweep-not-green', `run ${run.id} concluded ${run.conclusion || 'nothing'}`);
  const others = jobs.filter((j) => j.name !== SWEEP_NAMES.resultsJob);
  const bad = others.filter((j) => j.conclusion !== 'success' && j.conclusion !== 'skipped');
  if (bad.length > 0)
    throw new RecoveryRefused(
      'sweep-not-green',
      `run ${run.id}: ${bad
        .slice(0, 5)
        .map((j) => `${j.name} ${j.conclusion ?? 'unfinished'}`)
        .join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`,
    );
  const results = jobs.filter((j) => j.name === SWEEP_NAMES.resultsJob);
  if (results.length !== 1 || results[0]!.conclusion === 'skipped' || results[0]!.conclusion === null)
    throw new RecoveryRefused(
      'results-not-kept',
      `run ${run.id} has ${results.length === 1 ? `a ${SWEEP_NAMES.resultsJob} job that ${results[0]!.conclusion ?? 'did not finish'}` : `${results.length} ${SWEEP_NAMES.resultsJob} jobs`}`,
    );
  const steps = results[0]!.steps ?? [];
  const ingest = steps.findIndex((s) => s.name === SWEEP_NAMES.ingestStep);
  if (ingest < 0)
    throw new RecoveryRefused(
      'results-not-kept',
      `run ${run.id}: the ${SWEEP_NAMES.resultsJob} job lists no ${SWEEP_NAMES.ingestStep} step (record the jobs with their steps: gh api repos/R/actions/runs/ID/jobs)`,
    );
  const failedBefore = steps.slice(0, ingest).filter((s) => s.conclusion !== 'success' && s.conclusion !== 'skipped');
  if (failedBefore.length > 0)
    throw new RecoveryRefused(
      'results-not-kept',
      `run ${run.id}: step ${failedBefore.map((s) => `“${s.name}” ${s.conclusion ?? 'unfinished'}`).join(', ')} of the ${SWEEP_NAMES.resultsJob} job, before ${SWEEP_NAMES.ingestStep}`,
    );
  checked.push(
    `run ${run.id}: ${others.length} job(s) succeeded or were skipped; the ${SWEEP_NAMES.resultsJob} job kept its results, then ${SWEEP_NAMES.ingestStep} ${steps[ingest]!.conclusion ?? 'did not finish'}`,
  );
  const reusedStep = steps.find((s) => s.name === SWEEP_NAMES.reusedResultsStep);
  return { reused: reusedStep !== undefined && reusedStep.conclusion === 'success' };
}

/** The artifact-owning run's result artifacts: unexpired, and every one of them downloaded. */
function checkArtifacts(runId: string, input: RecoveryInput, checked: string[], skip: (name: string) => boolean): void {
  const names = input.github.artifactNames(runId);
  if (!hasResultArtifacts(names))
    throw new RecoveryRefused(
      'artifacts-expired',
      `run ${runId} has no unexpired results_bmk, eval_results_all or bmk_agentic_* artifact${names.size > 0 ? ` (it has ${[...names].sort().join(', ')})` : ''}`,
    );
  const set = input.artifacts;
  const present = new Set([
    ...(set.resultsBmk !== undefined ? ['results_bmk'] : []),
    ...(set.evalAggregate !== undefined ? ['eval_results_all'] : []),
    ...(set.runStats.length > 0 ? ['run-stats'] : []),
    ...set.agenticPoints.map((f) => f.path.split('/')[0]!),
    ...set.rawAgenticDirs,
  ]);
  const wanted = [...names].filter((n) => isResultArtifact(n) && !skip(n)).sort();
  const missing = wanted.filter((n) => n !== 'changelog-metadata' && !present.has(n));
  if (missing.length > 0)
    throw new RecoveryRefused(
      'artifacts-not-downloaded',
      `run ${runId}'s artifact(s) ${missing.join(', ')} are not in the artifacts directory`,
      `download them: gh run download ${runId} -D DIR ${missing.map((n) => `-n ${n}`).join(' ')}`,
    );
  const problems = artifactProblems(set);
  if (problems.length > 0)
    throw new RecoveryRefused(
      'artifacts-invalid',
      `run ${runId}'s artifacts: ${problems.map((p) => `[${p.code}] ${p.message}${p.details.length ? ` (${p.details.slice(0, 3).join('; ')})` : ''}`).join('; ')}`,
      problems.map((p) => p.hint).join('; '),
    );
  checked.push(`run ${runId}'s result artifacts: ${wanted.join(', ')}, all downloaded and consistent`);
}

/**
 * The reuse validation's checks (src/ci/reuse/validate.ts) over what a results job keeps: with no
 * raw eval artifact downloaded, the eval aggregate is checked for duplicates only.
 */
export function artifactProblems(set: ArtifactSet): ArtifactProblem[] {
  return [
    ...fixedProblems(set),
    ...agenticProblems(set),
    ...(set.rawEvals.length > 0
      ? evalProblems(set)
      : duplicateProblems('eval aggregate', rowsOf(set.evalAggregate ?? []).map(evalKey))),
    ...runStatsProblems(set, fixedRows(set).length > 0),
  ];
}

/** Decide the recovery: every check, then what ingest is given. Throws RecoveryRefused. */
export function planRecovery(input: RecoveryInput): RecoveryPlan {
  const checked: string[] = [];
  const { github } = input;
  const run = recordedRun(github, input.runId, input.sourceRunId ? 'merge run' : 'run');
  checkIdentity(run, input.sourceRunId ? 'merge run' : 'run', input, checked);
  const { reused } = checkGreen(run, github.jobs(run.id), checked);
  const attempt = Number.parseInt(run.runAttempt, 10) || 1;
  const pushToMain = run.event === 'push' && run.headBranch === input.mainBranch;

  if (input.sourceRunId === undefined) {
    if (reused) throw new RecoveryRefused('run-reused', `run ${run.id}'s results job downloaded a reused run’s results`);
    checkArtifacts(run.id, input, checked, () => false);
    return {
      kind: 'failed-ingest',
      run,
      official: pushToMain,
      ingest: { runId: run.id, attempt, url: run.htmlUrl, commit: run.headSha, official: pushToMain },
      checked,
    };
  }

  if (!pushToMain)
    throw new RecoveryRefused(
      'merge-not-main',
      `merge run ${run.id} is a ${run.event} run on ${run.headBranch || '?'}, not a push to ${input.mainBranch}`,
    );
  if (!reused) throw new RecoveryRefused('run-not-reused', `merge run ${run.id} swept itself; it reused no run`);
  const pulls = github.pullsOfCommit(run.headSha);
  if (pulls.length !== 1)
    throw new RecoveryRefused(
      'no-pull-request',
      `merge commit ${run.headSha} maps to ${pulls.length} pull requests${pulls.length ? ` (${pulls.map((n) => `#${n}`).join(', ')})` : ''}`,
    );
  const pr = github.pullRequest(pulls[0]!);
  if (!pr.mergedAt) throw new RecoveryRefused('no-pull-request', `pull request #${pr.number} is not merged`);
  const source = recordedRun(github, input.sourceRunId, 'source run');
  checkIdentity(source, 'source run', input, checked);
  // Named explicitly, as a pinned run is: a failed or cancelled run's finished points may be published.
  const refusal = runRefusal(source, pr.number, new Set(github.commits(pr.number)), github.artifactNames(source.id), {
    allowFailed: true,
    workflowId: input.workflowId,
  });
  if (refusal) throw new RecoveryRefused('source-run', `${refusal.message} [${refusal.code}]`, REASONS[refusal.code].hint);
  checked.push(
    `source run ${source.id}: ${source.conclusion}, for commit ${source.headSha} of pull request #${pr.number}, merged by ${run.headSha}`,
  );
  // The source's own changelog metadata is not published: the merge run's is.
  checkArtifacts(source.id, input, checked, (n) => n === 'changelog-metadata');
  if (input.changelogFile === undefined)
    throw new RecoveryRefused('changelog-missing', `merge run ${run.id}: no --changelog FILE (its changelog metadata) was given`);
  return {
    kind: 'reused-run',
    run,
    source,
    prNumber: pr.number,
    official: true,
    ingest: {
      runId: run.id,
      sourceRun: source.id,
      attempt,
      url: run.htmlUrl,
      commit: run.headSha,
      official: true,
      changelogFile: input.changelogFile,
    },
    checked,
  };
}

/**
 * The changelog metadata read with the results: an official run publishes some, and all of it is
 * the recovered commit's (its head_ref is the commit the merge or pull-request run measured).
 */
export function checkChangelog(plan: RecoveryPlan, changelog: readonly ChangelogInput[]): void {
  const commit = plan.run.headSha;
  const what = plan.kind === 'reused-run' ? `merge run ${plan.run.id}` : `run ${plan.run.id}`;
  if (plan.official && changelog.length === 0)
    throw new RecoveryRefused('changelog-missing', `${what} is official, and its changelog metadata has no entry`);
  const other = [...new Set(changelog.map((c) => c.head_ref).filter((ref) => ref !== commit))];
  if (other.length > 0)
    throw new RecoveryRefused(
      'changelog-mismatch',
      `the changelog metadata is for ${other.map((r) => r || '(no head_ref)').join(', ')}; ${what} measured ${commit}`,
    );
  plan.checked.push(
    changelog.length > 0
      ? `changelog metadata: ${changelog.length} entr${changelog.length === 1 ? 'y' : 'ies'} for ${commit}`
      : 'changelog metadata: none (an unofficial run)',
  );
}

export interface RecoverOptions extends Omit<RecoveryInput, 'github' | 'artifacts'> {
  /** The downloaded artifacts (of the source run, when reused). */
  dir: string;
  /** The recorded gh api answers (recordedGithub's --github DIR). */
  githubDir: string;
  dryRun?: boolean;
  thresholdOf?: IngestOptions['thresholdOf'];
}

export interface Recovery {
  plan: RecoveryPlan;
  summary: IngestSummary;
  /** Re-run evals collapsed to their latest result, as `ci reuse validate` does (in memory only, dry). */
  collapsed: string[];
}

/** Check the run, then ingest it as its sweep would have; nothing is written when it is already stored so. */
export async function recoverIngest(store: Store, o: RecoverOptions): Promise<Recovery> {
  const root = artifactRoot(o.dir);
  const { plan: dedupe, after } = dedupeRerunEvals(readArtifactSet(root));
  const plan = planRecovery({ ...o, github: recordedGithub({ dir: o.githubDir }), artifacts: after });
  if (!o.dryRun) applyDedupePlan(root, dedupe);
  const batch = readArtifacts(root, { ...plan.ingest, thresholdOf: o.thresholdOf });
  checkChangelog(plan, batch.changelog);
  const summary = await ingestBatch(store, batch, { dryRun: o.dryRun === true, onlyIfChanged: true });
  return { plan, summary, collapsed: dedupe.messages };
}
