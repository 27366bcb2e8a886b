/**
 * `frontier ci reuse decide`: may this event reuse an earlier pull-request sweep
 * (`/reuse-sweep-run [run id]`)? `frontier ci reuse validate`: are the downloaded artifacts of the
 * source run consistent enough to publish? The GitHub API's answers come in as recorded files.
 */
import { resolve } from 'node:path';
import { readJsonFile } from '../util/json-file.js';
import { Command } from 'commander';
import type { ReuseDecision } from '../ci/reuse/index.js';
import {
  RECORD_FILES,
  applyDedupePlan,
  decideReuse,
  dedupeRerunEvals,
  downloadCommand,
  expectedFixedIdentities,
  fixedRows,
  ingestCommand,
  matrixCoverage,
  readArtifactSet,
  recordedGithub,
  reuseOutputs,
  validateArtifacts,
  validateCommand,
} from '../ci/reuse/index.js';
import type { MatrixCoverage, RecordFiles } from '../ci/reuse/index.js';
import { identityRepr } from '../ci/reuse/py-repr.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiDecision, CiFormat } from './ci-step.js';
import { pathOption } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

interface DecideOptions extends Omit<RecordFiles, 'dir'> {
  event?: string;
  eventName?: string;
  format: CiFormat;
  github?: string;
  runId?: string;
  artifactsDir: string;
  workflowId: string;
}

function decisionWords(d: ReuseDecision): string {
  if (d.enabled) return d.event === 'issue_comment' ? 'reuse will be honoured at merge' : 'reuse the source run';
  if (d.skipPrSweep) return 'skip this PR sweep';
  return d.refusal?.failClosed ? 'refused (fails closed)' : 'no reuse';
}

export function reuseDecision(d: ReuseDecision, thisRunId: string | undefined, artifactsDir: string): CiDecision {
  const lines = [`reuse: ${decisionWords(d)}${d.refusal ? ` [${d.refusal.code}]` : ''}`, `  ${d.reason}`];
  let followUp: string[] | undefined;
  if (d.refusal) lines.push(`  hint: ${d.refusal.hint}`);
  if (d.source) {
    const s = d.source;
    lines.push(`  source run: ${s.runId} (attempt ${s.runAttempt}${s.pinned ? ', pinned' : ''}) ${s.runUrl}`.trimEnd());
    lines.push(`  source commit: ${s.headSha} (PR #${s.prNumber})`);
    followUp = [downloadCommand(s, artifactsDir), validateCommand(artifactsDir), ingestCommand(s, thisRunId, artifactsDir)];
    lines.push('  then:', ...followUp.map((c) => `    ${c}`));
  }
  const outputs = reuseOutputs(d);
  const json = {
    event: d.event,
    decision: d.enabled ? 'reuse' : d.skipPrSweep ? 'skip-pr-sweep' : d.refusal?.failClosed ? 'refused' : 'no-reuse',
    enabled: d.enabled,
    skip_pr_sweep: d.skipPrSweep,
    reason: d.reason,
    ...(d.refusal ? { code: d.refusal.code, hint: d.refusal.hint, fail_closed: d.refusal.failClosed } : {}),
    ...(d.prNumber !== undefined ? { pr_number: d.prNumber } : {}),
    ...(d.source
      ? {
          source: {
            run_id: d.source.runId,
            run_attempt: d.source.runAttempt,
            run_url: d.source.runUrl,
            head_sha: d.source.headSha,
            pr_number: d.source.prNumber,
            pinned: d.source.pinned,
          },
          follow_up: followUp,
          ingest_command: followUp![2],
        }
      : {}),
    outputs,
  };
  return { text: lines.join('\n'), json, outputs, exitCode: d.refusal?.failClosed ? ExitCode.FAILED : ExitCode.OK };
}

function decideCommand(): Command {
  const cmd = new Command('decide').description(
    'may this event reuse an earlier PR sweep? pull_request synchronize: the reuse gate; push to main: the source run; issue_comment: will the /reuse-sweep-run comment be honoured',
  );
  withEvent(cmd);
  withFormat(cmd);
  cmd
    .addOption(
      pathOption(
        '--github <dir>',
        `recorded GitHub API answers: ${Object.values(RECORD_FILES)
          .map((f) => f.file)
          .join(', ')} (per-PR or per-run variants: pr-N.json, comments-N.json, commits-N.json, runs-ID.json, artifacts-ID.json)`,
      ),
    )
    .addOption(pathOption('--pulls <file>', 'GET /repos/R/commits/SHA/pulls (push)'))
    .addOption(pathOption('--pr <file>', 'GET /repos/R/pulls/N'))
    .addOption(pathOption('--comments <file>', 'GET /repos/R/issues/N/comments'))
    .addOption(pathOption('--commits <file>', 'GET /repos/R/pulls/N/commits'))
    .addOption(
      pathOption(
        '--runs <file>',
        'GET /repos/R/actions/workflows/run-sweep.yml/runs (the PR branch’s completed pull_request runs)',
      ),
    )
    .addOption(
      pathOption(
        '--artifacts <file>',
        'GET /repos/R/actions/runs/ID/artifacts (any number of runs: each artifact names its run)',
      ),
    )
    .option('--run-id <id>', 'this (merge) run’s id, for the ingest command (default: $GITHUB_RUN_ID)')
    .addOption(
      pathOption('--artifacts-dir <dir>', 'where the source run’s artifacts are downloaded, for the follow-up commands').default(
        'reuse-artifacts',
      ),
    )
    .option('--workflow-id <file>', 'the sweep workflow', 'run-sweep.yml')
    .action((o: DecideOptions) => {
      const event = eventOf(o);
      const github = recordedGithub({
        dir: o.github,
        pulls: o.pulls,
        pr: o.pr,
        comments: o.comments,
        commits: o.commits,
        runs: o.runs,
        artifacts: o.artifacts,
      });
      const d = decideReuse(event, github, { workflowId: o.workflowId });
      const runId = o.runId ?? (process.env.GITHUB_RUN_ID || undefined);
      emit(reuseDecision(d, event.name === 'issue_comment' ? undefined : runId, o.artifactsDir), o.format);
    });
  return cmd;
}

