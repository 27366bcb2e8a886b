/**
 * `frontier store restore`: a dump (dump-format.ts) into a store, SQLite or PostgreSQL. Everything
 * that can be checked before writing is (the manifest, its format version and migrations, each
 * file's sha256, the target's schema and emptiness); then every row goes in within one write
 * transaction, primary keys kept, so a line that turns out bad leaves the store as it was.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { UserError } from '../util/user-error.js';
import { openStore, writeTransaction } from './db.js';
import type { Store } from './db.js';
import {
  DUMP_FORMAT,
  DUMP_FORMAT_VERSION,
  MANIFEST_FILE,
  ValueError,
  keyOf,
  manifestProblems,
  rowDecoder,
} from './dump-format.js';
import type { DumpManifest, DumpTable } from './dump-format.js';
import { liveTables, tableShape } from './introspect.js';
import type { TableShape } from './introspect.js';
import { MIGRATIONS, TABLES } from './migrations.js';

/** Parameters per insert statement: under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const MAX_PARAMETERS = 30_000;

/** The manifest, read and checked: a dump this Frontier can read, of a schema it knows. */
export function readManifest(dir: string): DumpManifest {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file))
    throw new UserError(`${file}: no such file; a dump directory has a ${MANIFEST_FILE} (frontier store dump writes one)`);
  let m: unknown;
  try {
    m = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(`${file}: not JSON: ${(e as Error).message}`);
  }
  const head = (m ?? {}) as { format?: unknown; format_version?: unknown };
  if (head.format !== DUMP_FORMAT)
    throw new UserError(`${file}: format ${JSON.stringify(head.format)}: not a Frontier store dump (expected "${DUMP_FORMAT}")`);
  if (head.format_version !== DUMP_FORMAT_VERSION)
    throw new UserError(
      `${file}: dump format version ${JSON.stringify(head.format_version)}; this Frontier reads version ${DUMP_FORMAT_VERSION}`,
      {
        hint:
          typeof head.format_version === 'number' && head.format_version > DUMP_FORMAT_VERSION
            ? 'restore it with the Frontier that wrote it (manifest.json says which) or a later one'
            : undefined,
      },
    );
  const problems = manifestProblems(m);
  if (problems.length > 0) throw new UserError(`${file}: ${problems.join('; ')}`);
  const manifest = m as DumpManifest;
  const unknown = manifest.migrations.filter((x) => !MIGRATIONS.includes(x));
  if (unknown.length > 0)
    throw new UserError(
      `${file}: the dump is of a newer schema than this Frontier knows: its store had migrations up to ${manifest.migrations.at(-1)} (Frontier ${manifest.frontier_version}), this Frontier's end at ${MIGRATIONS.at(-1)}; ${unknown.join(', ')} unknown here`,
      { hint: `restore it with Frontier ${manifest.frontier_version} or later` },
    );
  if (manifest.migrations.some((x, i) => MIGRATIONS[i] !== x))
    throw new UserError(
      `${file}: migrations ${manifest.migrations.join(', ')} are not the first ${manifest.migrations.length} of this Frontier's (${MIGRATIONS.join(', ')}), so no schema here matches the dump's`,
    );
  return manifest;
}

/** Every file is there and has the bytes the manifest says (sha256), before anything is written. */
async function verifyFiles(dir: string, manifest: DumpManifest): Promise<void> {
  for (const t of manifest.tables) {
    const file = join(dir, t.file);
    if (!existsSync(file)) throw new UserError(`${file}: missing (${MANIFEST_FILE} lists it); nothing written`);
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    const sha = hash.digest('hex');
    if (sha !== t.sha256)
      throw new UserError(
        `${file}: sha256 ${sha}, but ${MANIFEST_FILE} says ${t.sha256}: the file changed or is cut short; nothing written`,
        {
          hint: 'dump the store again, or fetch the dump again',
        },
      );
  }
}

