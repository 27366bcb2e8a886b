/**
 * Opening the store: an embedded SQLite file by default, PostgreSQL when the location is a
 * `postgres://` URL. The drivers load only when a store is opened, so other commands never pay
 * for them. Every open brings the schema up to date.
 */
import { createRequire } from 'node:module';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type Pg from 'pg';
import type { Database } from './schema.js';
import { migrate } from './migrations.js';

export type Dialect = 'sqlite' | 'postgres';

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

const isPostgres = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

export async function openStore(location = storeLocation()): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  let shown = location;
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
    // WAL: readers never wait for the writer; NORMAL is durable at every commit of a WAL database.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 10000');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    dialect = 'sqlite';
  }
  try {
    await migrate(db as unknown as Kysely<unknown>, dialect);
  } catch (e) {
    await db.destroy();
    throw new Error(`cannot prepare the store at ${shown}: ${(e as Error).message}`, { cause: e });
  }
  return { db, dialect, location: shown, close: () => db.destroy() };
}
