/**
 * What `frontier ci signoff` reads before deciding: the change between two git revisions (no
 * checkout), CODEOWNERS and the checklist at a third, trusted one (the default branch: a PR's base
 * can be a branch its author controls), the PR's commits, and the store's runs of those commits.
 * The decision itself is src/ci/signoff/ (pure).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { diffLines, gitSnapshot, parseUnifiedDiff } from '../changelog/index.js';
import type { Snapshot } from '../changelog/index.js';
import { compareRun, evaluations, runs } from '../store/index.js';
import { changeText } from '../contract/index.js';
import type { Comparison } from '../contract/index.js';
import type { Store } from '../store/index.js';
import { UserError } from '../util/user-error.js';
import { CHECKLIST_FILE, CODEOWNERS_FILE, MASTER_CONFIG, allEntries, changedEntries, waiverFile } from './signoff/index.js';
import type { ChangedFile, ConfigEntry, RunEvidence, SignoffInput } from './signoff/index.js';

const git = promisify(execFile);

/** What the change between base and head tells the sign-off rules, and the commits of base..head (newest first). */
export type RepositoryChange = Pick<
  SignoffInput,
  'codeowners' | 'checklist' | 'files' | 'entries' | 'headEntries' | 'waiverExists'
> & { headSha: string; commits: string[] };

async function gitOut(repo: string, args: string[]): Promise<string> {
  try {
    return (await git('git', args, { cwd: repo, maxBuffer: 256 << 20 })).stdout;
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    throw new UserError(`git ${args.join(' ')} failed in ${repo}: ${stderr || (e as Error).message}`, {
      hint: 'give --base and --head as revisions of the repository (fetch the PR head and its base first)',
    });
  }
}

/** Text of a file, or undefined for a binary one (a NUL in its first 8 KiB, as git decides). */
const textOf = (bytes: Buffer | undefined): string | undefined =>
  bytes === undefined || bytes.subarray(0, 8192).includes(0) ? undefined : bytes.toString('utf8');

/**
 * Each file's hunks of one `git diff` (a process per file costs seconds on a large change), by
 * path. A path git quotes (unusual characters) is left out: its file is diffed on its own.
 */
async function hunksByPath(repo: string, base: string, head: string): Promise<Map<string, string>> {
  const diff = await gitOut(repo, [
    '-c',
    'core.quotePath=false',
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-renames',
    '-U0',
    base,
    head,
  ]);
  const out = new Map<string, string>();
  for (const chunk of diff.split(/^diff --git /m).slice(1)) {
    const path = /^\+\+\+ b\/(.*)$/m.exec(chunk)?.[1];
    if (path !== undefined && !path.startsWith('"')) out.set(path, chunk);
  }
  return out;
}

async function changedFile(
  base: Snapshot,
  head: Snapshot,
  path: string,
  status: string,
  hunks: Map<string, string>,
): Promise<ChangedFile> {
  const kind = status.startsWith('A') ? 'added' : status.startsWith('D') ? 'deleted' : 'modified';
  const headText = textOf(await head.read(path));
  if (kind === 'deleted' || headText === undefined) return { path, status: kind, added: [], head: headText };
  const chunk = hunks.get(path);
  const lines =
    chunk !== undefined
      ? parseUnifiedDiff(chunk)
      : await diffLines((await base.read(path)) ?? Buffer.alloc(0), Buffer.from(headText));
  return {
    path,
    status: kind,
    added: lines.filter((l) => l.kind === '+').map((l) => ({ line: l.line, text: l.text })),
    head: headText,
  };
}

/** The revisions a sign-off reads: the PR's base and head, and the trusted default branch. */
export interface SignoffRefs {
  base: string;
  head: string;
  trusted: string;
}

const commitOf = async (repo: string, ref: string): Promise<string> =>
  (await gitOut(repo, ['rev-parse', '--verify', `${ref}^{commit}`])).trim();

export async function readRepositoryChange(repo: string, refs: SignoffRefs, pr: number): Promise<RepositoryChange> {
  const headSha = await commitOf(repo, refs.head);
  const baseSha = await commitOf(repo, refs.base);
  // The PR's diff is against the merge base, as GitHub shows it (three dots).
  const nameStatus = await gitOut(repo, ['diff', '--name-status', '--no-renames', '-z', `${baseSha}...${headSha}`]);
  const mergeBase = (await gitOut(repo, ['merge-base', baseSha, headSha])).trim();
  const parts = nameStatus.split('\0').filter(Boolean);
  const base = gitSnapshot(mergeBase, repo);
  const head = gitSnapshot(headSha, repo);
  const trusted = gitSnapshot(await commitOf(repo, refs.trusted), repo);
  const hunks = await hunksByPath(repo, mergeBase, headSha);
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) files.push(await changedFile(base, head, parts[i + 1]!, parts[i]!, hunks));
  const entries: ConfigEntry[] = [];
  for (const f of files.filter((x) => MASTER_CONFIG.test(x.path)))
    entries.push(...changedEntries(f.path, textOf(await base.read(f.path)), f.head));
  const headEntries = (
    await Promise.all((await head.masterConfigs()).map(async (p) => allEntries(p, textOf(await head.read(p)))))
  ).flat();
  const commits = (await gitOut(repo, ['rev-list', `${mergeBase}..${headSha}`])).split('\n').filter(Boolean);
  return {
    headSha,
    codeowners: textOf(await trusted.read(CODEOWNERS_FILE)),
    checklist: textOf(await trusted.read(CHECKLIST_FILE)),
    files,
    entries,
    headEntries,
    waiverExists: (await head.read(waiverFile(pr))) !== undefined,
    commits,
  };
}

/** The store's runs of the given commits, with their eval verdicts. */
export async function runsOfCommits(store: Store, commits: readonly string[]): Promise<RunEvidence[]> {
  const wanted = commits.map((c) => c.toLowerCase()).filter((c) => c.length >= 7);
  const rows = await store.db.selectFrom('runs').select(['run_id', 'commit_sha']).where('commit_sha', '!=', '').execute();
  const ids = rows
    .filter((r) => {
      const c = r.commit_sha.toLowerCase();
      return c.length >= 7 && wanted.some((w) => w.startsWith(c) || c.startsWith(w));
    })
    .map((r) => r.run_id);
  const out: RunEvidence[] = [];
  for (const id of [...new Set(ids)]) {
    const [row] = await runs(store, { run: id, limit: 1 });
    if (!row) continue;
    const evals = await evaluations(store, { run: id });
    out.push({
      runId: row.run_id,
      commit: row.commit_sha,
      status: row.status,
      url: row.url,
      points: row.points,
      successRate: row.success_rate,
      evals: evals.map((e) => ({ task: e.task, model: e.model_prefix, hardware: e.hardware, passed: e.passed })),
      regressions: regressionsOf(await compareRun(store, id)),
    });
  }
  return out;
}

/** A run's significant regressions against the official results, one line each: the point, the metric, the change and its interval. */
function regressionsOf(c: Comparison | undefined): string[] {
  return (c?.points ?? []).flatMap((p) =>
    Object.entries(p.metrics)
      .filter(([, d]) => d.verdict === 'regression')
      .map(([m, d]) => `${p.label} ${p.isl}/${p.osl} conc ${p.conc}: ${m} ${changeText(d)}`),
  );
}
