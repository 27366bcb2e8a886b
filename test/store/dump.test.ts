// `frontier store dump` / `restore` (src/store/dump.ts, restore.ts): a store seeded by real ingests
// (every table with rows) dumps, restores and dumps again to the same bytes on SQLite, on
// PostgreSQL and across them; what a restore refuses (a changed file, a bad line, a store that is
// not empty, a newer schema) it refuses before writing anything, naming the file and line.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  TABLES,
  benchmarks,
  audit,
  createToken,
  dumpStore,
  ingestBatch,
  openStore,
  overrideConclusion,
  purgeRun,
  readArtifacts,
  restoreStore,
  runs,
} from '../../src/store/index.js';
import type { DumpManifest, Store } from '../../src/store/index.js';
import { REPO, runCli } from '../helpers.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';
import { ARTIFACTS, copyDir, editJson } from './helpers.js';

const AGENTIC_RUN = join(REPO, 'test/fixtures/agentic/store/run');
const POWER_ARTIFACTS = join(REPO, 'test/fixtures/power/store/artifacts');
const OLD_STORE = join(REPO, 'test/fixtures/store/store-005.db');

const temp = (what: string) => mkdtempSync(join(tmpdir(), `frontier-dump-${what}-`));
const newSqlite = () => join(temp('db'), 'frontier.db');
const newDumpDir = () => join(temp('out'), 'dump');

/** The agentic fixture run, with a launch's two attempts in run.json and an engine log: rows for launch_attempts and run_logs. */
function agenticRunWithAttempts(): string {
  const dir = copyDir(AGENTIC_RUN);
  editJson(join(dir, 'run.json'), (m) => ({
    ...(m as object),
    launches: [
      {
        id: 'l1',
        label: 'dsr1 h200',
        attempts: [
          { attempt: 1, nodes: ['gpu-07'], outcome: 'infrastructure', reason: 'engine failed to start', job: '41' },
          { attempt: 2, nodes: ['gpu-08'], outcome: 'ok', job: '42' },
        ].map((a) => ({ started: '2026-12-01T12:00:00Z', ended: '2026-12-01T12:30:00Z', concs: [4, 8, 16], ...a })),
      },
    ],
  }));
  mkdirSync(join(dir, 'server_logs_dsr1'));
  writeFileSync(join(dir, 'server_logs_dsr1/server.log'), 'INFO started\nWARN ünïcode and "quotes"\n');
  return dir;
}

/** A run's artifacts as InferenceX's sweep leaves them, under the given run id (official). */
const officialRun = (runId: string, date: string) => readArtifacts(ARTIFACTS, { runId, official: true, date });

/**
 * Real ingests: an official and an unofficial run of InferenceX artifacts (evals, changelog, run
 * stats), power, agentic points with attempts and logs, a token; and corrections of the record: a
 * later official run purged, the unofficial one overridden to failure.
 */
async function seed(store: Store): Promise<void> {
  await ingestBatch(store, officialRun('100', '2026-01-10'));
  await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'pr-7', date: '2026-01-11', labels: ['a', 'b'] }));
  await ingestBatch(store, readArtifacts(POWER_ARTIFACTS, { runId: 'power-1', official: true, date: '2026-01-12' }));
  await ingestBatch(store, readArtifacts(agenticRunWithAttempts(), { official: true }));
  await ingestBatch(store, officialRun('bad-node', '2026-01-13'));
  await purgeRun(store, 'bad-node', { by: 'maintainer', reason: 'gpu-07 ran with ECC errors' });
  await overrideConclusion(store, 'pr-7', 'failure', { by: 'maintainer', reason: 'wrong image' });
  await createToken(store, 'ci');
}

async function counts(location: string): Promise<Record<string, number>> {
  const store = await openStore(location);
  try {
    const out: Record<string, number> = {};
    for (const t of TABLES)
      out[t] = Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(store.db)).rows[0]!.n);
    return out;
  } finally {
    await store.close();
  }
}

/** Every file of a dump, name → bytes. */
function files(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'latin1')]),
  );
}

async function dumpOf(location: string): Promise<string> {
  const store = await openStore(location);
  try {
    return (await dumpStore(store, newDumpDir())).dir;
  } finally {
    await store.close();
  }
}

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as DumpManifest;

/** Edit a dump's file and record its new sha256 in the manifest (a consistent dump with a bad line). */
function rewrite(dir: string, table: string, edit: (text: string) => string): void {
  const file = join(dir, `${table}.jsonl`);
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  editJson(join(dir, 'manifest.json'), (m) => {
    for (const t of (m as DumpManifest).tables)
      if (t.name === table) t.sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    return m;
  });
}

