/**
 * `frontier ci success-rate` (run_stats.json from the workflow run's jobs or a run directory) and
 * `frontier ci comment` (the sweep's summary comment on its pull request). The store loads only
 * when `comment` runs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readJsonFile } from '../util/json-file.js';
import { Command, Option } from 'commander';
import { parseYaml } from '../catalog/index.js';
import { RunDir } from '../launch/run-dir.js';
import type { RunManifest } from '../launch/run-dir.js';
import { matrixRowsOf, ranFromManifest, ranFromMatrix } from '../ci/ran.js';
import {
  hardwareLabels,
  runnerLabelBuckets,
  manifestRunStats,
  overallRate,
  parseWorkflowJobs,
  runStatsJson,
  successRateTable,
  successRates,
} from '../ci/success-rate.js';
import type { RunStats, WorkflowJob } from '../ci/success-rate.js';
import { pyFixed } from '../pycompat/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { emit, eventOf, withEvent, withFormat } from './ci-step.js';
import type { CiFormat } from './ci-step.js';
import { verdictOptions, verdictSettingsOf } from './options.js';
import { pathOption, userPath } from './paths.js';

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function readHardwareLabels(path: string): Promise<{ labels: string[]; runnerBuckets: Map<string, string> }> {
  const doc = await parseYaml(readText(path, 'the runner config'), path);
  if (doc.problems.some((p) => p.severity === 'error'))
    throw new UserError(`${path}: not readable YAML: ${doc.problems[0]!.message}`, {
      hint: 'fix the file, or pass --runner-config',
    });
  return { labels: hardwareLabels(doc.value), runnerBuckets: runnerLabelBuckets(doc.value) };
}

function readManifest(dir: string): RunManifest {
  const m = new RunDir(dir).readManifest();
  if (!m)
    throw new UserError(`${dir}: no run.json, so not a run directory`, { hint: 'give the --out directory of a frontier run' });
  return m;
}

const readJobs = (path: string): WorkflowJob[] => parseWorkflowJobs(readText(path, 'the jobs file'), path);

/** The success rate from the jobs JSON (as the reference) or, without one, the run directory's manifest. */
async function statsOf(o: {
  jobs?: string;
  runDir?: string;
  runnerConfig: string;
  runnerLabels?: boolean;
}): Promise<{ source: string; stats: RunStats } | undefined> {
  if (o.jobs) {
    const { labels, runnerBuckets } = await readHardwareLabels(o.runnerConfig);
    const stats = successRates(readJobs(o.jobs), labels, o.runnerLabels ? runnerBuckets : undefined);
    return { source: `the workflow run's jobs (${o.jobs})`, stats };
  }
  if (o.runDir) return { source: `the run directory's manifest (${o.runDir})`, stats: manifestRunStats(readManifest(o.runDir)) };
  return undefined;
}

const rateText = (stats: RunStats): string => {
  const r = overallRate(stats);
  return r.pct === undefined ? '' : pyFixed(r.pct, 2);
};

const jobsOption = () =>
  pathOption(
    '--jobs <file>',
    'the workflow run\'s jobs, recorded: gh api --paginate --slurp "repos/O/R/actions/runs/ID/jobs?filter=all&per_page=100"',
  );
const runDirOption = () => pathOption('--run-dir <dir>', 'a frontier run directory (its run.json)');
const runnerLabelsOption = () =>
  new Option(
    '--runner-labels',
    'also count a job named by a runner label (as Frontier’s benchmark jobs are) for the one cluster holding all its nodes',
  );
const runnerConfigOption = () =>
  pathOption('--runner-config <path>', 'runners.yaml: its cluster: labels are the hardware buckets', 'catalog').default(
    'configs/runners.yaml',
  );

function successRateCommand(): Command {
  return withFormat(
    new Command('success-rate')
      .description('per-hardware job success of a sweep (calc_success_rate.py): writes run_stats.json, prints the table')
      .addOption(jobsOption())
      .addOption(runDirOption())
      .addOption(runnerConfigOption())
      .addOption(runnerLabelsOption())
      .addOption(pathOption('--out <file>', 'the run_stats JSON to write').default('run_stats.json')),
  ).action(
    async (o: {
      jobs?: string;
      runDir?: string;
      runnerConfig: string;
      runnerLabels?: boolean;
      out: string;
      format: CiFormat;
    }) => {
      const found = await statsOf(o);
      if (!found)
        throw new UserError('nothing to count', { hint: 'give --jobs FILE (the workflow run’s jobs) or --run-dir DIR' });
      writeFileAtomic(resolve(o.out), runStatsJson(found.stats), { mkdir: true });
      const r = overallRate(found.stats);
      emit(
        {
          text: successRateTable(found.stats),
          json: {
            source: found.source,
            file: o.out,
            n_success: r.n_success,
            total: r.total,
            pct: r.pct ?? null,
            by_hardware: found.stats,
          },
          outputs: { 'run-stats-file': o.out, 'success-rate': rateText(found.stats) },
        },
        o.format,
      );
    },
  );
}

