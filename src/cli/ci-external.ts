/**
 * `frontier ci external`: whether a sweep label added to a fork's pull request approves its head
 * commit, and the dispatch of the sweep workflow that sweeps it. Reads the event and two recorded
 * `gh api` answers, never the pull request's code; writes the dispatch body (for `gh api -X POST
 * …/dispatches --input`) and the PR comment.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { authorizeExternalSweep, externalComment } from '../ci/external.js';
import { PERMISSION_API, PULL_API, externalPullOf, permissionOf } from '../ci/external-record.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { ExitCode } from '../util/exit-codes.js';
import { readJsonFile } from '../util/json-file.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { pathOption } from './paths.js';

interface ExternalOptions {
  event?: string;
  eventName?: string;
  format: CiFormat;
  permission: string;
  pull: string;
  workflowId: string;
  dispatchFile?: string;
  commentFile?: string;
}

export function ciExternalCommand(): Command {
  const command = new Command('external')
    .description(
      "approve a fork's pull request for a sweep: a sweep label added by a maintainer with write permission approves its exact head commit; prints the dispatch",
    )
    .addOption(
      pathOption('--permission <file>', `the labeller's collaborator permission (${PERMISSION_API})`).makeOptionMandatory(),
    )
    .addOption(pathOption('--pull <file>', `the pull request as it stands (${PULL_API})`).makeOptionMandatory())
    .option('--workflow-id <file>', 'the sweep workflow the dispatch starts (linked from the comment)', 'frontier-sweep.yml')
    .addOption(pathOption('--dispatch-file <file>', 'on approval, write the dispatch body ({"ref", "inputs"}) here'))
    .addOption(pathOption('--comment-file <file>', 'write the pull-request comment here (approval or refusal)'));
  return withFormat(withEvent(command)).action((o: ExternalOptions) => {
    const event = eventOf(o);
    const permission = permissionOf(readJsonFile(o.permission, { hint: `record it with \`${PERMISSION_API}\`` }), o.permission);
    const pull = externalPullOf(readJsonFile(o.pull, { hint: `record it with \`${PULL_API}\`` }), o.pull);
    // A recording of someone else's permission or another pull request is a wrong file, not a refusal.
    if (event.sender && permission.login && permission.login.toLowerCase() !== event.sender.toLowerCase())
      throw new UserError(
        `--permission ${o.permission} is @${permission.login}'s permission, not the labeller @${event.sender}'s`,
        {
          hint: `record the sender's: ${PERMISSION_API.replace('USER', event.sender)}`,
        },
      );
    if (event.pullRequest && pull.number !== event.pullRequest.number)
      throw new UserError(`--pull ${o.pull} is pull request #${pull.number}, not the event's #${event.pullRequest.number}`, {
        hint: PULL_API.replace('N', String(event.pullRequest.number)),
      });

    const decision = authorizeExternalSweep({ event, permission, pull });
    const server = process.env.GITHUB_SERVER_URL ?? 'https://github.com';
    const comment = externalComment(decision, `${server}/${event.repository}/actions/workflows/${o.workflowId}`);
    const dispatchFile = decision.dispatch && o.dispatchFile ? resolve(o.dispatchFile) : undefined;
    const commentFile = o.commentFile ? resolve(o.commentFile) : undefined;
    const writes: [string, string][] = [];
    if (dispatchFile) writes.push([dispatchFile, `${JSON.stringify(decision.dispatch, null, 2)}\n`]);
    if (commentFile) writes.push([commentFile, comment]);
    writeFilesAtomic(writes, { mkdir: true });

    const lines = [
      `external sweep: ${decision.approved ? 'approved' : 'refused'} (pull request #${decision.pr})`,
      `  why: ${decision.reason}`,
    ];
    if (decision.dispatch) {
      lines.push(`  dispatch: ${o.workflowId} on ${decision.dispatch.ref}, inputs:`);
      for (const [k, v] of Object.entries(decision.dispatch.inputs)) lines.push(`    ${k}: ${v}`);
    }
    emit(
      {
        text: lines.join('\n'),
        json: { ...decision, dispatchFile: dispatchFile ?? null, commentFile: commentFile ?? null },
        outputs: {
          approved: decision.approved,
          reason: decision.reason,
          refusal: decision.refusal ?? '',
          pr: decision.pr,
          'head-sha': decision.headSha,
          'test-name': decision.dispatch?.inputs['test-name'] ?? '',
          ref: decision.dispatch?.inputs.ref ?? '',
          'dispatch-file': dispatchFile ?? '',
          'comment-file': commentFile ?? '',
        },
        exitCode: decision.approved ? ExitCode.OK : ExitCode.FAILED,
      },
      o.format,
    );
  });
}
