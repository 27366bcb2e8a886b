/**
 * Corrections of the record (docs/store.md, "Corrections of the record"): purging a run (it is
 * deleted from every table, so it leaves every view, and its run id is refused by ingest until
 * un-purged) and overriding a run's conclusion (a failure override takes its points out of the
 * record: store/counted.ts). Each is one transaction that also writes its audit entry, with the
 * run as it was; latest points are recomputed for the keys the change touched.
 */
import type { Selectable, Transaction } from 'kysely';
import { conclusionOf } from '../contract/index.js';
import type { AuditEntry, RunConclusion } from '../contract/index.js';
import { UserError } from '../util/user-error.js';
import { auditEntry, purgeOf } from './audit.js';
import { writeTransaction } from './db.js';
import type { Store } from './db.js';
import { deleteRun } from './ingest.js';
import { LatestKeys, advanceLatest, forgetLatest, refillLatest } from './latest.js';
import type { Database, RecordAuditTable } from './schema.js';

type Trx = Transaction<Database>;
type StoredRun = Selectable<Database['runs']>;

/** Who corrects the record, and why (both required). */
export interface Correction {
  by: string;
  reason: string;
}

/** A correction refused: `unknown` (no such run; the API answers 404) or `conflict` (not in a state to take it; 409). */
export class CorrectionRefused extends UserError {
  constructor(
    message: string,
    readonly kind: 'unknown' | 'conflict',
    hint?: string,
  ) {
    super(message, { hint });
  }
}

/** The longest reason kept (a paragraph; a longer story belongs in the linked issue). */
const REASON_CHARS = 2000;

function checked(c: Correction): Correction {
  const by = c.by.trim();
  const reason = c.reason.trim();
  if (!by) throw new UserError('who corrects the record is required: --by NAME (default $GITHUB_ACTOR, else your user name)');
  if (!reason) throw new UserError('a reason is required and may not be empty: --reason "why" (it is kept in the audit)');
  if (reason.length > REASON_CHARS)
    throw new UserError(`the reason is ${reason.length} characters; at most ${REASON_CHARS}: link an issue for the rest`);
  return { by, reason };
}

async function storedRun(trx: Trx, runId: string): Promise<StoredRun> {
  const stored = await trx.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (stored) return stored;
  const purge = await purgeOf(trx, runId);
  if (purge)
    throw new CorrectionRefused(
      `run ${runId} was purged on ${purge.at} by ${purge.by} (${purge.reason}): it is not in the store`,
      'conflict',
      `frontier runs audit --run ${runId} shows its history; frontier runs unpurge ${runId} --reason … lets it be ingested again`,
    );
  throw new CorrectionRefused(
    `no run ${runId} in the store`,
    'unknown',
    'frontier runs audit lists the corrected runs; /api/v1/runs lists the stored ones',
  );
}

/** The run's stored fields (its identity), as the audit keeps them. */
function identity(run: StoredRun): Record<string, unknown> {
  const { id: _id, labels, official, ...rest } = run;
  return { ...rest, official: Number(official) === 1, labels: JSON.parse(labels) as string[] };
}

const COUNTED_TABLES = {
  points: 'benchmark_results',
  agentic_points: 'agentic_points',
  evals: 'eval_results',
  run_stats: 'run_stats',
  logs: 'run_logs',
  attempts: 'launch_attempts',
  changelog: 'changelog_entries',
} as const;

async function rowCounts(trx: Trx, runPk: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, table] of Object.entries(COUNTED_TABLES)) {
    const row = await trx
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_pk', '=', runPk)
      .executeTakeFirstOrThrow();
    out[name] = Number(row.n);
  }
  return out;
}

type NewEntry = Omit<RecordAuditTable, 'id' | 'by' | 'reason' | 'at' | 'conclusion_from' | 'conclusion_to'> &
  Partial<Pick<RecordAuditTable, 'conclusion_from' | 'conclusion_to'>>;

async function record(trx: Trx, c: Correction, entry: NewEntry, at = new Date().toISOString()): Promise<AuditEntry> {
  const row = await trx
    .insertInto('record_audit')
    .values({ conclusion_from: '', conclusion_to: '', ...entry, by: c.by, reason: c.reason, at })
    .returningAll()
    .executeTakeFirstOrThrow();
  return auditEntry(row);
}