/** The dump's tables and the target's are the same, column for column (by name and type). */
function checkSchema(manifest: DumpManifest, shapes: Map<string, TableShape>): void {
  const problems: string[] = [];
  const dumped = new Set(manifest.tables.map((t) => t.name));
  for (const name of manifest.omitted) if (!shapes.has(name)) problems.push(`table ${name} (omitted): not in the store`);
  for (const name of shapes.keys())
    if (!dumped.has(name) && !manifest.omitted.includes(name)) problems.push(`table ${name}: in the store, not in the dump`);
  for (const t of manifest.tables) {
    const shape = shapes.get(t.name);
    if (!shape) {
      problems.push(`table ${t.name}: in the dump, not in the store`);
      continue;
    }
    const live = new Map(shape.columns.map((c) => [c.name, c]));
    for (const c of t.columns) {
      const l = live.get(c.name);
      if (!l) problems.push(`${t.name}.${c.name}: in the dump, not in the store`);
      else if (l.type !== c.type) problems.push(`${t.name}.${c.name}: ${c.type} in the dump, ${l.type} in the store`);
    }
    for (const c of shape.columns)
      if (!t.columns.some((d) => d.name === c.name)) problems.push(`${t.name}.${c.name}: in the store, not in the dump`);
  }
  if (problems.length > 0)
    throw new UserError(
      `the dump's tables do not match the store's at the same migrations (${manifest.migrations.at(-1)}): ${problems.join('; ')}; nothing written`,
    );
}

async function rowCount(db: Kysely<unknown>, table: string): Promise<number> {
  const r = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(r.rows[0]!.n);
}

/** Insert one table's file, in statements of many rows; returns the rows inserted. */
async function restoreTable(db: Kysely<unknown>, dir: string, t: DumpTable, shape: TableShape): Promise<number> {
  const file = join(dir, t.file);
  const columns = t.columns.map((c) => ({ ...c, nullable: shape.columns.find((l) => l.name === c.name)!.nullable }));
  const decode = rowDecoder(columns);
  const perStatement = Math.max(1, Math.min(1_000, Math.floor(MAX_PARAMETERS / columns.length)));
  const names = sql.join(columns.map((c) => sql.ref(c.name)));
  let batch: unknown[][] = [];
  let first = 0;
  const flush = async (last: number) => {
    if (batch.length === 0) return;
    const values = sql.join(batch.map((row) => sql`(${sql.join(row.map((v) => sql`${v}`))})`));
    try {
      await sql`insert into ${sql.table(t.name)} (${names}) values ${values}`.execute(db);
    } catch (e) {
      throw new UserError(`${file}:${first}-${last}: the database refused these rows: ${(e as Error).message}; nothing written`);
    }
    batch = [];
  };
  let line = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    line++;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (e) {
      throw new UserError(`${file}:${line}: not JSON: ${(e as Error).message}; nothing written`);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new UserError(`${file}:${line}: expected a JSON object (one row); nothing written`);
    try {
      if (batch.length === 0) first = line;
      batch.push(decode(row as Record<string, unknown>));
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      throw new UserError(
        `${file}:${line} (${keyOf(t.primary_key, row as Record<string, unknown>)}): ${e.message}; nothing written`,
      );
    }
    if (batch.length >= perStatement) await flush(line);
  }
  await flush(line);
  if (line !== t.rows) throw new UserError(`${file}: ${line} rows, but ${MANIFEST_FILE} says ${t.rows}; nothing written`);
  return line;
}

/** PostgreSQL's serial sequences continue after the highest restored key (SQLite's AUTOINCREMENT does so by itself). */
async function resetSequences(db: Kysely<unknown>, shape: TableShape): Promise<void> {
  for (const c of shape.columns.filter((c) => c.type === 'integer')) {
    const seq = (await sql<{ s: string | null }>`select pg_get_serial_sequence(${shape.name}, ${c.name}) as s`.execute(db))
      .rows[0]?.s;
    if (seq)
      await sql`select setval(${seq}, coalesce(max(${sql.ref(c.name)}), 0) + 1, false) from ${sql.table(shape.name)}`.execute(db);
  }
}

