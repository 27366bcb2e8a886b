import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gitSnapshot, sweepOptOut } from '../changelog/index.js';
import type { NoSweep } from '../changelog/index.js';
import { reviewTrees } from './run.js';
import type { LintOptions, ReviewedFinding } from './run.js';
import { loadTree } from './tree.js';
import type { Tree } from './tree.js';
import { UserError } from '../util/user-error.js';

const run = promisify(execFile);

/**
 * `frontier review --each`: review every first-parent commit of a range as if it were the pull
 * request that made it (its first parent is the base), to see what the gate would have said over
 * a team's own history. Each commit's tree is loaded once: it is the head of one review and the
 * base of the next.
 */

export interface CommitReview {
  commit: string;
  subject: string;
  /** The pull request the commit names (`… (#123)`), judged as that pull request's change. */
  pr?: number | undefined;
  /** The commit message's opt-out of the sweep (`[skip-sweep]`, `no-sweep: <reason>`). */
  noSweep?: NoSweep | undefined;
  ok: boolean;
  /** The commit's own findings. */
  findings: ReviewedFinding[];
  seconds: number;
}

async function git(repo: string, args: string[]): Promise<string> {
  try {
    return (await run('git', args, { cwd: repo, maxBuffer: 64 << 20 })).stdout;
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    throw new UserError(`git ${args.join(' ')}: ${stderr || (e as Error).message}`);
  }
}

/** The first-parent commits of `A..B`, or the last `n` of `ref`, oldest first (root commits left out: they have no base). */
export async function firstParentCommits(
  repo: string,
  which: { range: string } | { last: number; ref?: string },
): Promise<string[]> {
  const args =
    'range' in which
      ? [which.range.includes('..') ? which.range : `${which.range}..HEAD`]
      : ['-n', String(which.last), which.ref ?? 'HEAD'];
  const out = await git(repo, ['rev-list', '--first-parent', '--reverse', '--parents', ...args]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .filter((shas) => shas.length > 1)
    .map(([sha]) => sha!);
}

/** Review each commit (full shas, as firstParentCommits gives them) against its first parent, in order. */
export async function* reviewEach(
  repo: string,
  commits: readonly string[],
  options: LintOptions = {},
): AsyncGenerator<CommitReview> {
  let previous: { commit: string; tree: Tree } | undefined;
  for (const commit of commits) {
    const started = performance.now();
    const info = await git(repo, ['log', '-1', '--abbrev=9', '--format=%P%x00%p%x00%h%x00%s%x00%B', commit]);
    const [parents = '', shortParents = '', label = '', subject = '', message = ''] = info.split('\0');
    const parent = parents.split(' ')[0]!;
    const baseTree =
      previous?.commit === parent
        ? previous.tree
        : await loadTree(gitSnapshot(shortParents.split(' ')[0]!, repo), { ...options, reuse: previous?.tree });
    const headTree = await loadTree(gitSnapshot(label, repo), { ...options, reuse: baseTree });
    const number = /\(#(\d+)\)\s*$/.exec(subject)?.[1];
    const pr = number === undefined ? undefined : Number(number);
    const noSweep = sweepOptOut(message, `commit ${label}`);
    const report = await reviewTrees(baseTree, headTree, { pr, noSweep });
    previous = { commit, tree: headTree };
    yield {
      commit: label,
      subject,
      pr,
      noSweep,
      ok: report.ok,
      findings: report.findings.filter((f) => f.status === 'new'),
      seconds: (performance.now() - started) / 1000,
    };
  }
}
