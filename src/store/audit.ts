/**
 * The audit of corrections of the record (`record_audit`): written by store/corrections.ts, read by
 * `frontier runs audit` and GET /api/v1/audit, and asked by ingest whether a run id is purged.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AuditEntry, RunConclusion } from '../contract/index.js';
import type { Store } from './db.js';
import type { Database, RecordAuditTable } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** An entry as the API answers it: JSON parsed, '' conclusions as null. */
export function auditEntry(row: Selectable<RecordAuditTable>): AuditEntry {
  return {
    id: Number(row.id),
    action: row.action,
    run_id: row.run_id,
    attempt: Number(row.attempt),
    by: row.by,
    at: row.at,
    reason: row.reason,
    run: JSON.parse(row.run) as Record<string, unknown>,
    counts: JSON.parse(row.counts) as Record<string, number>,
    conclusion_from: (row.conclusion_from || null) as RunConclusion | null,
    conclusion_to: (row.conclusion_to || null) as RunConclusion | null,
  };
}

/** The purge that holds a run id now (its latest purge or unpurge entry is a purge), if any. */
export async function purgeOf(db: Db, runId: string): Promise<AuditEntry | undefined> {
  const row = await db
    .selectFrom('record_audit')
    .selectAll()
    .where('run_id', '=', runId)
    .where('action', 'in', ['purge', 'unpurge'])
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.action === 'purge' ? auditEntry(row) : undefined;
}

export interface AuditFilter {
  /** Only this run id's entries. */
  run?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

/** The audit, newest first. */
export async function audit(store: Store, f: AuditFilter = {}): Promise<AuditEntry[]> {
  let q = store.db.selectFrom('record_audit').selectAll().orderBy('id', 'desc');
  if (f.run !== undefined) q = q.where('run_id', '=', f.run);
  if (f.limit !== undefined) q = q.limit(f.limit).offset(f.offset ?? 0);
  return (await q.execute()).map(auditEntry);
}
