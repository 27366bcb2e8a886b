/** `frontier ci remind`: whether a pull request touching the recipes gets the reminder comment, and its text. */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { recipeReminder } from '../ci/remind.js';
import { commentsOf } from '../ci/reuse/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { readJsonFile } from '../util/json-file.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { pathOption } from './paths.js';

const COMMENTS_API = 'gh api --paginate --slurp repos/OWNER/REPO/issues/N/comments';

interface RemindOptions {
  event?: string;
  eventName?: string;
  format: CiFormat;
  comments: string;
  commentFile?: string;
}

export function ciRemindCommand(): Command {
  const command = new Command('remind')
    .description(
      "remind a pull request touching the recipes, once, of sign-off, the sweep label and the author's duty after merge",
    )
    .addOption(pathOption('--comments <file>', `the pull request's comments so far (${COMMENTS_API})`).makeOptionMandatory())
    .addOption(pathOption('--comment-file <file>', 'when it reminds, write the comment here'));
  return withFormat(withEvent(command)).action((o: RemindOptions) => {
    const event = eventOf(o);
    const raw = readJsonFile(o.comments, { hint: `record it with \`${COMMENTS_API}\`` });
    // An API error ({"message": …}) is not "no comments": reminding again would be wrong.
    if (!Array.isArray(raw))
      throw new UserError(`--comments ${o.comments}: expected a list of comments (or pages of them)`, {
        hint: `record it with \`${COMMENTS_API}\``,
      });
    const reminder = recipeReminder(
      event,
      commentsOf(raw).map((c) => c.body),
    );
    const commentFile = reminder.body && o.commentFile ? resolve(o.commentFile) : undefined;
    if (commentFile) writeFileAtomic(commentFile, reminder.body!);
    emit(
      {
        text: `reminder: ${reminder.remind ? 'posted' : 'not posted'}\n  why: ${reminder.reason}${reminder.body ? `\n\n${reminder.body}` : ''}`,
        json: { ...reminder, commentFile: commentFile ?? null },
        outputs: { remind: reminder.remind, reason: reminder.reason, 'comment-file': commentFile ?? '' },
      },
      o.format,
    );
  });
}