/** Delete a run from every table, keep who, when, why and what it was in the audit, and refuse its run id to ingest. */
export async function purgeRun(store: Store, runId: string, correction: Correction): Promise<AuditEntry> {
  const c = checked(correction);
  return writeTransaction(store, async (trx) => {
    const run = await storedRun(trx, runId);
    const counts = await rowCounts(trx, run.id);
    const override = await trx
      .selectFrom('run_overrides')
      .select(['conclusion', 'reason', 'by', 'at'])
      .where('run_id', '=', runId)
      .executeTakeFirst();
    const orphaned = new LatestKeys();
    orphaned.add(await forgetLatest(trx, { runPk: run.id }));
    await deleteRun(trx, run.id);
    await refillLatest(trx, orphaned);
    await trx.deleteFrom('run_overrides').where('run_id', '=', runId).execute();
    return record(trx, c, {
      action: 'purge',
      run_id: runId,
      attempt: run.attempt,
      run: JSON.stringify({ ...identity(run), conclusion_override: override ?? null }),
      counts: JSON.stringify(counts),
    });
  });
}

/** Let a purged run id be ingested again (its rows are gone: re-ingest its files to bring it back). */
export async function unpurgeRun(store: Store, runId: string, correction: Correction): Promise<AuditEntry> {
  const c = checked(correction);
  return writeTransaction(store, async (trx) => {
    const purge = await purgeOf(trx, runId);
    if (!purge) {
      const stored = await trx.selectFrom('runs').select('id').where('run_id', '=', runId).executeTakeFirst();
      if (stored) throw new CorrectionRefused(`run ${runId} is not purged: it is in the store`, 'conflict');
      throw new CorrectionRefused(
        `run ${runId} was never purged: nothing to un-purge`,
        'unknown',
        'frontier runs audit lists the purged runs',
      );
    }
    return record(trx, c, {
      action: 'unpurge',
      run_id: runId,
      attempt: purge.attempt,
      run: JSON.stringify(purge.run),
      counts: JSON.stringify(purge.counts),
    });
  });
}

/**
 * Set a run's conclusion (or, with `null`, clear the override: its status's conclusion again).
 * Overridden to failure, its points leave latest points, baselines and trends; back to success,
 * they take their place again.
 */
export async function overrideConclusion(
  store: Store,
  runId: string,
  conclusion: RunConclusion | null,
  correction: Correction,
): Promise<AuditEntry> {
  const c = checked(correction);
  return writeTransaction(store, async (trx) => {
    const run = await storedRun(trx, runId);
    const prior = await trx.selectFrom('run_overrides').select('conclusion').where('run_id', '=', runId).executeTakeFirst();
    if (conclusion === null && !prior)
      throw new CorrectionRefused(`run ${runId} has no conclusion override to clear`, 'conflict');
    const from = prior?.conclusion ?? conclusionOf(run.status);
    // The override and its audit entry carry the same time.
    const at = new Date().toISOString();
    if (conclusion === null) await trx.deleteFrom('run_overrides').where('run_id', '=', runId).execute();
    else {
      const values = { conclusion, reason: c.reason, by: c.by, at };
      await trx
        .insertInto('run_overrides')
        .values({ run_id: runId, ...values })
        .onConflict((oc) => oc.column('run_id').doUpdateSet(values))
        .execute();
    }
    const counted = (x: RunConclusion | null | undefined) => x !== 'failure';
    if (counted(prior?.conclusion) && !counted(conclusion)) {
      const orphaned = new LatestKeys();
      orphaned.add(await forgetLatest(trx, { runPk: run.id }));
      await refillLatest(trx, orphaned);
    } else if (!counted(prior?.conclusion) && counted(conclusion)) {
      await advanceLatest(trx, run.id, Number(run.official) === 1, run.date);
    }
    return record(
      trx,
      c,
      {
        action: conclusion === null ? 'clear-override' : 'override',
        run_id: runId,
        attempt: run.attempt,
        run: JSON.stringify(identity(run)),
        counts: JSON.stringify(await rowCounts(trx, run.id)),
        conclusion_from: from ?? '',
        conclusion_to: conclusion ?? conclusionOf(run.status) ?? '',
      },
      at,
    );
  });
}
