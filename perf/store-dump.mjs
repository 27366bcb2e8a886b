// `frontier store dump` and `frontier store restore` of a 200,000-point store, as a user runs them
// (whole processes), on SQLite, and on PostgreSQL when a server can be started here (Debian's
// postgresql package, as the tests start one). The store is seeded fast: one real ingest of the
// InferenceX fixture, then its points copied in bulk with SQL (20 runs × 10,000 points, each with
// the fixture's metrics JSON). Budgets (docs/performance.md): dump < 15 s, restore < 30 s.
// Usage: node perf/store-dump.mjs
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.cjs`;

export const DUMP_BUDGET_S = 15;
export const RESTORE_BUDGET_S = 30;
const RUNS = 20;
const PER_RUN = 10_000;

function frontier(...args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`frontier ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** A SQLite store with RUNS × PER_RUN points: the fixture's run ingested, then its points copied by SQL. */
function seed(file) {
  frontier('ingest', `${repo}test/fixtures/inferencex/artifacts`, '--run-id', 'seed', '--official', '--db', file);
  const db = new Database(file);
  const template = db.prepare('select * from benchmark_results order by id limit 1').get();
  const run = db.prepare('select * from runs limit 1').get();
  const configs = db
    .prepare('select id from configs')
    .all()
    .map((c) => c.id);
  const cols = Object.keys(template).filter((c) => c !== 'id');
  const insert = db.prepare(`insert into benchmark_results (${cols.join(',')}) values (${cols.map((c) => `@${c}`).join(',')})`);
  const runCols = Object.keys(run).filter((c) => c !== 'id');
  const insertRun = db.prepare(`insert into runs (${runCols.join(',')}) values (${runCols.map((c) => `@${c}`).join(',')})`);
  db.transaction(() => {
    db.prepare('delete from benchmark_results').run();
    for (let r = 0; r < RUNS; r++) {
      const runPk = Number(insertRun.run({ ...run, run_id: `perf-${r}` }).lastInsertRowid);
      for (let i = 0; i < PER_RUN; i++)
        insert.run({
          ...template,
          run_pk: runPk,
          config_id: configs[i % configs.length],
          conc: 1 + Math.floor(i / configs.length),
          tput_per_gpu: template.tput_per_gpu * (1 + ((i * 7919 + r) % 1000) / 1e4),
        });
    }
  })();
  const points = db.prepare('select count(*) as n from benchmark_results').get().n;
  db.close();
  return points;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** A throw-away PostgreSQL server (as test/support/postgres.ts starts one), or undefined when none is installed. */
async function startPostgres() {
  const root = '/usr/lib/postgresql';
  const bin = existsSync(root)
    ? readdirSync(root)
        .map((v) => join(root, v, 'bin'))
        .find((d) => existsSync(join(d, 'initdb')))
    : undefined;
  if (!bin) return undefined;
  const user =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  const dir = mkdtempSync(join(tmpdir(), 'frontier-perf-pg-'));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  execFileSync(
    join(bin, 'initdb'),
    ['-D', join(dir, 'data'), '-U', 'frontier', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    {
      stdio: 'pipe',
      ...user,
    },
  );
  const port = await freePort();
  const args = ['-D', join(dir, 'data'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
  const server = spawn(join(bin, 'postgres'), args, { stdio: 'ignore', ...user });
  const admin = `postgres://frontier@127.0.0.1:${port}/postgres`;
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.query('create database perf');
      await client.end();
      break;
    } catch (e) {
      await client.end().catch(() => {});
      if (i > 300) throw new Error(`PostgreSQL did not start: ${e.message}`);
      await sleep(100);
    }
  }
  return {
    url: `postgres://frontier@127.0.0.1:${port}/perf`,
    stop() {
      server.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function storeDumpPerf() {
  const root = mkdtempSync(join(tmpdir(), 'frontier-dump-perf-'));
  const server = await startPostgres();
  try {
    const db = join(root, 'frontier.db');
    const points = seed(db);
    const out = { points, sqlite: {}, postgres: undefined };
    out.sqlite.dumpS = frontier('store', 'dump', join(root, 'dump'), '--db', db);
    out.sqlite.restoreS = frontier('store', 'restore', join(root, 'dump'), '--db', join(root, 'restored.db'));
    out.dumpBytes = Number(execFileSync('du', ['-sb', join(root, 'dump')], { encoding: 'utf8' }).split('\t')[0]);
    if (server) {
      out.postgres = {};
      out.postgres.restoreS = frontier('store', 'restore', join(root, 'dump'), '--db', server.url);
      out.postgres.dumpS = frontier('store', 'dump', join(root, 'dump-pg'), '--db', server.url);
      const same = spawnSync('diff', ['-rq', join(root, 'dump'), join(root, 'dump-pg')]).status === 0;
      if (!same) throw new Error('the dump from PostgreSQL differs from the SQLite one');
    }
    return out;
  } finally {
    server?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The lines npm run perf prints. */
export function printStoreDump(r) {
  const line = (what, s, budget) =>
    console.log(
      `${what.padEnd(40)} ${s.toFixed(1).padStart(4)} s  (${r.points} points, dump ${(r.dumpBytes / 2 ** 20).toFixed(0)} MiB; budget < ${budget} s: ${s < budget ? 'met' : 'MISSED'})`,
    );
  line('store dump, SQLite', r.sqlite.dumpS, DUMP_BUDGET_S);
  line('store restore, into SQLite', r.sqlite.restoreS, RESTORE_BUDGET_S);
  if (r.postgres) {
    line('store restore, into PostgreSQL', r.postgres.restoreS, RESTORE_BUDGET_S);
    line('store dump, PostgreSQL (same bytes)', r.postgres.dumpS, DUMP_BUDGET_S);
  } else console.log(`${'store dump/restore, PostgreSQL'.padEnd(40)} skipped (no PostgreSQL installed here)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printStoreDump(await storeDumpPerf());
