/**
 * The GitHub API's answers, recorded as JSON files in the API's own shapes (what `gh api` prints,
 * with or without `--paginate --slurp`), read into the lookups the reuse decision makes. A file
 * the decision needs and nobody recorded is a UserError naming it and the `gh api` call that
 * records it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../util/user-error.js';
import { readJsonFile } from '../../util/json-file.js';
import type { GithubRecord, RecordedPullRequest } from './decide.js';
import type { RecordedComment } from './rules.js';
import type { WorkflowRun } from './source-run.js';
import { parseWorkflowJobs } from '../success-rate.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/**
 * The items of a list endpoint: a bare array, an object holding the array under `key`
 * (`{"workflow_runs": [...]}`), or an array of such pages (`gh api --paginate --slurp`).
 */
export function listItems(data: unknown, key: string): Json[] {
  const pages =
    Array.isArray(data) && data.length > 0 && data.every((p) => Array.isArray(p) || (key !== '' && Array.isArray(obj(p)[key])))
      ? data
      : [data];
  const out: Json[] = [];
  for (const page of pages) {
    const items = Array.isArray(page) ? page : key !== '' ? obj(page)[key] : undefined;
    if (!Array.isArray(items)) continue;
    for (const item of items) if (item !== null && typeof item === 'object' && !Array.isArray(item)) out.push(item as Json);
  }
  return out;
}

export function pullRequestOf(raw: unknown): RecordedPullRequest {
  const pr = obj(raw);
  const head = obj(pr.head);
  return {
    number: Number(pr.number ?? 0),
    labels: listItems(pr.labels, '')
      .map((l) => str(l.name))
      .filter((n) => n !== ''),
    mergedAt: str(pr.merged_at),
    headRef: str(head.ref),
    headSha: str(head.sha),
  };
}

export function commentsOf(data: unknown): RecordedComment[] {
  return listItems(data, '').map((c) => ({
    body: str(c.body),
    association: str(c.author_association),
    createdAt: str(c.created_at),
    author: str(obj(c.user).login),
  }));
}

export function commitShasOf(data: unknown): string[] {
  return listItems(data, '')
    .map((c) => str(c.sha))
    .filter((s) => s !== '');
}

export function workflowRunOf(raw: Json): WorkflowRun {
  return {
    id: str(raw.id),
    event: str(raw.event),
    status: str(raw.status),
    conclusion: str(raw.conclusion),
    path: str(raw.path),
    headSha: str(raw.head_sha),
    headBranch: str(raw.head_branch),
    runAttempt: str(raw.run_attempt),
    htmlUrl: str(raw.html_url),
    repository: str(obj(raw.repository).full_name),
    displayTitle: str(raw.display_title),
  };
}

export function workflowRunsOf(data: unknown): WorkflowRun[] {
  return listItems(data, 'workflow_runs').map(workflowRunOf);
}

/**
 * Unexpired artifact names by run id. Each artifact names its run (`workflow_run.id`); `runId`
 * stands in for artifacts that do not (a file recorded per run).
 */
export function artifactNamesByRun(data: unknown, runId?: string): Map<string, Set<string>> {
  const byRun = new Map<string, Set<string>>();
  if (runId !== undefined) byRun.set(runId, new Set());
  for (const a of listItems(data, 'artifacts')) {
    const id = str(obj(a.workflow_run).id) || runId;
    if (id === undefined) continue;
    if (!byRun.has(id)) byRun.set(id, new Set());
    if (str(a.name) !== '' && a.expired !== true) byRun.get(id)!.add(str(a.name));
  }
  return byRun;
}

/** Where each answer was recorded; any may be absent until a decision needs it. */
export interface RecordFiles {
  /** A directory holding the files under their default names (see RECORD_FILES). */
  dir?: string;
  pulls?: string;
  pr?: string;
  comments?: string;
  commits?: string;
  runs?: string;
  artifacts?: string;
  jobs?: string;
}

