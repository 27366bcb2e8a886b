/**
 * A GitHub Actions event, read from the payload file Actions writes (`GITHUB_EVENT_PATH`) and
 * the event name (`GITHUB_EVENT_NAME`; the payload itself does not carry it). Only the fields
 * the decisions use are kept, under names that say what they are; everything else is dropped.
 */
import { readJsonFile } from '../util/json-file.js';
import { UserError } from '../util/user-error.js';

export const EVENT_NAMES = ['pull_request', 'pull_request_target', 'push', 'issue_comment', 'workflow_dispatch'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export interface PullRequestInfo {
  number: number;
  draft: boolean;
  labels: string[];
  /** `owner/name` of the repository the head branch lives in (a fork differs from `repository`). */
  headRepo: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  author: string;
  title: string;
  body: string;
}

export interface CommentInfo {
  body: string;
  author: string;
  /** GitHub's author_association: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
}

export interface GithubEvent {
  name: EventName;
  /** `owner/name` of the repository the workflow runs in. */
  repository: string;
  /** The repository's default branch, when the payload names it. */
  defaultBranch?: string;
  /** Who caused the event (the payload's sender): the labeller of a labeled event. */
  sender?: string;
  /** pull_request / issue_comment action: synchronize, labeled, created, … */
  action?: string;
  /** The label a labeled/unlabeled event added or removed. */
  label?: string;
  pullRequest?: PullRequestInfo;
  /** issue_comment: the issue or pull request number, whether it is a pull request, and its description. */
  issue?: { number: number; isPullRequest: boolean; body: string };
  comment?: CommentInfo;
  /** push: the ref, the range, and the head commit's message. */
  ref?: string;
  before?: string;
  after?: string;
  headCommitMessage?: string;
  /** workflow_dispatch inputs, as strings. */
  inputs?: Record<string, string>;
}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

function pullRequestOf(raw: Json): PullRequestInfo {
  const head = obj(raw.head);
  const labels = Array.isArray(raw.labels) ? raw.labels.map((l) => str(obj(l).name)).filter((n) => n !== '') : [];
  return {
    number: Number(raw.number ?? 0),
    draft: raw.draft === true,
    labels,
    headRepo: str(obj(head.repo).full_name),
    headSha: str(head.sha),
    baseRef: str(obj(raw.base).ref),
    baseSha: str(obj(raw.base).sha),
    author: str(obj(raw.user).login),
    title: str(raw.title),
    body: str(raw.body),
  };
}

function checkEventName(name: string): asserts name is EventName {
  if (!(EVENT_NAMES as readonly string[]).includes(name)) {
    throw new UserError(`event ${JSON.stringify(name)} is not one Frontier decides on`, {
      hint: `give --event-name (or GITHUB_EVENT_NAME) as one of ${EVENT_NAMES.join(', ')}`,
    });
  }
}

/** The event from a parsed payload and its name; `source` names the file in errors. */
export function parseEvent(name: string, payload: unknown, source = 'the event payload'): GithubEvent {
  checkEventName(name);
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new UserError(`${source}: expected a JSON object (a GitHub event payload)`);
  }
  const raw = payload as Json;
  const event: GithubEvent = { name: name as EventName, repository: str(obj(raw.repository).full_name) };
  if (typeof raw.action === 'string') event.action = raw.action;
  const defaultBranch = str(obj(raw.repository).default_branch);
  if (defaultBranch) event.defaultBranch = defaultBranch;
  const sender = str(obj(raw.sender).login);
  if (sender) event.sender = sender;
  if (raw.label !== undefined) event.label = str(obj(raw.label).name);
  if (name === 'pull_request' || name === 'pull_request_target') {
    if (raw.pull_request === undefined) throw new UserError(`${source}: a ${name} event without "pull_request"`);
    event.pullRequest = pullRequestOf(obj(raw.pull_request));
  }
  if (name === 'issue_comment') {
    const issue = obj(raw.issue);
    const comment = obj(raw.comment);
    if (raw.comment === undefined) throw new UserError(`${source}: an issue_comment event without "comment"`);
    event.issue = { number: Number(issue.number ?? 0), isPullRequest: issue.pull_request !== undefined, body: str(issue.body) };
    event.comment = {
      body: str(comment.body),
      author: str(obj(comment.user).login),
      association: str(comment.author_association),
      createdAt: str(comment.created_at),
    };
  }
  if (name === 'push') {
    event.ref = str(raw.ref);
    event.before = str(raw.before);
    event.after = str(raw.after);
    event.headCommitMessage = str(obj(raw.head_commit).message);
  }
  if (name === 'workflow_dispatch') {
    event.ref = str(raw.ref);
    event.inputs = Object.fromEntries(
      Object.entries(obj(raw.inputs)).map(([k, v]) => [k, typeof v === 'boolean' ? String(v) : str(v)]),
    );
  }
  return event;
}

/**
 * The event Actions is running for: the payload at `path` (default `GITHUB_EVENT_PATH`), named
 * `name` (default `GITHUB_EVENT_NAME`).
 */
export function readEvent(
  path: string | undefined = process.env.GITHUB_EVENT_PATH,
  name: string | undefined = process.env.GITHUB_EVENT_NAME,
): GithubEvent {
  if (!path) {
    throw new UserError('no event payload', {
      hint: 'give --event FILE (a GitHub event payload JSON), or run inside Actions where GITHUB_EVENT_PATH is set',
    });
  }
  if (!name) {
    throw new UserError('no event name', {
      hint: `give --event-name (${EVENT_NAMES.join(', ')}), or run inside Actions where GITHUB_EVENT_NAME is set`,
    });
  }
  checkEventName(name);
  const payload = readJsonFile(path, {
    what: `the event payload ${path}`,
    hint: 'the payload is the file GITHUB_EVENT_PATH names',
  });
  return parseEvent(name, payload, path);
}
