/**
 * The store's commands: `ingest`, `serve`, `token`, `compare`, `nodes`, `store` (dump, restore). The store, its drivers and
 * the HTTP server load only when one of these runs.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { DEFAULT_MAX_UPLOAD_MB } from '../api/uploads.js';
import type { IngestSummary, RowCounts } from '../store/index.js';
import { isIsoDate } from '../util/date.js';
import { POSITIVE_INT, formatOption, jsonAlias, parseNumber, verdictOptions, verdictSettingsOf } from './options.js';
import type { VerdictFlags } from './options.js';
import { UserError } from '../util/user-error.js';
import { pathArgument, pathOption, userPath } from './paths.js';
import { SWEEP_WORKFLOW } from '../ci/workflows/index.js';
import { ExitCode } from '../util/exit-codes.js';
import { dbOption, openDb } from './store-location.js';

/** The eval thresholds InferenceX uses, to record pass or fail with each eval row. */
async function referenceThresholdOf() {
  const { DEFAULT_MIN_SCORE, floatThreshold, referenceThresholds, resolveThreshold } = await import('../evals/index.js');
  const config = referenceThresholds();
  return (prefix: string, task: string) =>
    resolveThreshold(config, prefix, task, floatThreshold(DEFAULT_MIN_SCORE)).threshold.value;
}

/** The built dashboard next to the bundled CLI (dist/web), when it was built. */
function dashboardDir(): string | undefined {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'web');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

const positiveInt = (flag: string) => (value: string) => parseNumber(flag, value, POSITIVE_INT);

const isoDate = (flag: string) => (value: string) => {
  if (!isIsoDate(value)) throw new UserError(`${flag} ${value}: expected a date that exists, YYYY-MM-DD`);
  return value;
};

/** A run field's value in the ingest report: yes/no, a list, or (none). */
function shown(v: string | boolean | string[]): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  const text = Array.isArray(v) ? v.join(', ') : v;
  return text === '' ? '(none)' : text;
}

const channelWords = (s: IngestSummary): string =>
  s.staged ? `staged for PR #${s.staged.pr} by ${s.staged.by}, not official` : s.official ? 'official' : 'unofficial';

/** What ingest did (or would do, dry): the rows by kind, and what changed in the run. */
function ingestSummary(s: IngestSummary, location: string): string {
  const verb = s.dry_run ? 'would ingest' : 'ingested';
  const counts = (c: RowCounts) =>
    `${c.total} (${c.new} new${c.changed ? `, ${c.changed} changed` : ''}${c.removed ? `, ${c.removed} removed` : ''})`;
  const lines = [
    `${verb} run ${s.run_id} (attempt ${s.attempt}, ${channelWords(s)}, ${s.date}) into ${location}`,
    `  points: ${counts(s.benchmarks)}`,
    ...(s.agentic.total + s.agentic.removed > 0 ? [`  agentic points: ${counts(s.agentic)}`] : []),
    ...(s.power.valid + s.power.invalid > 0
      ? [
          `  power: ${s.power.valid} valid${s.power.modelled > 0 ? ` (${s.power.modelled} modelled by the simulated engine)` : ''}, ` +
            `${s.power.invalid} not valid${s.power.none > 0 ? `, ${s.power.none} without a verdict` : ''}`,
        ]
      : []),
    `  evals: ${counts(s.evals)}`,
    `  configs: ${s.configs.total} (${s.configs.new} new); run stats: ${s.run_stats} hardware; changelog entries: ${s.changelog}`,
  ];
  if (s.attempts.infrastructure > 0)
    lines.push(
      `  launch attempts: ${s.attempts.total} (${s.attempts.infrastructure} failed for infrastructure reasons: frontier nodes lists the nodes that keep failing)`,
    );
  if (s.replaced_attempt !== undefined) lines.push(`  replaced attempt ${s.replaced_attempt}`);
  if (s.run_changes.length > 0)
    lines.push(`  run changed: ${s.run_changes.map((c) => `${c.field}: ${shown(c.from)} → ${shown(c.to)}`).join(', ')}`);
  const rows = [s.benchmarks, s.agentic, s.evals].reduce((n, c) => n + c.new + c.changed + c.removed, 0);
  if (!s.dry_run && rows === 0 && s.replaced_attempt === undefined && s.run_changes.length === 0)
    lines.push('  (already stored: nothing changed)');
  return `${lines.join('\n')}\n`;
}

