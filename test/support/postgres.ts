// A real, throw-away PostgreSQL server for the store tests, from Debian's `postgresql` package (installed by
// scripts/install-system-deps.sh): `initdb` into a temp dir, then `postgres` in the foreground as a child of the test
// worker, on a free port on 127.0.0.1 with its socket in that dir. PostgreSQL refuses to run as root, so as root both
// run as the `postgres` user the package creates (the temp dir is handed to it). Durability is off (fsync,
// synchronous_commit): the cluster lives for one test file. stop() ends the server by its PID and removes the dir.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../helpers.js';
import { waitFor } from './wait.js';

export interface LocalPostgres {
  /** A postgres:// URL of a fresh, empty database. */
  url: string;
  /** Another empty database on the same server (for tests that need a clean store). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (!dir)
    throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/install-system-deps.sh');
  return dir;
}

/** The uid/gid to run as: the `postgres` user when we are root, else ourselves. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export async function startPostgres(): Promise<LocalPostgres> {
  const bin = binDir();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'frontier-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'frontier', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    stdio: 'pipe',
    ...user,
  });
  const port = await freePort();
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...user },
  );
  let log = '';
  server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  const admin = `postgres://frontier@127.0.0.1:${port}/postgres`;
  try {
    await waitFor(
      async () => {
        if (server.exitCode !== null || server.signalCode !== null)
          throw new Error(`it exited: ${server.signalCode ?? `exit code ${server.exitCode}`}`);
        const client = new pg.Client({ connectionString: admin });
        try {
          await client.connect();
          await client.end();
          return true;
        } catch {
          await client.end().catch(() => {});
          return false;
        }
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `PostgreSQL to take connections on port ${port}` },
    );
  } catch (error) {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start (${(error as Error).message}):\n${log.slice(-2000)}`);
  }

  const createDatabase = async (name: string): Promise<string> => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
    } finally {
      await client.end();
    }
    return `postgres://frontier@127.0.0.1:${port}/${name}`;
  };

  return {
    url: await createDatabase('frontier_test'),
    createDatabase,
    async stop() {
      if (server.exitCode === null) {
        // Smart shutdown: it waits for the sessions that are ending to end (a fast one cuts them off mid-goodbye).
        server.kill('SIGTERM');
        // Not a wait for something to have happened: its exit, or 10 s of grace before the SIGKILL.
        await Promise.race([exited, sleep(10_000)]);
        if (server.exitCode === null) server.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
