// The server's limits under hostile or heavy use: unauthenticated and oversized uploads, upload temp
// directories (deep trees, a killed server), and the cap on concurrent heavy queries with /health
// answering through it. The upload tests talk to real servers over TCP on 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { removeTree, sweepStaleUploads } from '../../src/api/uploads.js';
import { createToken, ingestBatch, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { CLI, runCli } from '../helpers.js';
import { ARTIFACTS, DIALECTS, storeFactory } from '../store/helpers.js';
import { waitFor } from '../support/wait.js';

const MiB = 2 ** 20;

/**
 * POST `bytes` of zeros to url, generated chunk by chunk as the socket drains (never held in this
 * process). Resolves with the status as soon as an answer comes; the rest of the body is not sent.
 */
function streamUpload(url: string, bytes: number, headers: Record<string, string> = {}): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/gzip', ...headers } });
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve(res.statusCode!);
      req.destroy();
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    let sent = 0;
    const pump = () => {
      while (!answered && sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** Start the built CLI's `frontier serve` and wait for its URL. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = / on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { child, url };
}

const kB = (pid: number, field: string): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

const uploadDirs = (root: string): string[] => readdirSync(root).filter((n) => n.startsWith('frontier-upload-'));

describe('uploads', () => {
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('unauthenticated uploads are refused before their body is read: 8 × 100 MiB leave the server’s memory flat', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-mem-')), 'frontier.db');
    const { child, url } = await serve(['--db', db]);
    started.push(child);
    // Settle the server's start-up allocations, then take the baseline.
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
    const baseline = kB(child.pid!, 'VmRSS');
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        streamUpload(`${url}/api/v1/ingest?run_id=mem-${i}`, 100 * MiB, i % 2 ? { authorization: 'Bearer ftk_wrong' } : {}),
      ),
    );
    expect(statuses).toEqual(Array(8).fill(401));
    const peak = kB(child.pid!, 'VmHWM');
    // Buffered, the bodies alone would be 800 MiB.
    expect(peak - baseline).toBeLessThan(150 * 1024);
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
    child.kill('SIGTERM');
  }, 120_000);

  it('a killed server’s upload dir is removed when the next one starts', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'frontier-tmp-'));
    const db = join(temp, 'frontier.db');
    const token = runCli(['token', 'create', 'ci', '--db', db]).stdout.trim();
    const first = await serve(['--db', db], { TMPDIR: temp });
    started.push(first.child);
    // An upload that stops half-way: its temp dir exists while the server waits for the rest.
    const req = request(`${first.url}/api/v1/ingest?run_id=cut`, {
      method: 'POST',
      headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}`, 'content-length': String(4 * MiB) },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(MiB));
    await waitFor(() => uploadDirs(temp).length > 0, { timeoutMs: 10_000, what: 'the cut upload’s temp dir' });
    expect(uploadDirs(temp)).toEqual([expect.stringMatching(new RegExp(`^frontier-upload-${first.child.pid}-`))]);
    const killed = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await killed;
    req.destroy();
    expect(uploadDirs(temp)).toHaveLength(1);

    const second = await serve(['--db', db], { TMPDIR: temp });
    started.push(second.child);
    expect(uploadDirs(temp)).toEqual([]);
    second.child.kill('SIGTERM');
  }, 60_000);

  describe('with a token', () => {
    const fresh = storeFactory('sqlite');
    let app: FastifyInstance;
    let url: string;
    let token: string;
    const root = mkdtempSync(join(tmpdir(), 'frontier-uploads-'));

    it('an upload over the limit is 413 as soon as the limit is passed, and leaves no temp dir', async () => {
      const store = await fresh();
      token = await createToken(store, 'ci');
      app = await buildApi({ store, maxUploadBytes: 4 * MiB, uploadRoot: root });
      url = await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        // No Content-Length (chunked): the limit is enforced while the body streams in.
        expect(await streamUpload(`${url}/api/v1/ingest?run_id=big`, 64 * MiB, { authorization: `Bearer ${token}` })).toBe(413);
        // A declared length over the limit is refused before anything is read.
        expect(
          await streamUpload(`${url}/api/v1/ingest?run_id=big`, 8 * MiB, {
            authorization: `Bearer ${token}`,
            'content-length': String(8 * MiB),
          }),
        ).toBe(413);
        // Removed before the 413 is sent (the handler's finally), so nothing to wait for.
        expect(uploadDirs(root)).toEqual([]);
        // The server is still there and still takes uploads.
        const archive = join(mkdtempSync(join(tmpdir(), 'frontier-up-')), 'run.tar.gz');
        execFileSync('tar', ['-czf', archive, '-C', ARTIFACTS, '.']);
        const ok = await fetch(`${url}/api/v1/ingest?run_id=small`, {
          method: 'POST',
          body: readFileSync(archive),
          headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
        });
        expect(ok.status).toBe(201);
        expect(uploadDirs(root)).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
});

describe('upload temp dirs', () => {
  it('a tree 10,000 levels deep is removed (fs.rmSync overflows the stack on it, fs.rm passes PATH_MAX)', () => {
    const root = mkdtempSync(join(tmpdir(), 'frontier-deep-'));
    const tree = join(root, 'tree');
    mkdirSync(tree);
    // Built level by level with relative paths: an absolute path this deep is longer than the OS takes.
    execFileSync(process.execPath, [
      '-e',
      `const fs = require('fs'); process.chdir(${JSON.stringify(tree)});
       for (let i = 0; i < 10000; i++) { fs.mkdirSync('a'); fs.writeFileSync('f', 'x'); process.chdir('a'); }`,
    ]);
    writeFileSync(join(tree, 'top.json'), '[]');
    removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  }, 120_000);

  it('at start, dirs of processes that are gone are removed; this process’s and live ones’ are kept', async () => {
    const root = mkdtempSync(join(tmpdir(), 'frontier-sweep-'));
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      for (const pid of [gone.pid, process.pid, live.pid]) {
        mkdirSync(join(root, `frontier-upload-${pid}-abc`, 'files', 'results_bmk'), { recursive: true });
      }
      mkdirSync(join(root, 'unrelated-1-abc'));
      expect(sweepStaleUploads(root)).toEqual([`frontier-upload-${gone.pid}-abc`]);
      expect(readdirSync(root).sort()).toEqual(
        [`frontier-upload-${process.pid}-abc`, `frontier-upload-${live.pid}-abc`, 'unrelated-1-abc'].sort(),
      );
    } finally {
      live.kill('SIGKILL');
    }
  });
});

describe.each(DIALECTS)('heavy queries on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('past the running and queued cap a heavy query is 503 with Retry-After; /health answers throughout', async () => {
    const store: Store = await fresh();
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'r1', official: true, date: '2026-08-01' }));
    const app = await buildApi({ store, maxConcurrentQueries: 2, maxQueuedQueries: 3 });
    try {
      const heavy = () => app.inject({ url: '/api/v1/benchmarks?model=dsr1' });
      if (dialect === 'postgres') {
        // Hold the heavy queries in the database (a lock on the points), so that slots stay taken
        // for as long as the test says: deterministic, with no timing involved.
        // The test server has no password, so the store's shown location is its URL.
        const lock = new pg.Client({ connectionString: store.location });
        await lock.connect();
        try {
          await lock.query('BEGIN');
          await lock.query('LOCK TABLE benchmark_results IN ACCESS EXCLUSIVE MODE');
          const done: { status: number; retry?: string }[] = [];
          const all = Array.from({ length: 8 }, () =>
            heavy().then((r) => {
              done.push({ status: r.statusCode, retry: r.headers['retry-after'] as string | undefined });
              return r;
            }),
          );
          await waitFor(() => done.length >= 3, {
            timeoutMs: 10_000,
            what: () => `the 3 queries past the cap to be answered (${done.length} so far)`,
          });
          expect(done).toEqual(Array(3).fill({ status: 503, retry: '1' }));
          const health = await app.inject({ url: '/api/v1/health' });
          expect(health.statusCode).toBe(200);
          expect(health.json()).toMatchObject({ ok: true, queries: { running: 2, queued: 3 } });
          expect(done).toHaveLength(3);
          await lock.query('COMMIT');
          const answers = await Promise.all(all);
          expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 503, 503, 503]);
          expect((await app.inject({ url: '/api/v1/health' })).json()).toMatchObject({ queries: { running: 0, queued: 0 } });
        } finally {
          await lock.end();
        }
      } else {
        // SQLite's queries are synchronous: requests that arrive together are all admitted or
        // turned away before the first query runs, and /health is answered before any of them.
        const order: string[] = [];
        const all = Array.from({ length: 20 }, () =>
          heavy().then((r) => {
            order.push(String(r.statusCode));
            return r;
          }),
        );
        const health = await app.inject({ url: '/api/v1/health' });
        order.push('health');
        expect(health.statusCode).toBe(200);
        const answers = await Promise.all(all);
        expect(answers.map((r) => r.statusCode).sort()).toEqual([...Array(5).fill(200), ...Array(15).fill(503)]);
        for (const r of answers) if (r.statusCode === 503) expect(r.headers['retry-after']).toBe('1');
        expect(order.indexOf('health')).toBeLessThan(order.indexOf('200'));
      }
    } finally {
      await app.close();
    }
  });
});
