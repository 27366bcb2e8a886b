import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../src/ci/event.js';

describe('a GitHub event payload', () => {
  it('pull_request: the fields the decisions read, under their own names', () => {
    const event = parseEvent('pull_request', {
      action: 'labeled',
      label: { name: 'full-sweep-enabled' },
      repository: { full_name: 'acme/catalog' },
      pull_request: {
        number: 7,
        draft: true,
        title: 'T',
        body: null,
        user: { login: 'alice' },
        labels: [{ name: 'full-sweep-enabled' }, { name: '' }, {}],
        head: { sha: 'abc', repo: { full_name: 'fork/catalog' } },
        base: { ref: 'main' },
      },
    });
    expect(event).toEqual({
      name: 'pull_request',
      repository: 'acme/catalog',
      action: 'labeled',
      label: 'full-sweep-enabled',
      pullRequest: {
        number: 7,
        draft: true,
        labels: ['full-sweep-enabled'],
        headRepo: 'fork/catalog',
        headSha: 'abc',
        baseRef: 'main',
        baseSha: '',
        author: 'alice',
        title: 'T',
        body: '',
      },
    });
  });

  it("issue_comment: the comment, its author's association, and the pull request's description", () => {
    const event = parseEvent('issue_comment', {
      action: 'created',
      issue: { number: 42, pull_request: { url: 'x' }, body: 'Bumps the image.' },
      comment: {
        body: '/reuse-sweep-run',
        user: { login: 'boss' },
        author_association: 'MEMBER',
        created_at: '2026-01-01T00:00:00Z',
      },
    });
    expect(event.issue).toEqual({ number: 42, isPullRequest: true, body: 'Bumps the image.' });
    expect(event.comment).toEqual({
      body: '/reuse-sweep-run',
      author: 'boss',
      association: 'MEMBER',
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(parseEvent('issue_comment', { issue: { number: 1 }, comment: {} }).issue!.isPullRequest).toBe(false);
  });

  it('push and workflow_dispatch: the range, the head message, the inputs as strings', () => {
    const push = parseEvent('push', { ref: 'refs/heads/main', before: 'a', after: 'b', head_commit: { message: 'm' } });
    expect(push).toMatchObject({ ref: 'refs/heads/main', before: 'a', after: 'b', headCommitMessage: 'm' });
    expect(parseEvent('workflow_dispatch', { inputs: { n: 3, s: 'x' } }).inputs).toEqual({ n: '3', s: 'x' });
  });

  it('refuses what it cannot decide on, naming the fix', () => {
    expect(() => parseEvent('release', {})).toThrow(/event "release" is not one Frontier decides on/);
    expect(() => parseEvent('push', [])).toThrow(/expected a JSON object/);
    expect(() => parseEvent('pull_request', {}, 'e.json')).toThrow('e.json: a pull_request event without "pull_request"');
    expect(() => parseEvent('issue_comment', { issue: {} })).toThrow(/without "comment"/);
  });
});