function ingestCommand(): Command {
  return new Command('ingest')
    .description('load a run directory (frontier run) or an InferenceX artifact set into the store; all or nothing, idempotent')
    .addArgument(pathArgument('<dir>', 'the directory'))
    .addOption(dbOption())
    .option('--official', 'the run is official (its points feed the frontier)')
    .option('--unofficial', 'the run is unofficial (a PR run; the default)')
    .option(
      '--stage <pr>',
      'stage the run for this pull request (/stage-results): kept apart from official and unofficial runs, seen only where asked for',
      positiveInt('--stage'),
    )
    .option('--staged-by <login>', 'with --stage: who staged it (default $GITHUB_ACTOR)')
    .option('--run-id <id>', 'the run id (required for an InferenceX artifact set: the GitHub run id)')
    .option('--attempt <n>', 'the run attempt; a later attempt replaces an earlier one (default 1)', positiveInt('--attempt'))
    .option('--source-run <id>', 'reuse: these are this run’s results, merged by --run-id')
    .option('--date <YYYY-MM-DD>', 'the results’ date (default: when the run started, else today)', isoDate('--date'))
    .option('--branch <name>', 'the branch the run measured')
    .option('--commit <sha>', 'the commit the run measured')
    .option('--label <label...>', 'labels of the run')
    .option('--url <url>', 'a link to the run (CI page)')
    .option('--dry-run', 'check everything and print what would change; write nothing')
    .option(
      '--recover',
      'recover a failed ingest of a sweep run (--run-id), or of a merge run that reused one (--run-id MERGE --source-run PR_RUN), from its downloaded artifacts and recorded gh api answers (--github)',
    )
    .addOption(
      pathOption(
        '--github <dir>',
        '--recover: recorded gh api answers: runs-ID.json, jobs-ID.json, artifacts-ID.json (reused: also pulls.json, pr-N.json, commits-N.json)',
      ),
    )
    .addOption(
      pathOption(
        '--changelog <file>',
        '--recover of a reused run: the merge run’s changelog_metadata.json (its frontier-sweep artifact)',
      ),
    )
    .option('--repo <owner/name>', '--recover: the repository the runs must belong to (default $GITHUB_REPOSITORY)')
    .option('--workflow-id <file>', '--recover: the sweep workflow', SWEEP_WORKFLOW)
    .option('--main-branch <name>', '--recover: the branch whose pushes are official', 'main')
    .addOption(formatOption(['text', 'json'], 'the summary as text or JSON'))
    .addOption(jsonAlias())
    .action(async (dir: string, o: Record<string, string | boolean | number | string[] | undefined>) => {
      if (o.recover) return recoverIngest(dir, o as unknown as RecoverFlags);
      for (const flag of ['github', 'changelog', 'repo'] as const)
        if (o[flag] !== undefined) throw new UserError(`--${flag} goes with --recover`);
      if (o.official && o.unofficial) throw new UserError('--official and --unofficial: pick one');
      const stagedBy = (o.stagedBy as string | undefined) ?? process.env.GITHUB_ACTOR ?? '';
      if (o.stage !== undefined && stagedBy === '')
        throw new UserError('--stage: who staged the run?', {
          hint: 'pass --staged-by LOGIN (inside Actions it defaults to $GITHUB_ACTOR)',
        });
      if (o.stage === undefined && o.stagedBy !== undefined) throw new UserError('--staged-by goes with --stage PR');
      const { ingestBatch, readArtifacts } = await import('../store/index.js');
      const batch = readArtifacts(resolve(dir), {
        official: o.official === true,
        stage: o.stage === undefined ? undefined : { pr: o.stage as number, by: stagedBy },
        runId: o.runId as string | undefined,
        attempt: o.attempt as number | undefined,
        sourceRun: o.sourceRun as string | undefined,
        date: o.date as string | undefined,
        branch: o.branch as string | undefined,
        commit: o.commit as string | undefined,
        labels: o.label as string[] | undefined,
        url: o.url as string | undefined,
        thresholdOf: await referenceThresholdOf(),
      });
      const store = await openDb(o.db as string | undefined);
      try {
        const s = await ingestBatch(store, batch, { dryRun: o.dryRun === true });
        if (o.format === 'json') {
          process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
          return;
        }
        process.stdout.write(ingestSummary(s, store.location));
      } finally {
        await store.close();
      }
    });
}