export interface RestoreOptions {
  /** Replace whatever the store holds (in the same transaction) instead of refusing a store that is not empty. */
  replace?: boolean;
}

export interface RestoreSummary {
  /** Where, for messages. */
  location: string;
  tables: { name: string; rows: number }[];
  /** Rows the store held before, now replaced (`--replace`). */
  replaced: number;
  /** The migrations applied after the rows went in (a dump of an older schema). */
  migrated: string[];
}

/**
 * Restore the dump in `dir` into the store at `location`. A dump of an older schema is restored
 * into the store migrated only that far, and the later migrations then run on its rows, as they
 * would have on the store it came from; so the store must not be past the dump's schema.
 */
export async function restoreStore(location: string, dir: string, options: RestoreOptions = {}): Promise<RestoreSummary> {
  const manifest = readManifest(dir);
  await verifyFiles(dir, manifest);
  const upTo = manifest.migrations.at(-1);
  const older = upTo !== MIGRATIONS.at(-1);
  let store: Store;
  try {
    store = await openStore(location, older ? { upTo } : {});
  } catch (e) {
    throw new UserError(`${(e as Error).message}; nothing written`, {
      hint: older
        ? `the dump is of an older schema (migrations up to ${upTo}); it restores only into a store not past it (a new SQLite file, an empty PostgreSQL database), which the later migrations then bring up`
        : undefined,
    });
  }
  let summary: Omit<RestoreSummary, 'migrated'>;
  try {
    const db = store.db as unknown as Kysely<unknown>;
    const shapes = new Map<string, TableShape>();
    for (const name of await liveTables(db, store.dialect)) shapes.set(name, await tableShape(db, store.dialect, name));
    checkSchema(manifest, shapes);
    const held = await Promise.all([...shapes.keys()].map(async (name) => ({ name, rows: await rowCount(db, name) })));
    const nonEmpty = held.filter((t) => t.rows > 0);
    if (nonEmpty.length > 0 && !options.replace)
      throw new UserError(
        `${store.location} is not empty (${nonEmpty.map((t) => `${t.name}: ${t.rows} rows`).join(', ')}); nothing written`,
        {
          hint: 'restore into a new SQLite file or an empty database, or pass --replace to replace its contents (in one transaction)',
        },
      );
    // Parents first; --replace empties children first.
    const order = [...TABLES].reverse().filter((t) => shapes.has(t));
    const extra = [...shapes.keys()].filter((t) => !order.includes(t as (typeof TABLES)[number]));
    if (extra.length > 0)
      throw new UserError(`the store has tables a restore does not know: ${extra.join(', ')}; nothing written`);
    const byName = new Map(manifest.tables.map((t) => [t.name, t]));
    const tables = await writeTransaction(store, async (trx) => {
      const tx = trx as unknown as Kysely<unknown>;
      if (options.replace) for (const name of [...order].reverse()) await sql`delete from ${sql.table(name)}`.execute(tx);
      const out: { name: string; rows: number }[] = [];
      for (const name of order) {
        const table = byName.get(name);
        // An omitted table stays empty.
        out.push({ name, rows: table ? await restoreTable(tx, dir, table, shapes.get(name)!) : 0 });
      }
      if (store.dialect === 'postgres') for (const name of order) await resetSequences(tx, shapes.get(name)!);
      return out;
    });
    summary = { location: store.location, tables, replaced: nonEmpty.reduce((n, t) => n + t.rows, 0) };
  } finally {
    await store.close();
  }
  if (!older) return { ...summary, migrated: [] };
  // The later migrations, on the restored rows: what opening the store does.
  const current = await openStore(location);
  await current.close();
  return { ...summary, migrated: MIGRATIONS.slice(manifest.migrations.length) };
}
