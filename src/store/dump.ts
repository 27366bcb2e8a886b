/**
 * `frontier store dump`: the whole store as a directory of one JSON Lines file per table and a
 * manifest (dump-format.ts), read in one snapshot and written under a temporary name that is
 * renamed into place at the end, so a failed dump leaves nothing behind. Rows are read a page at a
 * time by primary key, so a dump's memory does not grow with the store.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import { UserError } from '../util/user-error.js';
import type { Store } from './db.js';
import { DUMP_FORMAT, DUMP_FORMAT_VERSION, MANIFEST_FILE, ValueError, keyOf, manifestText, rowEncoder } from './dump-format.js';
import type { DumpManifest, DumpTable } from './dump-format.js';
import { liveTables, tableShape } from './introspect.js';
import type { TableShape } from './introspect.js';
import { TABLES, appliedMigrations } from './migrations.js';
import type { Dialect } from './schema.js';

declare const FRONTIER_VERSION: string;
const VERSION = typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev';

/** Rows read per query. */
const PAGE = 5_000;

/**
 * The store's tables that a dump carries, parents first: every table of TABLES the database has
 * (a store of an older schema lacks the later ones). A table the database has and TABLES lacks is
 * refused: a dump without it would lose its rows without a word.
 */
export async function dumpedTables(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const live = await liveTables(db, dialect);
  const known = new Set<string>(TABLES);
  const unknown = live.filter((t) => !known.has(t));
  if (unknown.length > 0)
    throw new UserError(
      `the store has table${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} that a dump does not know, so it would not carry ${unknown.length > 1 ? 'their' : 'its'} rows; nothing written`,
      {
        hint: 'a table of the store belongs in TABLES (src/store/migrations.ts); a table of your own belongs in another database',
      },
    );
  return [...TABLES].reverse().filter((t) => live.includes(t));
}

/** `where (pk) > (last) order by pk limit n`: the next page. Text keys compare bytewise on both databases. */
function pageQuery(dialect: Dialect, shape: TableShape, after: unknown[] | undefined): RawBuilder<Record<string, unknown>> {
  const key = shape.primaryKey.map((k) => {
    const text = shape.columns.find((c) => c.name === k)!.type === 'text';
    return dialect === 'postgres' && text ? sql`${sql.ref(k)} collate "C"` : sql.ref(k);
  });
  const columns = sql.join(shape.columns.map((c) => sql.ref(c.name)));
  const keyList = key.length === 1 ? key[0]! : sql`(${sql.join(key)})`;
  const where =
    after === undefined
      ? sql``
      : sql`where ${keyList} > ${after.length === 1 ? sql`${after[0]}` : sql`(${sql.join(after.map((v) => sql`${v}`))})`}`;
  return sql<
    Record<string, unknown>
  >`select ${columns} from ${sql.table(shape.name)} ${where} order by ${sql.join(key)} limit ${sql.lit(PAGE)}`;
}

/** Write one table's file; returns its row count and sha256. */
async function dumpTable(db: Kysely<unknown>, dialect: Dialect, shape: TableShape, file: string): Promise<DumpTable> {
  const encode = rowEncoder(shape.columns);
  const hash = createHash('sha256');
  const fd = openSync(file, 'wx');
  let rows = 0;
  try {
    let after: unknown[] | undefined;
    for (;;) {
      const page = (await pageQuery(dialect, shape, after).execute(db)).rows;
      if (page.length === 0) break;
      let chunk = '';
      for (const row of page) {
        try {
          chunk += encode(row);
        } catch (e) {
          if (e instanceof ValueError)
            throw new UserError(`table ${shape.name}, row ${keyOf(shape.primaryKey, row)}: ${e.message}; nothing written`);
          throw e;
        }
      }
      const bytes = Buffer.from(chunk, 'utf8');
      hash.update(bytes);
      writeSync(fd, bytes);
      rows += page.length;
      const last = page.at(-1)!;
      after = shape.primaryKey.map((k) => last[k]);
      if (page.length < PAGE) break;
    }
  } finally {
    closeSync(fd);
  }
  return {
    name: shape.name,
    file: basename(file),
    primary_key: shape.primaryKey,
    columns: shape.columns,
    rows,
    sha256: hash.digest('hex'),
  };
}

/**
 * Run `work` in one read snapshot of the store: what it reads is what was committed when it began,
 * while writers go on. SQLite: a deferred transaction on the store's one connection (WAL readers
 * never block the writer); PostgreSQL: repeatable read, read only, on one pooled connection.
 */
async function inSnapshot<T>(store: Store, work: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
  return store.db.connection().execute(async (conn) => {
    const db = conn as unknown as Kysely<unknown>;
    await (
      store.dialect === 'postgres' ? sql`begin transaction isolation level repeatable read read only` : sql`begin deferred`
    ).execute(db);
    try {
      return await work(db);
    } finally {
      await sql`rollback`.execute(db);
    }
  });
}

export interface DumpSummary {
  dir: string;
  manifest: DumpManifest;
}

export interface DumpOptions {
  /** Tables to leave out (their names go in the manifest's `omitted`): `tokens` for a dump to publish. */
  omit?: readonly string[];
}

/** Dump the store into `dir`, which must not exist yet (or be an empty directory). */
export async function dumpStore(store: Store, dir: string, options: DumpOptions = {}): Promise<DumpSummary> {
  const omit = [...new Set(options.omit ?? [])].sort();
  const target = resolve(dir);
  const emptyDir = existsSync(target) && statSync(target).isDirectory() && readdirSync(target).length === 0;
  if (existsSync(target) && !emptyDir)
    throw new UserError(`${dir}: already there; a dump goes into a new (or empty) directory, and nothing was written`, {
      hint: 'choose another directory, or remove this one first',
    });
  if (!existsSync(dirname(target))) throw new UserError(`${dirname(dir)}: no such directory to dump into`);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.frontier-tmp`);
  mkdirSync(temp);
  try {
    const manifest = await inSnapshot(store, async (db): Promise<DumpManifest> => {
      const tables: DumpTable[] = [];
      const names = await dumpedTables(db, store.dialect);
      const strange = omit.filter((t) => !names.includes(t));
      if (strange.length > 0)
        throw new UserError(
          `--omit ${strange.join(', ')}: no such table in the store (its tables: ${[...names].sort().join(', ')})`,
        );
      for (const name of names.filter((t) => !omit.includes(t))) {
        const shape = await tableShape(db, store.dialect, name);
        tables.push(await dumpTable(db, store.dialect, shape, join(temp, `${name}.jsonl`)));
      }
      return {
        format: DUMP_FORMAT,
        format_version: DUMP_FORMAT_VERSION,
        frontier_version: VERSION,
        migrations: await appliedMigrations(db),
        tables,
        omitted: omit,
      };
    });
    const fd = openSync(join(temp, MANIFEST_FILE), 'wx');
    try {
      writeSync(fd, manifestText(manifest));
    } finally {
      closeSync(fd);
    }
    if (emptyDir) rmdirSync(target);
    renameSync(temp, target);
    return { dir: target, manifest };
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}
