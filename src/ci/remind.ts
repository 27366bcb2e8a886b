/**
 * The recipe reminder: InferenceX's pr-recipe-reminder.yml as a decision. A pull request that
 * touches the recipes (configs, benchmark scripts, the changelog) is reminded once of what review
 * needs: a CODEOWNER's sign-off on the checklist, a sweep label (a maintainer's, for a fork), and
 * that its author answers for the jobs after merge. Once: a comment carrying the marker is enough.
 */
import type { GithubEvent } from './event.js';
import { SIGNOFF_PHRASE } from './signoff/index.js';

export const REMINDER_MARKER = '<!-- frontier-recipe-reminder -->';
/** The pull-request actions that remind (InferenceX's). */
export const REMINDER_ACTIONS = ['opened', 'reopened', 'ready_for_review', 'review_requested'] as const;

export interface Reminder {
  remind: boolean;
  reason: string;
  /** The comment, when it reminds. */
  body?: string;
}

/** Whether to remind, given the pull request's comments so far (their bodies). */
export function recipeReminder(event: GithubEvent, comments: readonly string[]): Reminder {
  const pr = event.pullRequest;
  const action = event.action ?? '';
  if (!pr || !(REMINDER_ACTIONS as readonly string[]).includes(action))
    return {
      remind: false,
      reason: `a ${event.name}${action ? ` ${action}` : ''} event: only ${REMINDER_ACTIONS.join(', ')} of a pull request remind`,
    };
  if (comments.some((c) => c.includes(REMINDER_MARKER)))
    return { remind: false, reason: `pull request #${pr.number} was reminded already` };
  const fork = pr.headRepo !== '' && event.repository !== '' && pr.headRepo !== event.repository;
  const body = [
    REMINDER_MARKER,
    'Thanks for the contribution! Before asking a maintainer for review, ask the CODEOWNER of the configs you change (`.github/CODEOWNERS`) to fill in `docs/PR_REVIEW_CHECKLIST.md` in a comment: the sign-off check runs only for a comment that follows the template, including the phrase ' +
      `\`${SIGNOFF_PHRASE}\`.`,
    '',
    fork
      ? 'The benchmark sweep runs only on labelled pull requests. This one comes from a fork: a maintainer approves its current head by adding the `full-sweep-fail-fast` label (or `full-sweep-enabled` to keep jobs running past a failure); a later push needs the label removed and added again.'
      : 'The benchmark sweep runs only on labelled pull requests: add the `full-sweep-fail-fast` label (recommended), or `full-sweep-enabled` if the jobs should keep running past a failure.',
    '',
    '**Authors answer for every job passing after the merge.** A failure is often a flake that re-running the failed jobs fixes.',
  ].join('\n');
  return { remind: true, reason: `pull request #${pr.number} ${action}: not reminded yet`, body: `${body}\n` };
}