interface CommentOptions {
  event?: string;
  eventName?: string;
  runId: string;
  runDir?: string;
  matrix?: string;
  jobs?: string;
  runnerConfig: string;
  runnerLabels?: boolean;
  db?: string;
  dashboardUrl?: string;
  minEffect: number;
  alpha: number;
  threshold?: number;
  commentFile: string;
  format: CiFormat;
}

function pullRequestOf(o: CommentOptions): { number: number; headSha: string } | undefined {
  if (!(o.event ?? process.env.GITHUB_EVENT_PATH)) return undefined;
  const pr = eventOf(o).pullRequest;
  return pr ? { number: pr.number, headSha: pr.headSha } : undefined;
}

function ranOf(o: CommentOptions) {
  if (o.runDir) return { source: 'run directory' as const, rows: ranFromManifest(readManifest(o.runDir)) };
  if (!o.matrix) return undefined;
  const doc = readJsonFile(o.matrix, { what: `--matrix ${o.matrix}` });
  return { source: 'matrix' as const, rows: ranFromMatrix(matrixRowsOf(doc, o.matrix)) };
}

function commentCommand(): Command {
  const command = withFormat(
    withEvent(
      new Command('comment')
        .description(
          'the sweep summary comment for its pull request: what ran, canary, success rate, comparison, evals, dashboard links',
        )
        .requiredOption('--run-id <id>', 'the run, as ingested into the store')
        .addOption(runDirOption())
        .addOption(pathOption('--matrix <file>', 'the sweep matrix JSON (what was asked), when there is no run directory'))
        .addOption(jobsOption())
        .addOption(runnerConfigOption())
        .addOption(runnerLabelsOption())
        .addOption(
          pathOption(
            '--db <location>',
            'the store: a SQLite file or a postgres:// URL (default $FRONTIER_DB, else ./frontier.db)',
          ),
        )
        .option('--dashboard-url <url>', 'the dashboard, for links to this run (default $FRONTIER_DASHBOARD_URL)')
        .addOption(pathOption('--comment-file <file>', 'where to write the comment markdown').default('sweep-summary.md')),
    ),
  );
  for (const option of verdictOptions()) command.addOption(option);
  return command.action(async (o: CommentOptions) => {
    const pullRequest = pullRequestOf(o);
    const ran = ranOf(o);
    const jobs = o.jobs ? readJobs(o.jobs) : undefined;
    let runStats = await statsOf(o);
    const { openStore, storeLocation, compareRun, evaluations, run } = await import('../store/index.js');
    const { commentMarkdown, commentSummary } = await import('../ci/comment.js');
    let store;
    try {
      store = await openStore(userPath(storeLocation(o.db)));
    } catch (e) {
      throw new UserError((e as Error).message);
    }
    try {
      const comparison = await compareRun(store, o.runId, verdictSettingsOf(o));
      if (!comparison)
        throw new UserError(`no run ${o.runId} in ${store.location}`, {
          hint: `ingest it first: frontier ingest DIR --run-id ${o.runId}`,
        });
      if (!runStats) {
        const stored = (await run(store, o.runId))?.run_stats ?? [];
        if (stored.length > 0)
          runStats = {
            source: 'the stored run_stats',
            stats: Object.fromEntries(stored.map((s) => [s.hardware, { n_success: s.n_success, total: s.total }])),
          };
      }
      const dashboardUrl = o.dashboardUrl ?? (process.env.FRONTIER_DASHBOARD_URL || undefined);
      const summary = commentSummary({
        runId: o.runId,
        pullRequest,
        ran,
        jobs,
        runStats,
        comparison,
        evals: await evaluations(store, { run: o.runId }),
        dashboardUrl,
      });
      const markdown = commentMarkdown(summary, comparison);
      writeFileAtomic(resolve(o.commentFile), markdown, { mkdir: true });
      emit(
        {
          text: markdown,
          json: { ...summary, comment_file: o.commentFile },
          outputs: { 'comment-file': o.commentFile, 'success-rate': runStats ? rateText(runStats.stats) : '' },
        },
        o.format,
      );
    } finally {
      await store.close();
    }
  });
}

/** The commands `frontier ci` adds from here. */
export function ciCommentCommands(): Command[] {
  return [successRateCommand(), commentCommand()];
}
