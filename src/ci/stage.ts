/**
 * `/stage-results [RUN_ID]` on a pull request (issue 45; InferenceX's stage-results.yml): who may
 * stage which of the pull request's sweep runs, decided from the comment event and the GitHub
 * API's recorded answers, with a reason for every refusal; and the comment that answers it.
 * Staging itself is an ingest with `--stage PR` (src/store): the run is kept apart from the record.
 */
import type { IngestSummary } from '../store/index.js';
import type { GithubEvent } from './event.js';
import { externalSweepOf } from './external.js';
import type { GithubRecord } from './reuse/decide.js';
import { hasResultArtifacts, workflowPath } from './reuse/source-run.js';
import type { WorkflowRun } from './reuse/source-run.js';

export const STAGE_COMMAND = '/stage-results';
/** The repository roles that may stage (GitHub's role_name; `permission` says write for maintain). */
export const STAGE_ROLES: readonly string[] = ['admin', 'maintain', 'write'];
/** The first line of every answer, so that a reader (or a tool) can find them. */
export const STAGE_MARKER = '<!-- frontier-stage-results -->';

/** Why a comment did not stage anything: a stable code, the sentence, and what to do instead. */
export const STAGE_REFUSALS = {
  'not-a-comment': 'staging answers an issue_comment event; run this step from the stage-results workflow',
  'not-the-command': 'the comment is not a /stage-results command; nothing to do',
  'not-a-pull-request': 'comment /stage-results on a pull request, not an issue',
  usage: 'write `/stage-results` (the latest sweep of the head commit) or `/stage-results RUN_ID`, alone in the comment',
  'not-authorized': 'ask a maintainer with write access to the repository to comment /stage-results',
  'run-not-found': 'name a run of the sweep workflow (its id is in the run’s URL: …/actions/runs/RUN_ID)',
  'run-wrong-workflow': 'name a run of the sweep workflow; other workflows’ runs hold no sweep results',
  'run-not-pull-request':
    'name a pull_request run of this pull request’s sweep, or the dispatched sweep a maintainer’s label started for an external PR (titled `External PR #N @ sha`)',
  'run-not-in-pr': 'name a run of one of this pull request’s commits',
  'no-run-for-head':
    'sweep the head commit first (a sweep label runs it), or name a run: `/stage-results RUN_ID` (an external PR’s sweep is a dispatched run: name it)',
  'run-not-completed': 'wait until the run has finished, then comment again',
  'run-not-successful': 're-run the failed jobs or push a fix, then comment again once a sweep succeeds',
  'run-no-results': 'name a run that swept (one whose sweep the reuse gate skipped uploads no results), or sweep again',
} as const;

export type StageRefusalCode = keyof typeof STAGE_REFUSALS;

export interface StageRefusal {
  code: StageRefusalCode;
  reason: string;
  hint: string;
}

/** The lookups the decision makes: the recorded answers of `ci reuse`, and the commenter's permission. */
export interface StageGithub extends Pick<GithubRecord, 'pullRequest' | 'commits' | 'workflowRuns' | 'run' | 'artifactNames'> {
  /** GET /repos/R/collaborators/USER/permission: the role_name (else permission) GitHub answers. */
  permission(user: string): string;
}

export interface StagePlan {
  stage: boolean;
  /** Whether to answer on the pull request: not for a comment that is not the command. */
  answer: boolean;
  pr?: number;
  /** Who asked (the commenter's login). */
  by?: string;
  /** The run to stage, and whether the comment named it. */
  run?: WorkflowRun & { pinned: boolean };
  refusal?: StageRefusal;
}

const refuse = (code: StageRefusalCode, reason: string, context: Partial<StagePlan> = {}): StagePlan => ({
  stage: false,
  answer: code !== 'not-a-comment' && code !== 'not-the-command' && code !== 'not-a-pull-request',
  ...context,
  refusal: { code, reason, hint: STAGE_REFUSALS[code] },
});

/** The run id a comment names, null when it names none, undefined when it is not the command's syntax. */
export function parseStageCommand(body: string): string | null | undefined {
  const m = /^\/stage-results(?:[ \t]+(\d+))?$/.exec(body.trim());
  return m ? (m[1] ?? null) : undefined;
}

