// The store's launch attempts (migration 007_launch_attempts) and its report of the nodes whose
// launches keep failing (failingNodes, GET /api/v1/nodes, frontier nodes), on SQLite and PostgreSQL.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { IngestError, failingNodes, ingestBatch, openStore, readArtifacts, run } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import type { LaunchAttempt, RunManifest } from '../../src/launch/run-dir.js';
import { runCli } from '../helpers.js';
import { DIALECTS, copyDir, editJson, frontierRunDir, storeFactory } from './helpers.js';

type Attempt = Partial<LaunchAttempt> & Pick<LaunchAttempt, 'attempt' | 'nodes' | 'outcome'>;

/** A copy of the fixture run whose (one) launch made these attempts, on `cluster`, started at `started`. */
async function runWithAttempts(attempts: Attempt[], o: { cluster?: string; started?: string } = {}): Promise<string> {
  const dir = copyDir(await frontierRunDir());
  editJson(join(dir, 'run.json'), (value) => {
    const m = value as RunManifest;
    if (o.started) m.started = o.started;
    if (o.cluster) m.cluster = { ...m.cluster, name: o.cluster };
    m.launches[0]!.attempts = attempts.map((a) => ({
      started: '2026-12-01T10:00:00.000Z',
      ended: '2026-12-01T10:05:00.000Z',
      concs: [1, 2],
      ...a,
    }));
    return m;
  });
  return dir;
}

const ingest = async (store: Store, dir: string) => ingestBatch(store, readArtifacts(dir, {}));

