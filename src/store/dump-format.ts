/**
 * The store's dump format (docs/store.md, "Dumps: backups and open data"): a directory of one
 * JSON Lines file per table and a manifest. Here: the manifest's shape and checks, and one codec
 * per column type that turns what a database returns into the line's bytes and a line's value
 * back into what a database takes. Every difference between SQLite's and PostgreSQL's answers is
 * settled in these codecs, so the same content dumps to the same bytes from either.
 */
import type { Column, ColumnType } from './introspect.js';

export const DUMP_FORMAT = 'frontier-store-dump';
export const DUMP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

export interface DumpTable {
  name: string;
  /** Its file in the dump's directory: `<name>.jsonl`. */
  file: string;
  primary_key: string[];
  columns: Column[];
  rows: number;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
}

export interface DumpManifest {
  format: typeof DUMP_FORMAT;
  format_version: number;
  frontier_version: string;
  /** The migrations the dumped store had applied, in order. */
  migrations: string[];
  /** Parents before the tables that reference them: the order a restore fills them in. */
  tables: DumpTable[];
  /** Tables of the store left out on purpose (`--omit`: API token hashes in a public dump); a restore leaves them empty. */
  omitted: string[];
}

/** The manifest's bytes: two-space JSON and a final newline, keys in the order above. */
export function manifestText(m: DumpManifest): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}

/** A value a line cannot hold, or a row a column does not take: the codec says why; the caller adds file, line and key. */
export class ValueError extends Error {}

const NON_FINITE: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

const shown = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v) : String(v);

interface Codec {
  /** What the database returned, as JSON text. */
  encode(value: unknown): string;
  /** A parsed line's value (not null), as the database takes it. */
  decode(value: unknown): unknown;
}

/**
 * One codec per column type. integer: PostgreSQL returns bigint as a string, written as the
 * number it is. real: the shortest text that reads back as the same double (PostgreSQL ≥ 12 sends
 * exactly that; SQLite hands the double over); −0 is 0; NaN and ±Infinity, which JSON has no
 * number for, are the strings "NaN", "Infinity", "-Infinity". text: as stored ('' is not null).
 */
const CODECS: Record<ColumnType, Codec> = {
  integer: {
    encode(v) {
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v).toString();
      throw new ValueError(`expected an integer, the database holds ${shown(v)}`);
    },
    decode(v) {
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      throw new ValueError(`expected an integer, got ${shown(v)}`);
    },
  },
  real: {
    encode(v) {
      const n = typeof v === 'string' ? Number(v) : v;
      if (typeof n !== 'number') throw new ValueError(`expected a number, the database holds ${shown(v)}`);
      if (!Number.isFinite(n)) return JSON.stringify(String(n));
      return JSON.stringify(n);
    },
    decode(v) {
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && v in NON_FINITE) return NON_FINITE[v];
      throw new ValueError(`expected a number (or "NaN", "Infinity", "-Infinity"), got ${shown(v)}`);
    },
  },
  text: {
    encode(v) {
      if (typeof v === 'string') return JSON.stringify(v);
      throw new ValueError(`expected text, the database holds ${shown(v)}`);
    },
    decode(v) {
      if (typeof v === 'string') return v;
      throw new ValueError(`expected a string, got ${shown(v)}`);
    },
  },
};

/** A row (as the database returned it) as one line, keys in the columns' order, with its newline. */
export function rowEncoder(columns: readonly Column[]): (row: Record<string, unknown>) => string {
  const keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
  const codecs = columns.map((c) => CODECS[c.type]);
  return (row) => {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const v = row[columns[i]!.name];
      let text: string;
      try {
        text = v === null || v === undefined ? 'null' : codecs[i]!.encode(v);
      } catch (e) {
        throw new ValueError(`column ${columns[i]!.name}: ${(e as Error).message}`);
      }
      line += keys[i] + text;
    }
    return `${line}}\n`;
  };
}

/** A parsed line as the values to insert, in the columns' order; throws a ValueError naming the column. */
export function rowDecoder(columns: readonly Column[]): (row: Record<string, unknown>) => unknown[] {
  const codecs = columns.map((c) => CODECS[c.type]);
  const names = new Set(columns.map((c) => c.name));
  return (row) => {
    for (const k of Object.keys(row)) if (!names.has(k)) throw new ValueError(`column ${k} is not one of the table's`);
    return columns.map((c, i) => {
      if (!(c.name in row)) throw new ValueError(`column ${c.name} is missing`);
      const v = row[c.name];
      if (v === null) {
        if (!c.nullable) throw new ValueError(`column ${c.name}: null, and the column takes none`);
        return null;
      }
      try {
        return codecs[i]!.decode(v);
      } catch (e) {
        throw new ValueError(`column ${c.name}: ${(e as Error).message}`);
      }
    });
  };
}

/** A row's primary key for messages: `id 42`, `run_pk 3, name "x"`. */
export function keyOf(primaryKey: readonly string[], row: Record<string, unknown>): string {
  return primaryKey.map((k) => `${k} ${JSON.stringify(row[k] ?? null)}`).join(', ');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The manifest's fields that a restore relies on, checked: a problem is named by its field
 * (`tables[2].sha256`). Returns the problems; none means the manifest is usable.
 */
export function manifestProblems(m: unknown): string[] {
  if (!isObject(m)) return ['not a JSON object'];
  const problems: string[] = [];
  const need = (ok: boolean, field: string, what: string) => {
    if (!ok) problems.push(`${field}: expected ${what}`);
  };
  need(typeof m.frontier_version === 'string', 'frontier_version', 'a string');
  need(Array.isArray(m.migrations) && m.migrations.every((x) => typeof x === 'string'), 'migrations', 'a list of names');
  need(Array.isArray(m.omitted) && m.omitted.every((x) => typeof x === 'string'), 'omitted', 'a list of table names');
  if (!Array.isArray(m.tables)) return [...problems, 'tables: expected a list'];
  m.tables.forEach((t: unknown, i) => {
    const at = `tables[${i}]`;
    if (!isObject(t)) return problems.push(`${at}: expected an object`);
    need(typeof t.name === 'string' && /^[a-z_][a-z0-9_]*$/.test(t.name), `${at}.name`, 'a table name');
    need(typeof t.file === 'string' && t.file === `${String(t.name)}.jsonl`, `${at}.file`, `"${String(t.name)}.jsonl"`);
    need(Number.isSafeInteger(t.rows) && (t.rows as number) >= 0, `${at}.rows`, 'a row count');
    need(typeof t.sha256 === 'string' && /^[0-9a-f]{64}$/.test(t.sha256), `${at}.sha256`, 'a sha256, 64 hex digits');
    need(
      Array.isArray(t.primary_key) && t.primary_key.length > 0 && t.primary_key.every((k) => typeof k === 'string'),
      `${at}.primary_key`,
      'a list of column names',
    );
    need(
      Array.isArray(t.columns) &&
        t.columns.every(
          (c: unknown) =>
            isObject(c) &&
            typeof c.name === 'string' &&
            typeof c.nullable === 'boolean' &&
            typeof c.type === 'string' &&
            c.type in CODECS,
        ),
      `${at}.columns`,
      'a list of {name, type: integer|real|text, nullable}',
    );
    return undefined;
  });
  return problems;
}
