/**
 * What a live database holds, read from its catalog (SQLite's pragmas, PostgreSQL's
 * information_schema): its tables, each one's columns in order with their types, and its primary
 * key. Dumps and restores read the schema here rather than from a list kept by hand, so a column
 * or table a migration adds travels without anyone touching them.
 */
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from './schema.js';

/** The types a dump knows: every column of the store is one of these (booleans are 0/1 integers, JSON and dates are text). */
export type ColumnType = 'integer' | 'real' | 'text';

export interface Column {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

export interface TableShape {
  name: string;
  columns: Column[];
  /** The primary key's columns, in key order. */
  primaryKey: string[];
}

/** Kysely's migration bookkeeping: carried by a dump's list of migrations, not as tables. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

/** A declared (SQLite) or catalog (PostgreSQL) type, as a dump names it; undefined for one it does not know. */
function columnType(declared: string): ColumnType | undefined {
  const t = declared.toLowerCase().trim();
  if (['integer', 'int', 'bigint', 'smallint', 'serial', 'bigserial'].includes(t)) return 'integer';
  if (['double precision', 'real', 'float', 'double'].includes(t)) return 'real';
  if (t === 'text' || t.startsWith('character varying') || t.startsWith('varchar')) return 'text';
  return undefined;
}

/** The tables of the database (not Kysely's bookkeeping), in name order. */
export async function liveTables(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  return rows.rows
    .map((r) => r.name)
    .filter((n) => !BOOKKEEPING.has(n))
    .sort();
}

/** A table's columns (in the table's order) and primary key. */
export async function tableShape(db: Kysely<unknown>, dialect: Dialect, table: string): Promise<TableShape> {
  let raw: { name: string; type: string; nullable: boolean; pk: number }[];
  if (dialect === 'sqlite') {
    const rows = await sql<{ name: string; type: string; notnull: number; pk: number }>`
      select name, type, "notnull", pk from pragma_table_info(${table}) order by cid`.execute(db);
    raw = rows.rows.map((r) => ({ name: r.name, type: r.type, nullable: r.notnull === 0, pk: r.pk }));
  } else {
    // pk: the column's place in the primary key, from 1 (int2vector's subscripts start at 0).
    const rows = await sql<{ name: string; type: string; nullable: string; pk: number | null }>`
      select c.column_name as name, c.data_type as type, c.is_nullable as nullable,
        (select array_position(i.indkey::int2[], a.attnum::int2) - array_lower(i.indkey::int2[], 1) + 1 from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass
            and i.indisprimary and a.attname = c.column_name) as pk
      from information_schema.columns c
      where c.table_schema = current_schema() and c.table_name = ${table}
      order by c.ordinal_position`.execute(db);
    raw = rows.rows.map((r) => ({ name: r.name, type: r.type, nullable: r.nullable === 'YES', pk: r.pk ?? 0 }));
  }
  if (raw.length === 0) throw new Error(`the database has no table ${table}`);
  const columns = raw.map((r): Column => {
    const type = columnType(r.type);
    if (!type)
      throw new Error(
        `column ${table}.${r.name} has type ${r.type}, which a dump cannot carry byte for byte on both databases: store it as integer, double precision or text (booleans 0/1, dates and JSON as text), or teach src/store/introspect.ts the type`,
      );
    // SQLite reports an INTEGER PRIMARY KEY as nullable; it never is (it is the rowid).
    return { name: r.name, type, nullable: r.nullable && r.pk === 0 };
  });
  const primaryKey = raw
    .filter((r) => r.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((r) => r.name);
  if (primaryKey.length === 0) throw new Error(`table ${table} has no primary key, so its rows have no stable order to dump in`);
  return { name: table, columns, primaryKey };
}