describe.each(DIALECTS)('launch attempts in the store on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('keeps every attempt of every launch; a run.json without attempts ingests as before; a re-ingest replaces them', async () => {
    const store = await fresh();
    // A run.json from before attempts were recorded: nothing to keep, everything else as before.
    const old = await frontierRunDir();
    const before = JSON.parse(readFileSync(join(old, 'run.json'), 'utf8')) as RunManifest;
    const plain = copyDir(old);
    editJson(join(plain, 'run.json'), (value) => {
      const m = value as RunManifest;
      for (const l of m.launches) delete l.attempts;
      return m;
    });
    const s0 = await ingest(store, plain);
    expect(s0).toMatchObject({ attempts: { total: 0, infrastructure: 0 }, benchmarks: { total: 2 } });
    expect(await store.db.selectFrom('launch_attempts').selectAll().execute()).toEqual([]);
    // The fixture run (made by this Frontier) records its one attempt.
    expect(before.launches[0]!.attempts).toMatchObject([{ attempt: 1, outcome: 'ok', concs: [1, 2] }]);

    const dir = await runWithAttempts(
      [
        { attempt: 1, nodes: ['gpu-07'], outcome: 'infrastructure', reason: 'engine failed to start', job: '41' },
        { attempt: 2, nodes: ['gpu-08'], outcome: 'ok', job: '42', excluded: ['gpu-07'] },
      ],
      { cluster: 'slurm-a' },
    );
    const s = await ingest(store, dir);
    expect(s.attempts).toEqual({ total: 2, infrastructure: 1 });
    const rows = await store.db
      .selectFrom('launch_attempts as a')
      .innerJoin('runs as r', 'r.id', 'a.run_pk')
      .select(['r.run_id', 'a.cluster', 'a.launch', 'a.attempt', 'a.nodes', 'a.outcome', 'a.reason', 'a.job', 'a.ended_at'])
      .orderBy('a.attempt')
      .execute();
    expect(rows).toEqual([
      {
        run_id: s.run_id,
        cluster: 'slurm-a',
        launch: before.launches[0]!.id,
        attempt: 1,
        nodes: '["gpu-07"]',
        outcome: 'infrastructure',
        reason: 'engine failed to start',
        job: '41',
        ended_at: '2026-12-01T10:05:00.000Z',
      },
      {
        run_id: s.run_id,
        cluster: 'slurm-a',
        launch: before.launches[0]!.id,
        attempt: 2,
        nodes: '["gpu-08"]',
        outcome: 'ok',
        reason: '',
        job: '42',
        ended_at: '2026-12-01T10:05:00.000Z',
      },
    ]);
    // The run's detail (GET /api/v1/runs/:id) lists them, nodes as a list.
    expect((await run(store, s.run_id))!.attempts.map((a) => [a.attempt, a.nodes, a.outcome, a.reason])).toEqual([
      [1, ['gpu-07'], 'infrastructure', 'engine failed to start'],
      [2, ['gpu-08'], 'ok', ''],
    ]);
    // Idempotent: the same rows, not twice as many.
    await ingest(store, dir);
    expect(await store.db.selectFrom('launch_attempts').selectAll().execute()).toHaveLength(2);
    // A malformed attempt is refused with the rest of the run.
    const bad = await runWithAttempts([{ attempt: 0, nodes: ['x'], outcome: 'ok' }]);
    expect(() => readArtifacts(bad, {})).toThrow(IngestError);
    expect(() => readArtifacts(bad, {})).toThrow(/run\.json\.launches\[0\]\.attempts: expected \{ attempt ≥ 1/);
    // The run's detail still reads (the attempts' logs are among its logs when kept).
    expect((await run(store, s.run_id))?.run_id).toBe(s.run_id);
  }, 60_000);

  it('names the nodes whose launches failed repeatedly: failures, attempts, the latest failure; the API and the command say the same', async () => {
    const store = await fresh();
    const a = await ingest(
      store,
      await runWithAttempts(
        [
          { attempt: 1, nodes: ['gpu-07', 'gpu-09'], outcome: 'infrastructure', reason: 'NODE_FAIL', job: '7' },
          { attempt: 2, nodes: ['gpu-08', 'gpu-10'], outcome: 'ok', job: '8' },
        ],
        { cluster: 'slurm-a', started: '2026-12-01T09:00:00.000Z' },
      ),
    );
    const b = await ingest(
      store,
      await runWithAttempts(
        [
          {
            attempt: 1,
            nodes: ['gpu-07'],
            outcome: 'infrastructure',
            reason: 'engine failed to start … CUDA error',
            job: '17',
            ended: '2026-12-02T10:05:00.000Z',
          },
          { attempt: 2, nodes: ['gpu-08'], outcome: 'measurement', reason: 'conc 2 invalid', job: '18' },
        ],
        { cluster: 'slurm-a', started: '2026-12-02T09:00:00.000Z' },
      ),
    );
    // The same node name on another cluster is another node.
    await ingest(
      store,
      await runWithAttempts([{ attempt: 1, nodes: ['gpu-07'], outcome: 'infrastructure', reason: 'timeout' }], {
        cluster: 'slurm-b',
        started: '2026-12-03T09:00:00.000Z',
      }),
    );
    expect(a.run_id).not.toBe(b.run_id);

    const repeated = await failingNodes(store);
    expect(repeated).toEqual([
      {
        cluster: 'slurm-a',
        node: 'gpu-07',
        failures: 2,
        attempts: 2,
        last_failure_reason: 'engine failed to start … CUDA error',
        last_failure_at: '2026-12-02T10:05:00.000Z',
        last_failure_run: b.run_id,
        last_failure_launch: expect.any(String) as string,
        last_failure_job: '17',
      },
    ]);
    // Every node that failed at all, the most failures first, then the latest, then by name; a measurement
    // failure is no node's (gpu-08: attempts 2, failures 0, not listed).
    const once = await failingNodes(store, { minFailures: 1 });
    expect(once.map((n) => `${n.cluster}/${n.node}:${n.failures}/${n.attempts}`)).toEqual([
      'slurm-a/gpu-07:2/2',
      'slurm-a/gpu-09:1/1',
      'slurm-b/gpu-07:1/1',
    ]);
    expect((await failingNodes(store, { minFailures: 1, cluster: 'slurm-b' })).map((n) => n.node)).toEqual(['gpu-07']);

    const app = await buildApi({ store });
    try {
      const all = await app.inject({ method: 'GET', url: '/api/v1/nodes' });
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual(repeated);
      const some = await app.inject({ method: 'GET', url: '/api/v1/nodes?min_failures=1&cluster=slurm-a&limit=1' });
      expect((some.json() as { node: string }[]).map((n) => n.node)).toEqual(['gpu-07']);
      expect((await app.inject({ method: 'GET', url: '/api/v1/nodes?min_failures=0' })).statusCode).toBe(400);
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe('frontier nodes (the command)', () => {
  it('prints the failing nodes as a table or JSON, and says when there are none', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-nodes-')), 'frontier.db');
    const store = await openStore(db);
    try {
      for (const day of ['01', '02'])
        await ingest(
          store,
          await runWithAttempts(
            [
              { attempt: 1, nodes: ['gpu-07'], outcome: 'infrastructure', reason: `bad on ${day}`, job: day },
              { attempt: 2, nodes: ['gpu-08'], outcome: 'ok' },
            ],
            { cluster: 'slurm-a', started: `2026-12-${day}T09:00:00.000Z` },
          ),
        );
    } finally {
      await store.close();
    }
    const text = runCli(['nodes', '--db', db]);
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^cluster\s+node\s+failures\s+attempts\s+last failure\s+run\s+reason$/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/^slurm-a\s+gpu-07\s+2\s+2\s+2026-12-01 10:05:00\s+\S+\s+bad on 0[12]$/);
    const json = JSON.parse(runCli(['nodes', '--db', db, '--min-failures', '1', '--format', 'json']).stdout) as unknown[];
    expect(json).toHaveLength(1);
    const none = runCli(['nodes', '--db', db, '--cluster', 'slurm-b']);
    expect(none.stdout).toBe(`no node of slurm-b has failed 2 times or more in ${db}\n`);
    // --since: only attempts that ended in the last DAYS days (these ended on 2026-12-01 and -02).
    expect(runCli(['nodes', '--db', db, '--since', '1']).stdout).toBe(
      `no node has failed 2 times or more in the last 1 day in ${db}\n`,
    );
    const long = JSON.parse(runCli(['nodes', '--db', db, '--since', '100000', '--format', 'json']).stdout) as { node: string }[];
    expect(long.map((n) => n.node)).toEqual(['gpu-07']);
  }, 60_000);
});
