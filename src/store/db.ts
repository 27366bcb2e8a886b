/**
 * Opening the store: an embedded SQLite file by default, PostgreSQL when the location is a
 * `postgres://` URL. The drivers load only when a store is opened, so other commands never pay
 * for them. Every open brings the schema up to date.
 */
import { createRequire } from 'node:module';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, sql } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDialectConfig, Transaction } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';
import type { Database, Dialect } from './schema.js';
import { isPostgres } from './location-kind.js';
import { migrate } from './migrations.js';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where it is, for messages (a PostgreSQL URL without its password). */
  location: string;
  close(): Promise<void>;
}

/** Where the store is: `--db`, else $FRONTIER_DB, else ./frontier.db. */
export function storeLocation(flag?: string): string {
  return flag ?? process.env.FRONTIER_DB ?? 'frontier.db';
}

/** Drivers come from node_modules at run time (require, so that the bundled CLI can load them too). */
const load = <T>(name: string): T => createRequire(import.meta.url)(name) as T;

/** How long a SQLite writer waits for another process's write to end. */
const BUSY_TIMEOUT_MS = 60_000;

/**
 * SQLite transactions that take the write lock at `begin immediate`, waiting up to the busy
 * timeout for another writer. A plain (deferred) `begin` takes it at the first write, and a reader
 * that becomes a writer after another process wrote fails at once with "database is locked",
 * whatever the timeout.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      }
    })(this.settings);
  }
}

/** Any number, the same in every process: the PostgreSQL advisory lock that writers take (see writeTransaction). */
const WRITE_LOCK = 0x66726f6e; // "fron"

/**
 * Run `work` in a transaction that writes, one writer at a time; readers never wait. On SQLite
 * the dialect's `begin immediate` does it. On PostgreSQL a transaction-level advisory lock does:
 * two ingests upserting the same configs and latest points otherwise deadlock, or recompute a
 * latest point from a snapshot that lacks the other's points.
 */
export async function writeTransaction<T>(store: Store, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${sql.lit(WRITE_LOCK)})`.execute(trx);
    return work(trx);
  });
}

export interface OpenOptions {
  /** Migrate only up to this migration (a restore of an older dump); a store past it is refused. */
  upTo?: string;
}

export async function openStore(location = storeLocation(), options: OpenOptions = {}): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  let shown = location;
  let sqliteLock: BetterSqlite3.Database | undefined;
  if (isPostgres(location)) {
    const { Pool } = load<typeof Pg>('pg');
    const url = new URL(location);
    if (url.password) url.password = '***';
    shown = url.toString();
    const pool = new Pool({ connectionString: location, max: 10 });
    // An idle connection the server drops (a restart, an idle timeout) is replaced on the next query;
    // without a listener its error would end the process.
    pool.on('error', () => {});
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    dialect = 'postgres';
  } else {
    const file = location.replace(/^sqlite:(\/\/)?/i, '');
    const SQLite = load<typeof BetterSqlite3>('better-sqlite3');
    let database;
    try {
      database = new SQLite(file);
    } catch (e) {
      throw new Error(`cannot open the SQLite store ${file}: ${(e as Error).message}`, { cause: e });
    }
    // First: whoever finds the file locked by another process (switching it to WAL included) waits its turn.
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // WAL: readers never wait for the writer; NORMAL is durable at every commit of a WAL database.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) });
    dialect = 'sqlite';
    // Kysely's migration lock is a no-op on SQLite (one connection per process), so two processes
    // opening a new store would both create its tables: the migration runs holding the write lock.
    sqliteLock = database;
  }
  try {
    sqliteLock?.exec('begin immediate');
    await migrate(db as unknown as Kysely<unknown>, dialect, options.upTo);
    sqliteLock?.exec('commit');
  } catch (e) {
    if (sqliteLock?.inTransaction) sqliteLock.exec('rollback');
    await db.destroy();
    throw new Error(`cannot prepare the store at ${shown}: ${(e as Error).message}`, { cause: e });
  }
  return { db, dialect, location: shown, close: () => db.destroy() };
}