/**
 * The commit of pull request `pr` that `run` swept: a pull_request run's head, or the approved
 * commit a dispatched sweep of an external PR names in its title (its own head is the default
 * branch's); '' when it is neither.
 */
function sweptCommit(run: WorkflowRun, pr: number, prShas: ReadonlySet<string>): string {
  if (run.event === 'pull_request') return run.headSha;
  const external = run.event === 'workflow_dispatch' ? externalSweepOf(run.displayTitle ?? '') : undefined;
  if (!external || external.pr !== pr) return '';
  return [...prShas].find((sha) => sha.startsWith(external.sha12)) ?? '';
}

/** Why `run` cannot be staged for pull request `pr`, or undefined when it can. */
function runRefusal(
  run: WorkflowRun,
  pr: number,
  prShas: ReadonlySet<string>,
  github: StageGithub,
  sweepWorkflow: string,
): [StageRefusalCode, string] | undefined {
  const expected = workflowPath(sweepWorkflow);
  if (run.path !== '' && run.path !== expected)
    return ['run-wrong-workflow', `run ${run.id} is from ${run.path}, not ${expected}`];
  const external = run.event === 'workflow_dispatch' ? externalSweepOf(run.displayTitle ?? '') : undefined;
  if (run.event !== 'pull_request' && !external)
    return ['run-not-pull-request', `run ${run.id} is a ${run.event || 'unknown'} run, not a pull_request run`];
  if (external && external.pr !== pr) return ['run-not-in-pr', `run ${run.id} swept external PR #${external.pr}, not PR #${pr}`];
  const swept = sweptCommit(run, pr, prShas);
  if (!prShas.has(swept))
    return [
      'run-not-in-pr',
      `run ${run.id} swept ${(external?.sha12 ?? run.headSha.slice(0, 12)) || 'no commit'}, which is not a commit of PR #${pr}`,
    ];
  if (run.status !== 'completed') return ['run-not-completed', `run ${run.id} is ${run.status || 'not completed'}`];
  if (run.conclusion !== 'success')
    return ['run-not-successful', `run ${run.id} concluded ${run.conclusion || 'without a conclusion'}, not success`];
  if (!hasResultArtifacts(github.artifactNames(run.id)))
    return ['run-no-results', `run ${run.id} has no unexpired result artifact (results_bmk, eval_results_all, bmk_agentic_*)`];
  return undefined;
}

/** Decide what a comment stages. Lookups happen only as far as the decision needs them. */
export function decideStage(event: GithubEvent, github: StageGithub, o: { sweepWorkflow: string }): StagePlan {
  if (event.name !== 'issue_comment' || !event.comment)
    return refuse('not-a-comment', `the event is ${event.name}, not a comment on a pull request`);
  const body = event.comment.body.trim();
  if (!body.startsWith(STAGE_COMMAND)) return refuse('not-the-command', 'the comment does not start with /stage-results');
  const pr = event.issue?.number ?? 0;
  if (!event.issue?.isPullRequest) return refuse('not-a-pull-request', `#${pr} is an issue, not a pull request`);
  const by = event.comment.author;
  const context = { pr, by };
  const named = parseStageCommand(body);
  if (named === undefined)
    return refuse('usage', `\`${body.split('\n')[0]!.slice(0, 80)}\` is not a /stage-results command`, context);
  const role = github.permission(by) || 'none';
  if (!STAGE_ROLES.includes(role))
    return refuse(
      'not-authorized',
      `@${by} has ${role} access to this repository; staging needs write, maintain or admin`,
      context,
    );

  const pull = github.pullRequest(pr);
  const shas = new Set(github.commits(pr));
  if (named !== null) {
    const run = github.run(named);
    if (!run) return refuse('run-not-found', `run ${named} is not a recorded run of this repository`, context);
    const why = runRefusal(run, pr, shas, github, o.sweepWorkflow);
    if (why) return refuse(why[0], why[1], context);
    // Staged under the PR's commit it swept (a dispatched external sweep's own head is the default branch's).
    const headSha = sweptCommit(run, pr, shas);
    const headBranch = run.event === 'pull_request' ? run.headBranch : pull.headRef;
    return { stage: true, answer: true, ...context, run: { ...run, headSha, headBranch, pinned: true } };
  }
  const expected = workflowPath(o.sweepWorkflow);
  // Newest first, as GitHub lists them; a run the reuse gate turned into a no-op (no results) is passed over.
  const ofHead = github
    .workflowRuns(pull.headRef)
    .filter((r) => r.headSha === pull.headSha && r.event === 'pull_request' && (r.path === '' || r.path === expected));
  const head = pull.headSha.slice(0, 12);
  if (ofHead.length === 0)
    return refuse('no-run-for-head', `no completed ${o.sweepWorkflow} run of PR #${pr}’s head commit ${head}`, context);
  const checked = ofHead.map((run) => ({ run, why: runRefusal(run, pr, shas, github, o.sweepWorkflow) }));
  const good = checked.find((c) => c.why === undefined);
  if (good) return { stage: true, answer: true, ...context, run: { ...good.run, pinned: false } };
  const [code, reason] = checked[0]!.why!;
  return refuse(code, `the latest sweep of PR #${pr}’s head commit ${head}: ${reason}`, context);
}

