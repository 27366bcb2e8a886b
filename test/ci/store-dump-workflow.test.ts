/**
 * The store dump workflow `frontier ci init` writes, run locally (test/support/actions-runner.ts)
 * against a seeded SQLite store as its secret: on schedule it dumps, checks and publishes; the
 * published tarball restores into PostgreSQL to the same bytes; dispatched without a release it
 * only keeps the artifact; a store the dump refuses fails the run before anything is published.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, ingestBatch, openStore, readArtifacts, restoreStore } from '../../src/store/index.js';
import { CLI, git, runCli, tempFiles } from '../helpers.js';
import { runWorkflowLocally } from '../support/actions-runner.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';
import { ARTIFACTS } from '../store/helpers.js';

const WORKFLOW = '.github/workflows/frontier-store-dump.yml';

function files(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'latin1')]));
}

async function seededStore(): Promise<string> {
  const db = join(mkdtempSync(join(tmpdir(), 'frontier-dump-wf-')), 'frontier.db');
  const store = await openStore(db);
  try {
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: '100', official: true, date: '2026-01-10' }));
    await createToken(store, 'ci');
  } finally {
    await store.close();
  }
  return db;
}

describe('frontier-store-dump.yml', () => {
  let repo: string;
  let sha: string;
  let pg: LocalPostgres;
  beforeAll(async () => {
    repo = tempFiles({});
    expect(runCli(['ci', 'init', '--dir', repo]).status).toBe(0);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'the workflows');
    sha = git(repo, 'rev-parse', 'HEAD');
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => pg?.stop());

  const run = (db: string, eventName: 'schedule' | 'workflow_dispatch', inputs?: Record<string, unknown>) =>
    runWorkflowLocally({
      repo,
      sha,
      workflow: WORKFLOW,
      eventName,
      event: JSON.stringify({
        repository: { full_name: 'acme/catalog' },
        ...(eventName === 'schedule' ? { schedule: '17 3 * * *' } : { inputs }),
      }),
      frontier: CLI,
      secrets: { FRONTIER_DB: db },
    });

  it('on schedule: dumps without token hashes, checks, keeps and publishes a tarball that restores into PostgreSQL to the same bytes', async () => {
    const db = await seededStore();
    const r = run(db, 'schedule');
    expect(r.results).toEqual({ dump: 'success' });
    expect(r.artifacts).toEqual(['frontier-store-dump']);
    const kept = r.artifact('frontier-store-dump');
    expect(Object.keys(kept)).toContain('manifest.json');
    expect(Object.keys(kept)).not.toContain('tokens.jsonl');
    const tag = `store-dump-${new Date().toISOString().slice(0, 10)}`;
    expect(Object.keys(r.releases)).toEqual([tag]);
    const unpacked = mkdtempSync(join(tmpdir(), 'frontier-dump-release-'));
    execFileSync('tar', ['-xzf', r.releases[tag]![`${tag}.tar.gz`]!, '-C', unpacked]);
    const published = join(unpacked, 'store-dump');
    expect(files(published)).toEqual(Object.fromEntries(Object.entries(kept).map(([f, p]) => [f, readFileSync(p, 'latin1')])));
    const target = await pg.createDatabase('from_release');
    await restoreStore(target, published);
    // Dumped again by the same build (the manifest names the Frontier that wrote it).
    const again = join(mkdtempSync(join(tmpdir(), 'frontier-dump-again-')), 'dump');
    expect(runCli(['store', 'dump', again, '--db', target, '--omit', 'tokens']).status).toBe(0);
    expect(files(again)).toEqual(files(published));

    // Dispatched without a release: kept as an artifact only.
    const quiet = run(db, 'workflow_dispatch', { release: false });
    expect(quiet.results).toEqual({ dump: 'success' });
    expect([quiet.artifacts, quiet.releases]).toEqual([['frontier-store-dump'], {}]);
  }, 120_000);

  it('a store the dump refuses fails the run: nothing kept, nothing published', async () => {
    const db = await seededStore();
    const store = await openStore(db);
    await sql`create table notes (id integer primary key)`.execute(store.db);
    await store.close();
    const r = run(db, 'schedule');
    expect(r.results).toEqual({ dump: 'failure' });
    const dump = r.jobs[0]!.steps.find((s) => s.name === 'Dump the store')!;
    expect(dump.log).toContain('the store has table notes that a dump does not know');
    expect([r.artifacts, r.releases]).toEqual([[], {}]);
  }, 60_000);
});
