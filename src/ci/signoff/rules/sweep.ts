import type { RunEvidence } from '../input.js';
import { fail, pass } from '../rule.js';
import type { SignoffContext, SignoffRule } from '../rule.js';

/** A stored commit and a PR commit are the same when one is a prefix of the other (stores may keep short SHAs). */
const sameCommit = (a: string, b: string): boolean =>
  a.length >= 7 && b.length >= 7 && (a.toLowerCase().startsWith(b.toLowerCase()) || b.toLowerCase().startsWith(a.toLowerCase()));

const inPr = (context: SignoffContext, run: RunEvidence): boolean => context.pr.commits.some((c) => sameCommit(c, run.commit));

/**
 * A run that executed and succeeded: completed, with points, every job green (or no job stats
 * recorded), and no point significantly worse than the official results (an inconclusive change is not a regression).
 */
export const isGreen = (run: RunEvidence): boolean =>
  run.status === 'completed' &&
  run.points > 0 &&
  (run.successRate === null || run.successRate === 1) &&
  run.regressions.length === 0;

const evalsPass = (run: RunEvidence): boolean => run.evals.length > 0 && run.evals.every((e) => e.passed === true);

const describe = (run: RunEvidence): string => `run ${run.runId} on ${run.commit.slice(0, 12)}${run.url ? ` (${run.url})` : ''}`;

function why(run: RunEvidence): string {
  if (run.status !== 'completed') return `status ${run.status}`;
  if (run.points === 0) return 'no benchmark points';
  if (run.successRate !== null && run.successRate !== 1) return `${Math.round(run.successRate * 100)}% of its jobs succeeded`;
  const more = run.regressions.length > 3 ? ` and ${run.regressions.length - 3} more` : '';
  return `${run.regressions.length} significant regression${run.regressions.length === 1 ? '' : 's'} against the official results: ${run.regressions.slice(0, 3).join('; ')}${more}`;
}

function greenRuns(context: SignoffContext): RunEvidence[] | string {
  if (context.runs === undefined) return 'no store was read';
  if (context.pr.commits.length === 0) return 'the pull request has no commits to look for';
  return context.runs.filter((r) => inPr(context, r) && isGreen(r));
}

export const greenSweepRule: SignoffRule = {
  id: 'signoff/green-sweep',
  checkNumber: 1,
  name: 'green sweep',
  severity: 'error',
  description:
    'a run in the store measured a commit currently in the PR, succeeded on every job, and regressed no point significantly',
  explanation:
    "The merge reuses a sweep only when its commit is still part of the pull request, so a sweep on a commit rebased away does not count. A run counts when its commit is one of the PR's commits, it completed, stored points, every job of its run stats succeeded, and no point is a significant regression against the official results (frontier compare's verdicts: noise and inconclusive changes do not count). Fix: run a full sweep on a commit of the PR (or re-anchor one with /reuse-sweep-run) and ingest it.",
  check(context) {
    const green = greenRuns(context);
    if (typeof green === 'string')
      return fail(`cannot be verified: ${green}`, [
        { message: `cannot be verified: ${green}`, hint: 'give --db (the store) and --commits FILE or --base/--head' },
      ]);
    if (green.length > 0) return pass(`${describe(green[0]!)} is green`);
    const tried = context.runs!.filter((r) => inPr(context, r));
    return fail('no passing sweep was found on any commit in this PR', [
      {
        message: 'no passing sweep was found on any commit in this PR',
        hint: 'run a full sweep on a commit of this PR and ingest it into the store',
      },
      ...tried.map((r) => ({ severity: 'error' as const, message: `${describe(r)} is not green: ${why(r)}` })),
    ]);
  },
};

export const evalsRule: SignoffRule = {
  id: 'signoff/evals',
  checkNumber: 2,
  name: 'evals',
  severity: 'error',
  description: 'a green run of a PR commit stored eval results, and every one passed its threshold',
  explanation:
    'A green job is not enough: the eval scores must be present and at or above the threshold recorded with them at ingest. An eval without a threshold (passed unknown) does not count. Fix: run the evals on the green sweep (or fix the accuracy regression they show).',
  check(context) {
    const green = greenRuns(context);
    if (typeof green === 'string')
      return fail(`cannot be verified: ${green}`, [
        { message: `cannot be verified: ${green}`, hint: 'give --db (the store) and --commits FILE or --base/--head' },
      ]);
    if (green.length === 0)
      return fail('no green sweep on a commit of this PR to read evals from', [
        { message: 'no green sweep on a commit of this PR to read evals from' },
      ]);
    const passing = green.find(evalsPass);
    if (passing) return pass(`${passing.evals.length} eval(s) of ${describe(passing)} pass`);
    return fail(
      'no green sweep of this PR has passing evals',
      green.map((r) => {
        const failed = r.evals.filter((e) => e.passed !== true);
        return {
          message:
            r.evals.length === 0
              ? `${describe(r)} stored no eval results`
              : `${describe(r)}: ${failed.length} of ${r.evals.length} eval(s) did not pass (${failed
                  .slice(0, 3)
                  .map((e) => `${e.task} ${e.model} ${e.hardware}${e.passed === null ? ' without a threshold' : ''}`)
                  .join(', ')})`,
        };
      }),
    );
  },
};

const AUTHORIZED = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);
const REUSE = /^\s*\/reuse-sweep-run(?:\s+\S+)?\s*$/m;

export const reuseCommandRule: SignoffRule = {
  id: 'signoff/reuse-command',
  checkNumber: 4,
  name: 'reuse command',
  severity: 'error',
  description: 'an authorized maintainer (OWNER, MEMBER, COLLABORATOR) commented /reuse-sweep-run on the PR',
  explanation:
    'The merge path reuses the green sweep only when an authorized maintainer posted `/reuse-sweep-run` (bare or with a run id) at the start of a comment line; a green sweep alone is not enough, and the command from an outside contributor does not count. Fix: an authorized maintainer comments `/reuse-sweep-run`.',
  check(context) {
    const comments = [...(context.comments ?? []), context.comment];
    const commands = comments.filter((c) => REUSE.test(c.body));
    const authorized = commands.find((c) => AUTHORIZED.has(c.association.toUpperCase()));
    if (authorized) return pass(`@${authorized.author} (${authorized.association}) posted /reuse-sweep-run`);
    if (context.comments === undefined)
      return fail('cannot be verified: the PR comments were not given', [
        {
          message: 'the PR comments were not given',
          hint: 'give --comments FILE (gh api repos/O/R/issues/N/comments --paginate)',
        },
      ]);
    return fail('no authorized /reuse-sweep-run command has been posted on this PR', [
      {
        message:
          commands.length > 0
            ? `/reuse-sweep-run was posted only by ${commands.map((c) => `@${c.author} (${c.association || 'no association'})`).join(', ')}, who may not trigger reuse`
            : 'no /reuse-sweep-run comment on this PR',
        hint: 'an authorized maintainer (OWNER, MEMBER or COLLABORATOR) comments /reuse-sweep-run before the merge',
      },
    ]);
  },
};