/** The step outputs the workflow reads. */
export function stageOutputs(p: StagePlan): Record<string, string> {
  return {
    stage: p.stage ? 'true' : 'false',
    pr: p.pr === undefined ? '' : String(p.pr),
    'staged-by': p.by ?? '',
    'run-id': p.run?.id ?? '',
    'run-attempt': p.run?.runAttempt || (p.run ? '1' : ''),
    'run-url': p.run?.htmlUrl ?? '',
    'head-sha': p.run?.headSha ?? '',
    branch: p.run?.headBranch ?? '',
    code: p.refusal?.code ?? '',
    reason: p.refusal?.reason ?? '',
  };
}

/** How staging went, once the plan said stage: the ingest's summary, or a failure and where its log is. */
export type StageOutcome = { ingested: IngestSummary } | { failed: { logUrl: string } };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const runLink = (run: WorkflowRun) => (run.htmlUrl ? `[run ${run.id}](${run.htmlUrl})` : `run ${run.id}`);

/** The dashboard's view of a staged run, else the API's answer of its points. */
export function stagedRunUrl(runId: string, dashboardUrl: string): string {
  const id = encodeURIComponent(runId);
  return dashboardUrl ? `${dashboardUrl.replace(/\/+$/, '')}/inference?staged=${id}` : `/api/v1/benchmarks?run=${id}`;
}

/**
 * The comment that answers the command: the refusal and its reason, or what was (or failed to be)
 * staged; '' when there is nothing to say (yet).
 */
export function stageComment(p: StagePlan, outcome: StageOutcome | undefined, o: { dashboardUrl: string }): string {
  if (!p.answer) return '';
  const who = p.by ? `@${p.by} ` : '';
  if (!p.stage || !p.run) {
    const r = p.refusal!;
    return `${STAGE_MARKER}\n${who}\`/stage-results\` was refused [${r.code}]: ${r.reason}.\n\n${r.hint}.\n`;
  }
  const run = p.run;
  // Staging is under way: the answer comes with its outcome.
  if (outcome === undefined) return '';
  if ('failed' in outcome)
    return (
      `${STAGE_MARKER}\n${who}staging ${runLink(run)} failed; nothing was staged (an ingest writes all or nothing). ` +
      `[The staging workflow’s log](${outcome.failed.logUrl}) says why.\n`
    );
  const s = outcome.ingested;
  const counts = [plural(s.benchmarks.total, 'point'), plural(s.agentic.total, 'agentic point'), plural(s.evals.total, 'eval')];
  return [
    STAGE_MARKER,
    `${who}staged ${runLink(run)} (commit ${run.headSha.slice(0, 12)}, attempt ${s.attempt}) for PR #${p.pr}: ${counts.join(', ')}.`,
    '',
    `Staged results are not official: they stay apart from the official and unofficial results until the pull request merges and its sweep is ingested. ` +
      `[See the staged run](${stagedRunUrl(s.run_id, o.dashboardUrl)}). Staging the same run again replaces its staged data.`,
    '',
  ].join('\n');
}
