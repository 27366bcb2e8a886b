/**
 * The two GitHub API answers an external sweep's approval reads, recorded by the workflow with
 * `gh api` as JSON files: the labeller's collaborator permission and the pull request as it
 * stands. A file in another shape is a UserError naming it and the call that records it.
 */
import { UserError } from '../util/user-error.js';

export interface RecordedPermission {
  login: string;
  /** The API's `permission`: admin, write, read or none (maintain reads as write, triage as read). */
  permission: string;
  /** The fine-grained role (`role_name`): admin, maintain, write, triage, read, or a custom one. */
  roleName: string;
}

export interface RecordedPull {
  number: number;
  state: string;
  draft: boolean;
  /** `owner/name` of the head repository ('' when the fork was deleted). */
  headRepo: string;
  headSha: string;
  baseSha: string;
  labels: string[];
  /** '' until GitHub has produced one (or when the branches conflict). */
  mergeCommitSha: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const PERMISSION_API = 'gh api repos/OWNER/REPO/collaborators/USER/permission';
export const PULL_API = 'gh api repos/OWNER/REPO/pulls/N';

/** `gh api repos/O/R/collaborators/USER/permission`; `source` names the file in errors. */
export function permissionOf(raw: unknown, source: string): RecordedPermission {
  if (!isObj(raw) || typeof raw.permission !== 'string')
    throw new UserError(`${source}: expected a collaborator permission object with "permission"`, {
      hint: `record it with \`${PERMISSION_API}\``,
    });
  return { login: str(obj(raw.user).login), permission: raw.permission, roleName: str(raw.role_name) };
}

/** `gh api repos/O/R/pulls/N`; `source` names the file in errors. */
export function externalPullOf(raw: unknown, source: string): RecordedPull {
  const head = obj(isObj(raw) ? raw.head : undefined);
  if (!isObj(raw) || typeof raw.number !== 'number' || typeof head.sha !== 'string' || typeof raw.state !== 'string')
    throw new UserError(`${source}: expected a pull request object with "number", "state" and "head.sha"`, {
      hint: `record it with \`${PULL_API}\``,
    });
  return {
    number: raw.number,
    state: raw.state,
    draft: raw.draft === true,
    headRepo: str(obj(head.repo).full_name),
    headSha: head.sha,
    baseSha: str(obj(raw.base).sha),
    labels: (Array.isArray(raw.labels) ? raw.labels : []).map((l) => str(obj(l).name)).filter((n) => n !== ''),
    mergeCommitSha: str(raw.merge_commit_sha),
  };
}