let pg: LocalPostgres;
let n = 0;
const newPostgres = () => pg.createDatabase(`dump_${++n}`);
const locations = { sqlite: async () => newSqlite(), postgres: newPostgres };

/** One seeded store of each kind and its dump, made once for the file. */
const seeded: Record<'sqlite' | 'postgres', { location: string; dump: string }> = {} as never;

beforeAll(async () => {
  pg = await startPostgres();
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const location = await locations[dialect]();
    const store = await openStore(location);
    try {
      await seed(store);
    } finally {
      await store.close();
    }
    seeded[dialect] = { location, dump: await dumpOf(location) };
  }
}, 90_000);
afterAll(async () => pg?.stop());

describe.each(['sqlite', 'postgres'] as const)('a dump of a %s store', (dialect) => {
  it('has a file for every table of the database, each with rows, and a manifest that describes them', async () => {
    const { location, dump } = seeded[dialect];
    const manifest = manifestOf(dump);
    const store = await openStore(location);
    let live: string[];
    try {
      live = (
        await (
          store.dialect === 'sqlite'
            ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
            : sql<{
                name: string;
              }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
        ).execute(store.db)
      ).rows
        .map((r) => r.name)
        .filter((t) => !t.startsWith('kysely_'));
    } finally {
      await store.close();
    }
    // A table the database has and the dump lacks would lose its rows: every one is there, with rows.
    expect(manifest.tables.map((t) => t.name).sort()).toEqual(live.sort());
    expect(Object.entries(await counts(location)).filter(([, rows]) => rows === 0)).toEqual([]);
    expect(files(dump)['manifest.json']).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(manifest).toMatchObject({ format: 'frontier-store-dump', format_version: 1, migrations: [...MIGRATIONS] });
    expect(manifest.tables.map((t) => t.name)).toEqual([...TABLES].reverse());
    for (const t of manifest.tables) {
      const text = readFileSync(join(dump, t.file));
      expect([t.name, createHash('sha256').update(text).digest('hex')]).toEqual([t.name, t.sha256]);
      const lines = text.toString('utf8').split('\n');
      expect([t.name, lines.pop(), lines.length]).toEqual([t.name, '', t.rows]);
      const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      // Keys in the table's column order, rows by primary key.
      expect(Object.keys(rows[0]!)).toEqual(t.columns.map((c) => c.name));
      const ids = rows.map((r) => r.id as number);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    const benchmark = manifest.tables.find((t) => t.name === 'benchmark_results')!;
    expect(benchmark.columns.find((c) => c.name === 'tput_per_gpu')).toEqual({
      name: 'tput_per_gpu',
      type: 'real',
      nullable: false,
    });
    expect(benchmark.columns.find((c) => c.name === 'power_valid')).toEqual({
      name: 'power_valid',
      type: 'integer',
      nullable: true,
    });
  });

  it('restores and dumps again to the same bytes; the restored store answers as the original', async () => {
    const { location, dump } = seeded[dialect];
    const target = await locations[dialect]();
    const r = await restoreStore(target, dump);
    expect(r.tables.find((t) => t.name === 'benchmark_results')!.rows).toBe(
      manifestOf(dump).tables.find((t) => t.name === 'benchmark_results')!.rows,
    );
    expect(files(await dumpOf(target))).toEqual(files(dump));
    const [before, after] = await Promise.all(
      [location, target].map(async (l) => {
        const s = await openStore(l);
        try {
          return await benchmarks(s, { run: '100' });
        } finally {
          await s.close();
        }
      }),
    );
    expect(after).toEqual(before);
    // Keys continue after the restored ones (PostgreSQL's sequences were reset): a new ingest adds rows.
    const s = await openStore(target);
    try {
      const summary = await ingestBatch(s, readArtifacts(ARTIFACTS, { runId: 'after-restore', date: '2026-02-01' }));
      expect(summary.benchmarks.new).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

describe('a dump to publish (--omit tokens)', () => {
  it('leaves the token hashes out, says so, and restores with no tokens; dumped again the same way, the same bytes', async () => {
    const store = await openStore(seeded.sqlite.location);
    let dump: string;
    try {
      dump = (await dumpStore(store, newDumpDir(), { omit: ['tokens'] })).dir;
      await expect(dumpStore(store, newDumpDir(), { omit: ['secrets'] })).rejects.toThrow(
        '--omit secrets: no such table in the store',
      );
    } finally {
      await store.close();
    }
    expect(manifestOf(dump).omitted).toEqual(['tokens']);
    expect(Object.keys(files(dump))).not.toContain('tokens.jsonl');
    const target = await newPostgres();
    const r = await restoreStore(target, dump);
    expect(r.tables.find((t) => t.name === 'tokens')).toEqual({ name: 'tokens', rows: 0 });
    expect((await counts(target)).runs).toBe((await counts(seeded.sqlite.location)).runs);
    const again = await openStore(target);
    try {
      expect(files((await dumpStore(again, newDumpDir(), { omit: ['tokens'] })).dir)).toEqual(files(dump));
    } finally {
      await again.close();
    }
  });
});

describe('across databases', () => {
  it('SQLite → PostgreSQL → SQLite: every dump is byte-identical', async () => {
    const { dump } = seeded.sqlite;
    const inPostgres = await newPostgres();
    await restoreStore(inPostgres, dump);
    const fromPostgres = await dumpOf(inPostgres);
    expect(files(fromPostgres)).toEqual(files(dump));
    const back = newSqlite();
    await restoreStore(back, fromPostgres);
    expect(files(await dumpOf(back))).toEqual(files(dump));
  });

  it('corrections of the record survive a restore into the other database', async () => {
    for (const [from, to] of [
      ['sqlite', await newPostgres()],
      ['postgres', newSqlite()],
    ] as const) {
      await restoreStore(to, seeded[from].dump);
      const store = await openStore(to);
      try {
        // The purge: the run is nowhere, its audit entry says who and why, and its re-ingest is refused.
        expect((await runs(store, { source: 'all' })).map((r) => r.run_id)).not.toContain('bad-node');
        expect(await benchmarks(store, { run: 'bad-node' })).toEqual([]);
        expect(await audit(store, { run: 'bad-node' })).toEqual([
          expect.objectContaining({ action: 'purge', by: 'maintainer', reason: 'gpu-07 ran with ECC errors' }),
        ]);
        await expect(ingestBatch(store, officialRun('bad-node', '2026-01-13'))).rejects.toThrow(/frontier runs unpurge bad-node/);
        // The override: shown with its reason.
        const [pr7] = await runs(store, { run: 'pr-7', source: 'all' });
        expect(pr7).toMatchObject({
          conclusion: 'failure',
          conclusion_override: { conclusion: 'failure', reason: 'wrong image' },
        });
      } finally {
        await store.close();
      }
    }
  });

  it('PostgreSQL → SQLite: byte-identical', async () => {
    const { dump } = seeded.postgres;
    const inSqlite = newSqlite();
    await restoreStore(inSqlite, dump);
    expect(files(await dumpOf(inSqlite))).toEqual(files(dump));
  });
});

describe('what a restore refuses, writing nothing', () => {
  const copyOfDump = () => copyDir(seeded.sqlite.dump);
  const empty = (location: string) => counts(location).then((c) => Object.values(c).every((rows) => rows === 0));

  it('a file whose bytes are not those the manifest says, before opening the store', async () => {
    const dump = copyOfDump();
    const file = join(dump, 'runs.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"official":1', '"official":0'));
    const target = newSqlite();
    await expect(restoreStore(target, dump)).rejects.toThrow(`${file}: sha256 `);
    expect(readdirSync(join(target, '..'))).toEqual([]);
  });

  it.each(['sqlite', 'postgres'] as const)(
    'a bad line (on %s): its file and line, and the store stays empty',
    async (dialect) => {
      const dump = copyOfDump();
      // The third run's line is cut short; the tables before it were already inserted, and roll back.
      rewrite(dump, 'runs', (text) => {
        const lines = text.split('\n');
        lines[2] = lines[2]!.slice(0, 30);
        return lines.join('\n');
      });
      const target = await locations[dialect]();
      await expect(restoreStore(target, dump)).rejects.toThrow(`${join(dump, 'runs.jsonl')}:3: not JSON`);
      expect(await empty(target)).toBe(true);
    },
  );

  it('a value of the wrong type: its file, line, key and column', async () => {
    const dump = copyOfDump();
    rewrite(dump, 'benchmark_results', (text) => text.replace(/"tput_per_gpu":[^,]+/, '"tput_per_gpu":"fast"'));
    const target = newSqlite();
    await expect(restoreStore(target, dump)).rejects.toThrow(
      `${join(dump, 'benchmark_results.jsonl')}:1 (id 1): column tput_per_gpu: expected a number`,
    );
    expect(await empty(target)).toBe(true);
  });

  it('a store that is not empty, unless --replace, which replaces it in one go', async () => {
    const { location, dump } = seeded.sqlite;
    const target = newSqlite();
    copyFileSync(location, target);
    const store = await openStore(target);
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'extra', date: '2026-03-01' }));
    await store.close();
    await expect(restoreStore(target, dump)).rejects.toThrow(/is not empty \(.*runs: 5 rows.*\); nothing written/);
    expect((await counts(target)).runs).toBe(5);
    const r = await restoreStore(target, dump, { replace: true });
    expect(r.replaced).toBeGreaterThan(0);
    expect(files(await dumpOf(target))).toEqual(files(dump));
  });

  it('a dump of a newer schema or format, naming the versions', async () => {
    const newer = copyOfDump();
    editJson(join(newer, 'manifest.json'), (m) => ({
      ...(m as object),
      frontier_version: '9.0.0',
      migrations: [...MIGRATIONS, '999_future'],
    }));
    await expect(restoreStore(newSqlite(), newer)).rejects.toThrow(
      `the dump is of a newer schema than this Frontier knows: its store had migrations up to 999_future (Frontier 9.0.0), this Frontier's end at ${MIGRATIONS.at(-1)}`,
    );
    const format = copyOfDump();
    editJson(join(format, 'manifest.json'), (m) => ({ ...(m as object), format_version: 2 }));
    await expect(restoreStore(newSqlite(), format)).rejects.toThrow('dump format version 2; this Frontier reads version 1');
  });
});

describe('a dump of an older schema', () => {
  /** The fixture store from before repeats (migrations 001–005), dumped as the Frontier of then would have. */
  async function oldDump(): Promise<string> {
    const file = newSqlite();
    copyFileSync(OLD_STORE, file);
    const store = await openStore(file, { upTo: '005_run_deferred' });
    try {
      return (await dumpStore(store, newDumpDir())).dir;
    } finally {
      await store.close();
    }
  }

  it('restores into a new store at its schema, then the later migrations bring it up: as the old store migrated', async () => {
    const dump = await oldDump();
    expect(manifestOf(dump).migrations).toEqual(MIGRATIONS.slice(0, 5));
    expect(manifestOf(dump).tables.map((t) => t.name)).not.toContain('launch_attempts');
    const target = newSqlite();
    const r = await restoreStore(target, dump);
    expect(r.migrated).toEqual(MIGRATIONS.slice(5));
    const migrated = newSqlite();
    copyFileSync(OLD_STORE, migrated);
    expect(files(await dumpOf(target))).toEqual(files(await dumpOf(migrated)));
  });

  it('is refused by a store already past its schema, saying why', async () => {
    const dump = await oldDump();
    const target = newSqlite();
    await (await openStore(target)).close();
    await expect(restoreStore(target, dump)).rejects.toThrow(
      /its schema is past 005_run_deferred: it has 006_point_repeats, .* applied/,
    );
  });
});

describe('what a dump refuses', () => {
  it('a table the store has that TABLES does not name: the dump would lose its rows; nothing is left behind', async () => {
    const location = newSqlite();
    const store = await openStore(location);
    try {
      await sql`create table notes (id integer primary key, body text)`.execute(store.db);
      const out = temp('refused');
      await expect(dumpStore(store, join(out, 'dump'))).rejects.toThrow('the store has table notes that a dump does not know');
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a directory that is already there and not empty', async () => {
    const store = await openStore(newSqlite());
    try {
      await expect(dumpStore(store, seeded.sqlite.dump)).rejects.toThrow('already there');
    } finally {
      await store.close();
    }
  });
});

describe('frontier store (the commands)', () => {
  it('dump and restore say what they did; a refusal is an error naming the fix', () => {
    const dump = newDumpDir();
    const d = runCli(['store', 'dump', dump, '--db', seeded.sqlite.location]);
    expect([d.status, d.stderr]).toEqual([0, '']);
    expect(d.stdout).toMatch(
      new RegExp(`^dumped .* into .*: ${TABLES.length} tables, \\d+ rows \\(migrations up to ${MIGRATIONS.at(-1)}\\)\n`),
    );
    expect(d.stdout).toContain('  benchmark_results: ');
    const target = newSqlite();
    const r = runCli(['store', 'restore', dump, '--db', target]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(new RegExp(`^restored .* into .*frontier\\.db: ${TABLES.length} tables, \\d+ rows\n`));
    const again = runCli(['store', 'restore', dump, '--db', target]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('is not empty');
    expect(again.stderr).toContain('hint: restore into a new SQLite file or an empty database, or pass --replace');
    expect(runCli(['store', 'restore', dump, '--db', target, '--replace']).stdout).toContain('(replacing ');
  });
});
