/**
 * `frontier ci plan`: for the event Actions is running, whether a sweep runs, how, and which
 * rows; the sweep files it writes are what `frontier run --matrix` takes.
 */
import { Command, Option } from 'commander';
import {
  changelogMatrix,
  changelogMatrixJson,
  changelogRows,
  checkChangelog,
  commitMessage,
  dirSnapshot,
  gitSnapshot,
} from '../changelog/index.js';
import type { ChangelogMatrix, Snapshot } from '../changelog/index.js';
import { dispatchedRange, planSweep, splitCanary } from '../ci/plan.js';
import { sweepPlanOutputs } from '../ci/plan-outputs.js';
import { DEFAULT_PRIORITY_POLICY } from '../ci/priority-policy.js';
import { queueJobs } from '../ci/queue-jobs.js';
import { rowsOf, sweepFiles, sweepJson } from '../ci/sweep-files.js';
import type { Sweep } from '../ci/sweep-files.js';
import type { SweepPlan } from '../ci/plan.js';
import type { GithubEvent } from '../ci/event.js';
import { formatSummary, isAgenticRow, summarizeMatrix } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { descriptiveSides } from '../review/index.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiDecision, CiFormat } from './ci-step.js';
import { requireDirectory } from './error.js';
import { runMatrix } from './matrix.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

/** GitHub's limit on the jobs one matrix expands to. */
export const MAX_MATRIX_JOBS = 256;

interface PlanOptions {
  event?: string;
  eventName?: string;
  format: CiFormat;
  base?: string;
  head?: string;
  baseDir?: string;
  headDir?: string;
  headMessage?: string;
  changelogCheck?: 'success' | 'failure';
  reuseAuthorized?: string;
  reuseSourceRun?: string;
  priorityPolicy: string;
  out?: string;
}

function sides(o: PlanOptions, event: GithubEvent): { base?: Snapshot; head: Snapshot; headRef?: string } {
  const pr = event.pullRequest;
  // A dispatch of a changelog range (an approved external pull request's) names both ends as commits.
  const range = dispatchedRange(event);
  const baseRef =
    o.base ?? (pr ? (pr.baseRef ? `origin/${pr.baseRef}` : undefined) : (range?.base ?? (event.before || undefined)));
  const headRef = o.head ?? (pr ? pr.headSha || undefined : (range?.head ?? (event.after || undefined)));
  const base = o.baseDir ? dirSnapshot(requireDirectory(o.baseDir, '--base-dir')) : baseRef ? gitSnapshot(baseRef) : undefined;
  if (o.headDir) return { base, head: dirSnapshot(requireDirectory(o.headDir, '--head-dir')) };
  return headRef ? { base, head: gitSnapshot(headRef), headRef } : { base, head: dirSnapshot('.') };
}

async function headMessageOf(o: PlanOptions, event: GithubEvent, headRef: string | undefined): Promise<string> {
  if (o.headMessage !== undefined) return o.headMessage;
  if (event.name === 'push') return event.headCommitMessage ?? '';
  if (event.name !== 'pull_request' || !headRef) return '';
  try {
    return await commitMessage(headRef);
  } catch (e) {
    throw new UserError(`cannot read the head commit ${headRef}: ${(e as Error).message}`, {
      hint: 'check out with fetch-depth: 0 so the head commit is here, or pass --head-message',
    });
  }
}

async function sweepOf(plan: SweepPlan, event: GithubEvent, base: Snapshot | undefined, head: Snapshot): Promise<Sweep> {
  if (event.name === 'workflow_dispatch' && !plan.changelogRange) {
    const command = (event.inputs?.['generate-cli-command'] ?? '').trim();
    if (!command)
      throw new UserError(
        'a workflow_dispatch sweep needs the input generate-cli-command, or changelog-base-ref and changelog-head-ref',
        {
          hint: 'e.g. "test-config --config-keys dsr1-fp8-b200-sglang" (the arguments of frontier matrix), or the two commits of a changelog range',
        },
      );
    const [sub, ...args] = command.split(/\s+/);
    if (sub !== 'full-sweep' && sub !== 'test-config')
      throw new UserError(`generate-cli-command ${JSON.stringify(command)}: starts with full-sweep or test-config`);
    return { kind: 'rows', rows: JSON.parse(await runMatrix(sub, args)) as MatrixRow[] };
  }
  if (!base)
    throw new UserError('the base revision is unknown', { hint: 'give --base <ref> or --base-dir <dir> (the event names none)' });
  const matrix = await changelogMatrix(base, head, {
    trimConc: plan.mode.trimConc,
    allEvals: plan.evals === 'all',
    evalsOnly: plan.evals === 'only',
  });
  // As the reference's jobs see it: its JSON, every row with its defaults filled in (eval-only: false, …).
  return { kind: 'changelog', matrix: JSON.parse(changelogMatrixJson(matrix)) as ChangelogMatrix };
}