interface RecoverFlags {
  runId?: string;
  sourceRun?: string;
  github?: string;
  changelog?: string;
  repo?: string;
  workflowId: string;
  mainBranch: string;
  dryRun?: boolean;
  db?: string;
  format: string;
  [flag: string]: unknown;
}

/** Flags recovery takes from the recorded run instead. */
const FROM_THE_RUN = ['official', 'unofficial', 'attempt', 'date', 'branch', 'commit', 'label', 'url'] as const;

/** `frontier ingest DIR --recover`: check the run (src/ci/recover.ts), then ingest it as its sweep would have, once. */
async function recoverIngest(dir: string, o: RecoverFlags): Promise<void> {
  const given = FROM_THE_RUN.filter((f) => o[f] !== undefined && o[f] !== false);
  if (given.length > 0)
    throw new UserError(`--recover takes ${given.map((f) => `--${f}`).join(', ')} from the recorded run: drop it`);
  if (!o.runId) throw new UserError('--recover needs --run-id: the run whose ingest failed (a reused run: the merge run)');
  if (!o.github)
    throw new UserError('--recover needs --github DIR: the recorded gh api answers about the run', { hint: RECORD_HINT });
  const repository = o.repo ?? process.env.GITHUB_REPOSITORY ?? '';
  if (!repository) throw new UserError('--recover needs --repo OWNER/NAME (or $GITHUB_REPOSITORY): the repository of the run');
  if (o.changelog !== undefined && o.sourceRun === undefined)
    throw new UserError('--changelog goes with --source-run: a run that was not reused publishes its own changelog metadata');
  const { recoverIngest: recover } = await import('../ci/recover.js');
  const store = await openDb(o.db);
  try {
    const {
      plan,
      summary: s,
      collapsed,
    } = await recover(store, {
      dir: resolve(dir),
      runId: o.runId,
      sourceRunId: o.sourceRun,
      repository,
      workflowId: o.workflowId,
      mainBranch: o.mainBranch,
      githubDir: o.github,
      changelogFile: o.changelog,
      dryRun: o.dryRun === true,
      thresholdOf: await referenceThresholdOf(),
    });
    const recovery = {
      kind: plan.kind,
      run_id: plan.run.id,
      ...(plan.source ? { source_run_id: plan.source.id } : {}),
      ...(plan.prNumber !== undefined ? { pr_number: plan.prNumber } : {}),
      official: plan.official,
      checked: plan.checked,
      collapsed,
      already_ingested: s.unchanged === true,
    };
    if (o.format === 'json') {
      process.stdout.write(`${JSON.stringify({ recovery, ingest: s }, null, 2)}\n`);
      return;
    }
    const what =
      plan.kind === 'reused-run'
        ? `merge run ${plan.run.id} (reused run ${plan.source!.id}, PR #${plan.prNumber})`
        : `run ${plan.run.id}`;
    const lines = [
      `recover ${what}: ${plan.kind === 'reused-run' ? 'a reused run' : 'a failed ingest after a green sweep'}, ${plan.official ? 'official (a push to main)' : 'unofficial'}`,
      ...plan.checked.map((c) => `  checked: ${c}`),
      ...collapsed.map((m) => `  ${o.dryRun ? 'would collapse' : 'collapsed'}: ${m}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (s.unchanged)
      process.stdout.write(`already ingested, nothing changed: run ${s.run_id} (attempt ${s.attempt}) in ${store.location}\n`);
    else process.stdout.write(ingestSummary(s, store.location));
  } finally {
    await store.close();
  }
}

const RECORD_HINT =
  'record them with gh api: actions/runs/ID > runs-ID.json, actions/runs/ID/jobs > jobs-ID.json, actions/runs/ID/artifacts > artifacts-ID.json (docs/store.md, "Recovering a failed ingest")';

function serveCommand(): Command {
  return new Command('serve')
    .description('serve the HTTP API (and the dashboard) over the store')
    .addOption(dbOption())
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free one)', '8080')
    .option('--private', 'reads need a token too')
    .option('--max-upload-mb <n>', 'largest ingest upload, MiB', positiveInt('--max-upload-mb'), DEFAULT_MAX_UPLOAD_MB)
    .action(async (o: { db?: string; host: string; port: string; private?: boolean; maxUploadMb: number }) => {
      const port = parseNumber('--port', o.port, { integer: true, min: 0, max: 65535 });
      const { buildApi } = await import('../api/index.js');
      const store = await openDb(o.db);
      const app = await buildApi({
        store,
        private: o.private === true,
        maxUploadBytes: o.maxUploadMb * 2 ** 20,
        thresholdOf: await referenceThresholdOf(),
        webDir: dashboardDir(),
      });
      let url: string;
      try {
        url = await app.listen({ host: o.host, port });
      } catch (e) {
        await store.close();
        throw new UserError(`cannot listen on ${o.host}:${port}: ${(e as Error).message}`);
      }
      process.stdout.write(
        `frontier serve: ${store.location} on ${url} (dashboard ${url}/inference, API ${url}/api/v1, OpenAPI ${url}/api/openapi.json)\n`,
      );
      const stop = async () => {
        await app.close();
        await store.close();
        process.exit(ExitCode.OK);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
    });
}

function tokenCommand(): Command {
  const token = new Command('token').description('API tokens for writes (ingest over HTTP)');
  token
    .command('create')
    .description('create a token; it is printed once and stored only as a hash')
    .argument('<name>', 'who or what uses it (ci, alice)')
    .addOption(dbOption())
    .action(async (name: string, o: { db?: string }) => {
      const { createToken } = await import('../store/index.js');
      const store = await openDb(o.db);
      try {
        process.stdout.write(`${await createToken(store, name)}\n`);
        process.stderr.write(`token "${name}" created; keep it: it is not stored and cannot be shown again\n`);
      } finally {
        await store.close();
      }
    });
  token
    .command('list')
    .description('the tokens: name, created, last used')
    .addOption(dbOption())
    .action(async (o: { db?: string }) => {
      const { listTokens } = await import('../store/index.js');
      const store = await openDb(o.db);
      try {
        for (const t of await listTokens(store))
          process.stdout.write(`${t.name}\tcreated ${t.created_at}\tlast used ${t.last_used_at ?? 'never'}\n`);
      } finally {
        await store.close();
      }
    });
  token
    .command('revoke')
    .description('revoke a token')
    .argument('<name>')
    .addOption(dbOption())
    .action(async (name: string, o: { db?: string }) => {
      const { revokeToken } = await import('../store/index.js');
      const store = await openDb(o.db);
      try {
        if (!(await revokeToken(store, name))) throw new UserError(`no token named "${name}" (frontier token list shows them)`);
        process.stdout.write(`token "${name}" revoked\n`);
      } finally {
        await store.close();
      }
    });
  return token;
}

function compareCommand(): Command {
  const command = new Command('compare');
  for (const option of verdictOptions()) command.addOption(option);
  return command
    .description(
      'a run against the latest official results, as markdown: each change with its 95% interval and verdict; exits 1 on a significant regression',
    )
    .argument('<run>', 'the run id')
    .addOption(new Option('--against <what>', 'what to compare with').choices(['official']).default('official'))
    .addOption(formatOption(['markdown', 'json'], 'the comparison as markdown or JSON'))
    .addOption(jsonAlias())
    .addOption(dbOption())
    .action(async (runId: string, o: VerdictFlags & { threshold?: number; format: string; db?: string }) => {
      const { compareRun, comparisonMarkdown } = await import('../store/index.js');
      const store = await openDb(o.db);
      try {
        const c = await compareRun(store, runId, verdictSettingsOf(o));
        if (!c) throw new UserError(`no run ${runId} in ${store.location} (frontier ingest loads one)`);
        process.stdout.write(o.format === 'json' ? `${JSON.stringify(c, null, 2)}\n` : comparisonMarkdown(c));
        if (c.regressions > 0) process.exitCode = ExitCode.FAILED;
      } finally {
        await store.close();
      }
    });
}

function nodesCommand(): Command {
  return new Command('nodes')
    .description(
      'the nodes whose launches failed repeatedly for infrastructure reasons (engine never healthy, node failure), from every stored launch attempt',
    )
    .option('--cluster <name>', 'only this cluster’s nodes')
    .option('--min-failures <n>', 'only nodes with at least this many failures', positiveInt('--min-failures'), 2)
    .option(
      '--since <days>',
      'only launch attempts that ended in the last DAYS days (default: every one)',
      positiveInt('--since'),
    )
    .addOption(formatOption(['text', 'json'], 'the report as a table or JSON'))
    .addOption(jsonAlias())
    .addOption(dbOption())
    .action(async (o: { cluster?: string; minFailures: number; since?: number; format: string; db?: string }) => {
      const { daysBefore, failingNodes } = await import('../store/index.js');
      const { textTable } = await import('../util/text-table.js');
      const store = await openDb(o.db);
      try {
        const since = o.since === undefined ? undefined : daysBefore(new Date(), o.since);
        const nodes = await failingNodes(store, { cluster: o.cluster, minFailures: o.minFailures, since });
        if (o.format === 'json') {
          process.stdout.write(`${JSON.stringify(nodes, null, 2)}\n`);
          return;
        }
        if (nodes.length === 0) {
          process.stdout.write(
            `no node${o.cluster ? ` of ${o.cluster}` : ''} has failed ${o.minFailures} time${o.minFailures === 1 ? '' : 's'} or more${o.since === undefined ? '' : ` in the last ${o.since} day${o.since === 1 ? '' : 's'}`} in ${store.location}\n`,
          );
          return;
        }
        const rows = nodes.map((n) => [
          n.cluster,
          n.node,
          String(n.failures),
          String(n.attempts),
          n.last_failure_at.slice(0, 19).replace('T', ' '),
          n.last_failure_run,
          n.last_failure_reason.slice(0, 100),
        ]);
        const header = ['cluster', 'node', 'failures', 'attempts', 'last failure', 'run', 'reason'];
        process.stdout.write(`${textTable([header, ...rows], { align: ['left', 'left', 'right', 'right'] }).join('\n')}\n`);
      } finally {
        await store.close();
      }
    });
}

/** `frontier store dump|restore`: the store as a portable file set, for backups and open data (docs/store.md). */
function storeCommand(): Command {
  const store = new Command('store').description('dump the store as a portable file set (JSON Lines), or restore one');
  const tableList = (tables: { name: string; rows: number }[]) => tables.map((t) => `  ${t.name}: ${t.rows} rows`).join('\n');
  store
    .command('dump')
    .description('write every table as <table>.jsonl and a manifest.json into DIR (new or empty), from one snapshot; byte-stable')
    .addArgument(pathArgument('<dir>', 'the directory to write (must not exist, or be empty)'))
    .addOption(dbOption())
    .option('--omit <table...>', 'leave these tables out (a dump to publish: --omit tokens); a restore leaves them empty')
    .action(async (dir: string, o: { db?: string; omit?: string[] }) => {
      const { dumpStore } = await import('../store/index.js');
      const s = await openDb(o.db);
      try {
        const { manifest } = await dumpStore(s, dir, { omit: o.omit });
        const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
        process.stdout.write(
          `dumped ${s.location} into ${dir}: ${manifest.tables.length} tables, ${rows} rows (migrations up to ${manifest.migrations.at(-1)})${manifest.omitted.length > 0 ? `; omitted: ${manifest.omitted.join(', ')}` : ''}\n${tableList(manifest.tables)}\n`,
        );
      } finally {
        await s.close();
      }
    });
  store
    .command('restore')
    .description('load a dump into an empty store (SQLite file or postgres:// URL), all or nothing, keeping primary keys')
    .addArgument(pathArgument('<dir>', 'the dump (frontier store dump)'))
    .addOption(dbOption())
    .option('--replace', 'replace what a store that is not empty holds (in the same transaction)')
    .action(async (dir: string, o: { db?: string; replace?: boolean }) => {
      const { restoreStore, storeLocation } = await import('../store/index.js');
      const r = await restoreStore(userPath(storeLocation(o.db)), resolve(dir), { replace: o.replace === true });
      const rows = r.tables.reduce((n, t) => n + t.rows, 0);
      process.stdout.write(
        `restored ${dir} into ${r.location}: ${r.tables.length} tables, ${rows} rows${r.replaced > 0 ? ` (replacing ${r.replaced})` : ''}${r.migrated.length > 0 ? `; then migrated: ${r.migrated.join(', ')}` : ''}\n${tableList(r.tables)}\n`,
      );
    });
  return store;
}

export function storeCommands(): Command[] {
  return [ingestCommand(), serveCommand(), tokenCommand(), compareCommand(), nodesCommand(), storeCommand()];
}