/** The file names inside `--github DIR`, and the `gh api` call that records each. */
export const RECORD_FILES = {
  pulls: { file: 'pulls.json', api: 'gh api repos/OWNER/REPO/commits/SHA/pulls' },
  pr: { file: 'pr.json', api: 'gh api repos/OWNER/REPO/pulls/N' },
  comments: { file: 'comments.json', api: 'gh api --paginate --slurp repos/OWNER/REPO/issues/N/comments' },
  commits: { file: 'commits.json', api: 'gh api --paginate --slurp repos/OWNER/REPO/pulls/N/commits' },
  runs: {
    file: 'runs.json',
    api: 'gh api --paginate --slurp "repos/OWNER/REPO/actions/workflows/run-sweep.yml/runs?event=pull_request&branch=BRANCH&status=completed"',
  },
  artifacts: {
    file: 'artifacts.json',
    api: 'gh api --paginate --slurp repos/OWNER/REPO/actions/runs/ID/artifacts (one per run: artifacts-ID.json)',
  },
  jobs: {
    file: 'jobs.json',
    api: 'gh api --paginate --slurp "repos/OWNER/REPO/actions/runs/ID/jobs?per_page=100" (one per run: jobs-ID.json)',
  },
} as const;

type Kind = keyof typeof RECORD_FILES;

const readJson = (path: string): unknown =>
  readJsonFile(path, { hint: 'record it with gh api, which prints the API response as JSON' });

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The recorded answers at `files`, as the lookups the decision makes. */
export function recordedGithub(files: RecordFiles, decision = 'the reuse decision'): GithubRecord {
  const pathOf = (kind: Kind, variant?: string): string | undefined => {
    if (files[kind] !== undefined) return files[kind];
    if (files.dir === undefined) return undefined;
    if (variant !== undefined) {
      const specific = join(files.dir, RECORD_FILES[kind].file.replace('.json', `-${variant}.json`));
      if (existsSync(specific)) return specific;
    }
    const plain = join(files.dir, RECORD_FILES[kind].file);
    return existsSync(plain) ? plain : undefined;
  };
  const need = (kind: Kind, what: string, variant?: string): unknown => {
    const path = pathOf(kind, variant);
    if (path === undefined)
      throw new UserError(`${decision} needs ${what}, and it is not recorded`, {
        hint: `record it with \`${RECORD_FILES[kind].api} > ${RECORD_FILES[kind].file}\` and pass --${kind} FILE or --github DIR`,
      });
    return readJson(path);
  };
  const artifacts = (runId: string): Set<string> => {
    const path = pathOf('artifacts', runId);
    if (path === undefined) return need('artifacts', `the artifacts of run ${runId}`, runId) as never;
    const byRun = artifactNamesByRun(readJson(path), path.endsWith(`-${runId}.json`) ? runId : undefined);
    const names = byRun.get(runId);
    if (names === undefined)
      throw new UserError(`${path} records no artifacts of run ${runId}`, {
        hint: `record them with \`gh api --paginate --slurp repos/OWNER/REPO/actions/runs/${runId}/artifacts > artifacts-${runId}.json\``,
      });
    return names;
  };
  const allRuns = (): WorkflowRun[] => workflowRunsOf(need('runs', 'the sweep workflow’s pull_request runs'));
  return {
    pullsOfCommit: () =>
      listItems(need('pulls', 'the pull requests of the merge commit'), '')
        .map((p) => Number(p.number ?? 0))
        .filter((n) => n > 0),
    pullRequest: (n) => ({ ...pullRequestOf(need('pr', `pull request #${n}`, String(n))), number: n }),
    comments: (n) => commentsOf(need('comments', `the comments of #${n}`, String(n))),
    commits: (n) => commitShasOf(need('commits', `the commits of #${n}`, String(n))),
    // The API filters by event, branch and status; a recorded list may hold more, so filter again.
    workflowRuns: (branch) =>
      allRuns().filter(
        (r) => r.event === 'pull_request' && r.status === 'completed' && (r.headBranch === '' || r.headBranch === branch),
      ),
    run: (id) => {
      const own = pathOf('runs', id);
      if (own !== undefined && own.endsWith(`-${id}.json`)) return workflowRunOf(obj(readJson(own)));
      return allRuns().find((r) => r.id === id);
    },
    artifactNames: artifacts,
    jobs: (runId) => {
      const path = pathOf('jobs', runId);
      if (path === undefined) return need('jobs', `the jobs of run ${runId}`, runId) as never;
      return parseWorkflowJobs(readText(path), path);
    },
  };
}
