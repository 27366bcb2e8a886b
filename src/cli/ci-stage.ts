/**
 * `frontier ci stage`: may this `/stage-results [RUN_ID]` comment stage a run, and which one
 * (src/ci/stage.ts decides); the GitHub API's answers come in as recorded files, as `ci reuse`
 * reads them. With `--ingested` or `--failed` it writes the answer for the pull request instead.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { RECORD_FILES, recordedGithub } from '../ci/reuse/index.js';
import { decideStage, stageComment, stageOutputs } from '../ci/stage.js';
import type { StageOutcome, StagePlan } from '../ci/stage.js';
import type { IngestSummary } from '../store/index.js';
import { readJsonFile } from '../util/json-file.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { pathOption } from './paths.js';

interface StageOptions {
  event?: string;
  eventName?: string;
  format: CiFormat;
  github?: string;
  permission?: string;
  pr?: string;
  commits?: string;
  runs?: string;
  artifacts?: string;
  workflowId: string;
  ingested?: string;
  failed?: boolean;
  logUrl?: string;
  dashboardUrl?: string;
  commentFile?: string;
}

const PERMISSION_API = 'gh api repos/OWNER/REPO/collaborators/USER/permission';

/** The role GitHub answered for the commenter: role_name (admin, maintain, write, triage, read), else permission. */
function recordedPermission(o: StageOptions): (user: string) => string {
  return (user) => {
    const file = o.permission ?? (o.github === undefined ? undefined : join(o.github, 'permission.json'));
    if (file === undefined || !existsSync(file))
      throw new UserError(`staging needs @${user}'s permission on the repository, and it is not recorded`, {
        hint: `record it with \`${PERMISSION_API.replace('USER', user)} > permission.json\` and pass --permission FILE or --github DIR`,
      });
    const answer = readJsonFile(file, { hint: `record it with ${PERMISSION_API}` }) as Record<string, unknown>;
    const role = typeof answer.role_name === 'string' && answer.role_name !== '' ? answer.role_name : answer.permission;
    if (typeof role !== 'string')
      throw new UserError(`${file}: no permission or role_name`, { hint: `record what ${PERMISSION_API} answers` });
    return role;
  };
}

function outcomeOf(o: StageOptions): StageOutcome | undefined {
  if (o.ingested !== undefined && o.failed) throw new UserError('--ingested and --failed: staging either worked or it did not');
  if (o.ingested !== undefined)
    return {
      ingested: readJsonFile(o.ingested, {
        what: `--ingested ${o.ingested}`,
        hint: 'pass what `frontier ingest … --stage PR --format json` printed',
      }) as IngestSummary,
    };
  if (o.failed) return { failed: { logUrl: o.logUrl ?? runUrlFromEnv() } };
  return undefined;
}

const runUrlFromEnv = (): string =>
  process.env.GITHUB_RUN_ID
    ? `${process.env.GITHUB_SERVER_URL ?? 'https://github.com'}/${process.env.GITHUB_REPOSITORY ?? ''}/actions/runs/${process.env.GITHUB_RUN_ID}`
    : '';

function planLines(p: StagePlan): string[] {
  if (p.stage && p.run)
    return [
      `stage: run ${p.run.id} (attempt ${p.run.runAttempt || '1'}${p.run.pinned ? ', named in the comment' : ', the latest sweep of the head'}) for PR #${p.pr}, asked by @${p.by}`,
      `  commit ${p.run.headSha} on ${p.run.headBranch || '(branch unknown)'} ${p.run.htmlUrl}`.trimEnd(),
    ];
  const r = p.refusal!;
  return [`stage: refused [${r.code}]`, `  ${r.reason}`, `  hint: ${r.hint}`];
}

export function ciStageCommand(): Command {
  const cmd = new Command('stage').description(
    '/stage-results [RUN_ID] on a pull request: may the commenter stage a sweep run (write access; a completed, successful sweep of this PR), and which; with --ingested/--failed, the answer for the PR',
  );
  withEvent(cmd);
  withFormat(cmd);
  return cmd
    .addOption(
      pathOption(
        '--github <dir>',
        `recorded GitHub API answers: permission.json, ${[
          RECORD_FILES.pr,
          RECORD_FILES.commits,
          RECORD_FILES.runs,
          RECORD_FILES.artifacts,
        ]
          .map((f) => f.file)
          .join(', ')} (per-PR or per-run variants: pr-N.json, commits-N.json, runs-ID.json, artifacts-ID.json)`,
      ),
    )
    .addOption(pathOption('--permission <file>', 'GET /repos/R/collaborators/USER/permission (the commenter)'))
    .addOption(pathOption('--pr <file>', 'GET /repos/R/pulls/N'))
    .addOption(pathOption('--commits <file>', 'GET /repos/R/pulls/N/commits'))
    .addOption(
      pathOption('--runs <file>', 'GET /repos/R/actions/workflows/WF/runs (the PR branch’s completed pull_request runs)'),
    )
    .addOption(pathOption('--artifacts <file>', 'GET /repos/R/actions/runs/ID/artifacts'))
    .option('--workflow-id <file>', 'the sweep workflow whose runs may be staged', 'run-sweep.yml')
    .addOption(pathOption('--ingested <file>', 'the staging ingest’s summary (frontier ingest … --stage PR --format json)'))
    .option('--failed', 'staging failed after the decision (download or ingest): say so on the PR')
    .option('--log-url <url>', 'with --failed: where the failure’s log is (default: this Actions run)')
    .option('--dashboard-url <url>', 'the dashboard, linked from the answer (default $FRONTIER_DASHBOARD_URL)')
    .addOption(pathOption('--comment-file <file>', 'write the answer for the pull request here (empty: nothing to say)'))
    .action((o: StageOptions) => {
      const event = eventOf(o);
      const recorded = recordedGithub(
        { dir: o.github, pr: o.pr, commits: o.commits, runs: o.runs, artifacts: o.artifacts },
        'the staging decision',
      );
      const plan = decideStage(event, { ...recorded, permission: recordedPermission(o) }, { sweepWorkflow: o.workflowId });
      const outcome = outcomeOf(o);
      if (outcome && !plan.stage)
        throw new UserError('--ingested/--failed: this comment does not stage a run; nothing to report');
      const comment = stageComment(plan, outcome, { dashboardUrl: o.dashboardUrl ?? process.env.FRONTIER_DASHBOARD_URL ?? '' });
      if (o.commentFile !== undefined) writeFileSync(o.commentFile, comment);
      const outputs = stageOutputs(plan);
      emit(
        {
          text: [...planLines(plan), ...(comment ? ['', comment.trimEnd()] : [])].join('\n'),
          json: {
            decision: plan.stage ? 'stage' : 'refused',
            ...outputs,
            answer: plan.answer,
            hint: plan.refusal?.hint ?? '',
            comment,
          },
          outputs,
        },
        o.format,
      );
    });
}
