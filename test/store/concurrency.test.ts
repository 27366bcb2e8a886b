// Writers at once on one store, as whole processes: `frontier ingest` from dist/ and an upload to `frontier serve`.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarks, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import { CLI, runCli, runCliAsync } from '../helpers.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';
import { ARTIFACTS, DIALECTS, copyDir, editJson } from './helpers.js';

type Row = Record<string, unknown>;

/** The fixture's 6 configs, each at `per` concurrencies: a run whose write takes a while, so that the writers overlap. */
function manyPoints(per: number): { dir: string; points: number } {
  const dir = copyDir(ARTIFACTS);
  let points = 0;
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) => {
    const out = (rows as Row[]).flatMap((r) => Array.from({ length: per }, (_, i) => ({ ...r, conc: i + 1 })));
    points = out.length;
    return out;
  });
  return { dir, points };
}

/** `frontier serve` on a free port; resolves with its URL once it listens. */
async function serve(db: string): Promise<{ url: string; server: ChildProcess }> {
  const server = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  server.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = / on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { url, server };
}

describe.each(DIALECTS)('concurrent ingests on %s', (dialect) => {
  let pg: LocalPostgres | undefined;
  beforeAll(async () => {
    if (dialect === 'postgres') pg = await startPostgres();
  }, 60_000);
  afterAll(async () => pg?.stop());

  const location = async (name: string) =>
    dialect === 'postgres' ? pg!.createDatabase(name) : join(mkdtempSync(join(tmpdir(), 'frontier-conc-')), 'frontier.db');

  it('four `frontier ingest` processes and an HTTP upload at once: all succeed, every run and point is stored', async () => {
    const db = await location('at_once');
    const token = runCli(['token', 'create', 'ci', '--db', db]).stdout.trim();
    const { dir, points } = manyPoints(100);
    const archive = join(mkdtempSync(join(tmpdir(), 'frontier-up-')), 'run.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', dir, '.']);
    const { url, server } = await serve(db);
    try {
      const [upload, ...cli] = await Promise.all([
        fetch(`${url}/api/v1/ingest?run_id=http&official=true`, {
          method: 'POST',
          body: readFileSync(archive),
          headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
        ...[1, 2, 3, 4].map((i) => runCliAsync(['ingest', dir, '--run-id', `cli-${i}`, '--official', '--db', db])),
      ]);
      expect(upload).toMatchObject({ status: 201 });
      for (const r of cli) {
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain(`points: ${points} (${points} new)`);
      }
    } finally {
      server.kill('SIGKILL');
    }

    const store = await openStore(db);
    try {
      const runs = await store.db.selectFrom('runs').select('run_id').orderBy('run_id').execute();
      expect(runs.map((r) => r.run_id)).toEqual(['cli-1', 'cli-2', 'cli-3', 'cli-4', 'http']);
      const count = async (table: 'benchmark_results' | 'latest_points') =>
        Number(
          (
            await store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count('benchmark_results')).toBe(5 * points);
      // One latest point per config and conc: the runs share them.
      expect(await count('latest_points')).toBe(points);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('ingests at once in one process (a pool of connections on PostgreSQL): replacements and new runs over the same points all succeed, and the latest points stay right', async () => {
    const store = await openStore(await location('in_process'));
    try {
      const date = (i: number) => `2026-0${1 + (i % 9)}-01`;
      for (let i = 1; i <= 4; i++)
        await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: `r${i}`, official: true, date: date(i) }));
      const fewer = copyDir(ARTIFACTS);
      editJson(join(fewer, 'results_bmk/agg_bmk.json'), (rows) => (rows as Row[]).slice(0, 3));
      // Later attempts of the stored runs (their points move, some go) and new runs, all at once.
      const batches = [
        ...[1, 2, 3, 4].map((i) => readArtifacts(fewer, { runId: `r${i}`, attempt: 2, official: true, date: date(9 - i) })),
        ...[5, 6, 7, 8].map((i) => readArtifacts(ARTIFACTS, { runId: `r${i}`, official: i % 2 === 0, date: date(i) })),
      ];
      const results = await Promise.allSettled(batches.map((b) => ingestBatch(store, b)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const FAR = '9999-12-31'; // with a date the latest is computed from every point, not read from latest_points
      for (const source of ['official', 'unofficial'] as const) {
        const kept = await benchmarks(store, { source });
        const computed = await benchmarks(store, { source, date: FAR });
        expect(kept.map((r) => [r.run_id, r.config_id, r.conc])).toEqual(computed.map((r) => [r.run_id, r.config_id, r.conc]));
      }
    } finally {
      await store.close();
    }
  });

  it('four `frontier ingest` processes opening a new store at once: one prepares it, all write', async () => {
    const db = await location('fresh');
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => runCliAsync(['ingest', ARTIFACTS, '--run-id', `fresh-${i}`, '--db', db])),
    );
    for (const r of results) expect(r.stderr).toBe('');
    const store = await openStore(db);
    try {
      expect(await store.db.selectFrom('runs').select('run_id').execute()).toHaveLength(4);
    } finally {
      await store.close();
    }
  }, 120_000);
});
