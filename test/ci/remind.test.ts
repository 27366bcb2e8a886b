/** The recipe reminder's decision (src/ci/remind.ts). */
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/ci/event.js';
import { REMINDER_MARKER, recipeReminder } from '../../src/ci/remind.js';

const event = (action: string, headRepo = 'acme/catalog', name = 'pull_request_target') =>
  parseEvent(name, {
    action,
    repository: { full_name: 'acme/catalog' },
    pull_request: { number: 3, head: { sha: 'a', repo: { full_name: headRepo } } },
  });

describe('recipeReminder', () => {
  it.each(['opened', 'reopened', 'ready_for_review', 'review_requested'])('reminds on %s, once', (action) => {
    const r = recipeReminder(event(action), []);
    expect(r).toMatchObject({ remind: true, reason: `pull request #3 ${action}: not reminded yet` });
    expect(r.body!.startsWith(REMINDER_MARKER)).toBe(true);
    expect(r.body).toContain('`As a PR reviewer and CODEOWNER`');
    expect(r.body).toContain('add the `full-sweep-fail-fast` label (recommended)');
    expect(recipeReminder(event(action), ['hi', `${REMINDER_MARKER}\nearlier`])).toEqual({
      remind: false,
      reason: 'pull request #3 was reminded already',
    });
  });

  it('a fork is told that a maintainer’s label approves its head', () => {
    expect(recipeReminder(event('opened', 'vendor/catalog'), []).body).toContain(
      'This one comes from a fork: a maintainer approves',
    );
  });

  it('other actions do not remind', () => {
    expect(recipeReminder(event('synchronize'), [])).toEqual({
      remind: false,
      reason:
        'a pull_request_target synchronize event: only opened, reopened, ready_for_review, review_requested of a pull request remind',
    });
  });
});