function describe(plan: SweepPlan, sweep: Sweep | undefined, canary: MatrixRow | undefined): string {
  const lines = [
    `sweep: ${plan.run ? 'runs' : 'does not run'}${plan.run ? ` (${plan.official ? 'official' : 'unofficial'})` : ''}`,
  ];
  for (const r of plan.reasons) lines.push(`  why: ${r}`);
  if (plan.run) {
    const m = plan.mode;
    lines.push(
      `  mode: ${m.trimConc ? 'trimmed (one concurrency per recipe)' : 'full'} · ${m.canary ? 'canary first' : 'no canary'} · ${m.failFast ? 'fail-fast: a failed job cancels the rest of its job list' : 'every job runs to the end'}`,
      `  evals: ${{ default: "each entry's selection", all: 'all (all-evals)', only: 'evals only, no throughput (evals-only)' }[plan.evals]}`,
    );
    if (plan.agentxFast) lines.push('  agentic throughput jobs: fast variant (agentx-fast)');
    if (plan.skipQueue) lines.push('  queue: skipped (skip_queue)');
  }
  if (canary)
    lines.push(`  canary: ${canary['exp-name']} ${canary.runner} conc ${String(canary.conc)}; if it fails, nothing else runs`);
  else if (plan.run && plan.mode.canary)
    lines.push('  canary: none (no single-node fixed-sequence throughput row): the sweep starts at once');
  for (const n of plan.notes) lines.push(`  note: ${n}`);
  if (sweep) lines.push('', formatSummary(summarizeMatrix(rowsOf(sweep))));
  return `${lines.join('\n')}\n`;
}

export function ciPlanCommand(): Command {
  return withFormat(withEvent(new Command('plan')))
    .description(
      'decide what an event runs: whether a sweep runs, its mode, evals, official or not, its rows and canary, and why',
    )
    .option('--base <ref>', 'base revision (default: origin/<PR base> for a pull request, the push’s before)')
    .option('--head <ref>', 'head revision (default: the PR head commit, the push’s after)')
    .addOption(pathOption('--base-dir <dir>', 'base revision as a directory (instead of --base)', 'catalog'))
    .addOption(pathOption('--head-dir <dir>', 'head revision as a directory (instead of --head)', 'catalog'))
    .option('--head-message <text>', 'the head commit’s message (default: read with git)')
    .addOption(
      new Option(
        '--changelog-check <result>',
        'the perf-changelog check’s result, when a step before ran it (default: run it here)',
      ).choices(['success', 'failure']),
    )
    .option(
      '--reuse-authorized <bool>',
      'a /reuse-sweep-run authorizes reuse for this head (`ci reuse`’s skip-pr-sweep output)',
      'false',
    )
    .option(
      '--reuse-source-run <id>',
      'push: the earlier run whose results stand for this merge (`ci reuse`’s reuse-source-run-id)',
    )
    .addOption(
      pathOption(
        '--priority-policy <file>',
        'order the jobs by queue priority (`ci priority`), when the file exists',
        'catalog',
      ).default(DEFAULT_PRIORITY_POLICY),
    )
    .addOption(pathOption('--out <dir>', 'write sweep.json, canary.json and rest.json here (inputs of frontier run --matrix)'))
    .action(ciPlan);
}

async function ciPlan(o: PlanOptions): Promise<void> {
  const event = eventOf(o);
  const { base, head, headRef } = sides(o, event);
  const { plan, checkProblems } = await decide(o, event, base, head, headRef);
  // A reused run's sweep is still this change's: the results job checks the reused artifacts against it.
  const sweep = plan.run || plan.reuseSourceRun ? await sweepOf(plan, event, base, head) : undefined;
  const split = sweep?.kind === 'changelog' && plan.run && plan.mode.canary ? splitCanary(sweep.matrix) : undefined;
  const rows = sweep ? rowsOf(sweep) : [];
  if (plan.agentxFast && sweep && !rows.some(isAgenticRow))
    plan.notes.push('`agentx-fast` changes nothing: the sweep has no agentic rows');
  if (rows.length === 0 && plan.run) plan.notes.push('the change appends no changelog entry that sweeps anything');

  const toQueue = split ? changelogRows(split.remaining) : rows;
  const jobs = plan.run ? await queueJobs(toQueue, event, o.priorityPolicy, process.env) : [];
  if (jobs.length > MAX_MATRIX_JOBS)
    throw new UserError(`the sweep has ${jobs.length} jobs: a GitHub job matrix holds at most ${MAX_MATRIX_JOBS}`, {
      hint: 'split the change into pull requests of fewer configs, or trim it (sweep-enabled)',
    });
  const json = sweepJson(sweep, split);
  if (o.out && sweep) writeFilesAtomic(sweepFiles(o.out, sweep, json), { mkdir: true });
  const text = describe(plan, sweep, split?.canary) + checkProblems.map((p) => `  changelog: ${p}\n`).join('');
  const decision: CiDecision = {
    text,
    json: { ...plan, changelogProblems: checkProblems, rows: rows.length, canary: split?.canary ?? null },
    outputs: sweepPlanOutputs(plan, split, jobs, json),
    exitCode: plan.check === 'failure' ? ExitCode.FAILED : ExitCode.OK,
  };
  emit(decision, o.format);
}

/** The plan, after the changelog check when no step before ran it (and there is a base to check against). */
async function decide(
  o: PlanOptions,
  event: GithubEvent,
  base: Snapshot | undefined,
  head: Snapshot,
  headRef: string | undefined,
): Promise<{ plan: SweepPlan; checkProblems: string[] }> {
  const input = {
    event,
    headMessage: await headMessageOf(o, event, headRef),
    reuseAuthorized: o.reuseAuthorized === 'true',
    reuseSourceRun: o.reuseSourceRun || undefined,
  };
  const plan = planSweep({ ...input, changelog: o.changelogCheck ?? 'success' });
  if (plan.check !== 'success' || o.changelogCheck || !base) return { plan, checkProblems: [] };
  // Entries link to this repository's pull requests (InferenceX's when the event names none).
  const report = await checkChangelog(base, head, {
    pr: event.pullRequest?.number,
    repository: event.repository || undefined,
    descriptive: descriptiveSides(base, head),
  });
  const checkProblems = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.file}:${p.line}: ${p.message}`);
  return { plan: planSweep({ ...input, changelog: report.ok ? 'success' : 'failure' }), checkProblems };
}
