/**
 * `frontier runs purge|unpurge|override|audit`: corrections of the record (docs/store.md,
 * "Corrections of the record"), thin over store/corrections.ts and store/audit.ts.
 */
import { userInfo } from 'node:os';
import { Command, Option } from 'commander';
import type { AuditEntry } from '../contract/index.js';
import { UserError } from '../util/user-error.js';
import { formatOption } from './options.js';
import { dbOption, openDb } from './store-location.js';

/** Where a command writes and what it reads of the environment (in-process tests give their own). */
export interface RunsIo {
  stdout: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): RunsIo => ({ stdout: (t) => void process.stdout.write(t), env: process.env });

/** Who corrects the record when --by is not given: the GitHub actor in a workflow, else the OS user. */
function defaultBy(env: NodeJS.ProcessEnv): string {
  if (env.GITHUB_ACTOR) return env.GITHUB_ACTOR;
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

interface CorrectionFlags {
  reason: string;
  by?: string;
  db?: string;
  format: 'text' | 'json';
}

const counts = (e: AuditEntry): string =>
  Object.entries(e.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`)
    .join(', ') || 'no rows';

/** What a correction did, as a line (or the audit entry as JSON). */
function done(e: AuditEntry): string {
  const who = `by ${e.by}: ${e.reason} (audit entry ${e.id})`;
  switch (e.action) {
    case 'purge':
      return `purged run ${e.run_id} (attempt ${e.attempt}, ${e.run.official ? 'official' : 'unofficial'}, ${String(e.run.date)}): ${counts(e)} deleted; its run id is refused by ingest until un-purged; ${who}\n`;
    case 'unpurge':
      return `un-purged run ${e.run_id}: it may be ingested again (its rows are not restored: frontier ingest its files); ${who}\n`;
    default:
      return `run ${e.run_id}: conclusion ${e.conclusion_from ?? 'none'} → ${e.conclusion_to ?? 'none'}${
        e.action === 'clear-override' ? ' (override cleared: its status’s again)' : ' (overridden)'
      }${e.conclusion_to === 'failure' ? '; its points are out of latest points, baselines and trends' : ''}; ${who}\n`;
  }
}

function correctionCommand(
  name: string,
  description: string,
  io: RunsIo,
  act: (runId: string, o: CorrectionFlags & Record<string, unknown>, by: string) => Promise<AuditEntry>,
): Command {
  return new Command(name)
    .description(description)
    .argument('<run>', 'the run id')
    .requiredOption('--reason <text>', 'why (required, kept in the audit)')
    .option('--by <name>', 'who corrects the record (default $GITHUB_ACTOR, else your user name)')
    .addOption(formatOption(['text', 'json'], 'what was done, as a line or the audit entry as JSON'))
    .addOption(dbOption())
    .action(async (runId: string, o: CorrectionFlags & Record<string, unknown>) => {
      const entry = await act(runId, o, o.by ?? defaultBy(io.env));
      io.stdout(o.format === 'json' ? `${JSON.stringify(entry, null, 2)}\n` : done(entry));
    });
}

/** Run `work` on the store at `--db`, closed after. */
async function withStore<T>(db: string | undefined, work: (store: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> {
  const store = await openDb(db);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export function runsCommand(io: RunsIo = defaultIo()): Command {
  const runs = new Command('runs').description(
    'corrections of the record: purge a run, un-purge it, override its conclusion; every correction is audited (who, when, why)',
  );
  runs.addCommand(
    correctionCommand(
      'purge',
      'delete a run from every table (every view, query, latest point and trend) and refuse its run id to ingest until un-purged; the audit keeps who, when, why and what the run was',
      io,
      async (runId, o, by) => {
        const { purgeRun } = await import('../store/index.js');
        return withStore(o.db, (store) => purgeRun(store, runId, { by, reason: o.reason }));
      },
    ),
  );
  runs.addCommand(
    correctionCommand(
      'unpurge',
      'let a purged run id be ingested again (then frontier ingest its files)',
      io,
      async (runId, o, by) => {
        const { unpurgeRun } = await import('../store/index.js');
        return withStore(o.db, (store) => unpurgeRun(store, runId, { by, reason: o.reason }));
      },
    ),
  );
  const override = correctionCommand(
    'override',
    'set a run’s conclusion by hand (kept across re-ingests): failure takes its points out of latest points, compare baselines, trends and variation; success marks a run whose status failed as good',
    io,
    async (runId, o, by) => {
      const conclusion = o.conclusion as 'success' | 'failure' | undefined;
      if ((conclusion === undefined) === (o.clear !== true))
        throw new UserError('give --conclusion success|failure, or --clear to remove the override', {
          hint: `frontier runs override ${runId} --conclusion failure --reason "bad image"`,
        });
      const { overrideConclusion } = await import('../store/index.js');
      return withStore(o.db, (store) => overrideConclusion(store, runId, conclusion ?? null, { by, reason: o.reason }));
    },
  );
  override
    .addOption(new Option('--conclusion <conclusion>', 'the run’s conclusion').choices(['success', 'failure']))
    .option('--clear', 'remove the override: the run’s status decides its conclusion again');
  runs.addCommand(override);
  runs.addCommand(
    new Command('audit')
      .description('every correction of the record, newest first: what, which run, who, when, why')
      .option('--run <id>', 'only this run id’s corrections')
      .addOption(formatOption(['text', 'json'], 'a table or JSON'))
      .addOption(dbOption())
      .action(async (o: { run?: string; db?: string; format: 'text' | 'json' }) => {
        const { audit } = await import('../store/index.js');
        const entries = await withStore(o.db, (store) => audit(store, { run: o.run }));
        if (o.format === 'json') return io.stdout(`${JSON.stringify(entries, null, 2)}\n`);
        if (entries.length === 0) return io.stdout(`no corrections of the record${o.run ? ` for run ${o.run}` : ''}\n`);
        const { textTable } = await import('../util/text-table.js');
        const header = ['id', 'at', 'action', 'run', 'attempt', 'by', 'conclusion', 'reason'];
        const rows = entries.map((e) => [
          String(e.id),
          e.at.slice(0, 19).replace('T', ' '),
          e.action,
          e.run_id,
          String(e.attempt),
          e.by,
          e.conclusion_from || e.conclusion_to ? `${e.conclusion_from ?? '–'} → ${e.conclusion_to ?? '–'}` : '',
          e.reason,
        ]);
        io.stdout(`${textTable([header, ...rows], { align: ['right', 'left', 'left', 'left', 'right'] }).join('\n')}\n`);
      }),
  );
  return runs;
}