interface ValidateOptions {
  format: CiFormat;
  artifactsDir: string;
  matrix?: string;
  dryRun?: boolean;
}

const readMatrix = (file: string): unknown =>
  readJsonFile(file, { what: `--matrix ${file}`, hint: 'pass what `frontier changelog matrix` prints' });

function coverageLines(c: MatrixCoverage): string[] {
  const lines = [
    `matrix coverage: ${c.present} of ${c.expected} expected fixed-sequence point(s) present${c.absent.length > 0 ? ' (partial: absent points are not published)' : ''}`,
  ];
  for (const id of c.absent.slice(0, 20)) lines.push(`  absent: ${identityRepr(id)}`);
  if (c.absent.length > 20) lines.push(`  ... and ${c.absent.length - 20} more`);
  if (c.extra.length > 0)
    lines.push(`  ${c.extra.length} result row(s) not in the matrix (the matrix changed since the source run; they are kept)`);
  return lines;
}

function validateSubcommand(): Command {
  const cmd = new Command('validate').description(
    'check a reused run’s downloaded artifacts: no duplicate points, aggregates that match their points, raw artifacts, run stats; reran evals are collapsed to the latest result first',
  );
  withFormat(cmd);
  cmd
    .addOption(
      pathOption('--artifacts-dir <dir>', 'the source run’s artifacts (gh run download RUN_ID -D DIR)').makeOptionMandatory(),
    )
    .addOption(
      pathOption(
        '--matrix <file>',
        'the sweep matrix (`frontier changelog matrix` output): report how much of it the artifacts cover',
      ),
    )
    .option('--dry-run', 'collapse reran evals in memory only; leave the files as they are')
    .action((o: ValidateOptions) => {
      const root = resolve(o.artifactsDir);
      const { plan, after } = dedupeRerunEvals(readArtifactSet(root));
      if (!o.dryRun) applyDedupePlan(root, plan);
      const v = validateArtifacts(after);
      const coverage =
        o.matrix === undefined ? undefined : matrixCoverage(expectedFixedIdentities(readMatrix(o.matrix)), fixedRows(after));
      const lines: string[] = [];
      if (plan.messages.length > 0) {
        lines.push(`${o.dryRun ? 'Would collapse' : 'Collapsed'} reran eval duplicates (kept latest result per identity):`);
        lines.push(...plan.messages.map((m) => `  ${m}`));
      }
      if (v.ok)
        lines.push(
          `Reusable sweep artifacts validated: ${v.counts.fixed} fixed-sequence row(s), ${v.counts.agentic} agentic row(s), ${v.counts.eval} eval row(s).`,
        );
      else {
        lines.push('Reusable sweep artifact validation failed:');
        for (const p of v.problems)
          lines.push(`[${p.code}] ${p.message}`, ...p.details.map((d) => `  ${d}`), `  hint: ${p.hint}`);
      }
      if (coverage) lines.push(...coverageLines(coverage));
      const json = {
        ok: v.ok,
        counts: v.counts,
        problems: v.problems,
        deduped: {
          applied: !o.dryRun,
          messages: plan.messages,
          removed_dirs: plan.removeDirs,
          removed_files: plan.removeFiles,
          rewritten: plan.rewrite.map((r) => r.path),
        },
        ...(coverage
          ? {
              coverage: {
                expected: coverage.expected,
                present: coverage.present,
                absent: coverage.absent.map(identityRepr),
                extra: coverage.extra.map(identityRepr),
              },
            }
          : {}),
      };
      emit(
        {
          text: lines.join('\n'),
          json,
          outputs: { 'reuse-artifacts-valid': v.ok ? 'true' : 'false' },
          exitCode: v.ok ? ExitCode.OK : ExitCode.FAILED,
        },
        o.format,
      );
    });
  return cmd;
}

export function reuseCommand(): Command {
  return new Command('reuse')
    .description('/reuse-sweep-run: publish an approved PR sweep at merge instead of sweeping again')
    .addCommand(decideCommand())
    .addCommand(validateSubcommand());
}
