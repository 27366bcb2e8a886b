// Corrections of the record (migration 008_record_corrections; docs/store.md, "Corrections of the
// record"): purge, un-purge and conclusion overrides in the store, over the API and from the CLI,
// on SQLite and PostgreSQL. Two official runs of the InferenceX artifact set (100, then 200 at
// half the throughput) and an unofficial run (300) compared against them.
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { runsCommand } from '../../src/cli/runs.js';
import {
  CorrectionRefused,
  IngestConflict,
  audit,
  benchmarks,
  compareRun,
  createToken,
  evaluations,
  history,
  ingestBatch,
  overrideConclusion,
  purgeRun,
  readArtifacts,
  run,
  runs,
  unpurgeRun,
} from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { UserError } from '../../src/util/user-error.js';
import { ARTIFACTS, DIALECTS, copyDir, scaleMeasurements, storeFactory } from './helpers.js';

const HALF = (() => {
  const dir = copyDir(ARTIFACTS);
  scaleMeasurements(dir, 0.5);
  return dir;
})();

const ingest = (store: Store, runId: string, o: { dir?: string; date?: string; official?: boolean; attempt?: number } = {}) =>
  ingestBatch(
    store,
    readArtifacts(o.dir ?? (runId === '200' ? HALF : ARTIFACTS), {
      runId,
      official: o.official ?? true,
      date: o.date ?? { '100': '2026-01-01', '200': '2026-02-01' }[runId] ?? '2026-02-02',
      attempt: o.attempt,
    }),
  );

async function threeRuns(store: Store): Promise<void> {
  await ingest(store, '100');
  await ingest(store, '200');
  await ingest(store, '300', { official: false });
}

/** The run of each latest official point, the points' throughputs of run 100 and run 200. */
const latestRuns = async (store: Store) => [...new Set((await benchmarks(store, {})).map((p) => p.run_id))];
const latestTable = async (store: Store) =>
  (
    await store.db
      .selectFrom('latest_points as l')
      .innerJoin('runs as r', 'r.id', 'l.run_pk')
      .select('r.run_id')
      .where('l.official', '=', 1)
      .distinct()
      .execute()
  ).map((r) => r.run_id);
const baselines = async (store: Store) => [...new Set((await compareRun(store, '300'))!.points.map((p) => p.baseline_run_id))];
const historyRuns = async (store: Store) => [...new Set((await history(store, {})).map((p) => p.run_id))].sort();

describe.each(DIALECTS)('corrections of the record on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('a purged run leaves every table and view (the older run’s points are latest again); the audit keeps it; its run id is refused until un-purged', async () => {
    const store = await fresh();
    await threeRuns(store);
    expect(await latestRuns(store)).toEqual(['200']);
    expect(await baselines(store)).toEqual(['200']);
    const before = (await benchmarks(store, { run: '100' })).map((p) => p.metrics.tput_per_gpu);

    const entry = await purgeRun(store, '200', { by: 'alice', reason: '  wrong image  ' });
    expect(entry).toMatchObject({
      action: 'purge',
      run_id: '200',
      attempt: 1,
      by: 'alice',
      reason: 'wrong image',
      run: { official: true, date: '2026-02-01', status: 'completed', conclusion_override: null },
      counts: { points: 6, agentic_points: 0, evals: 3, run_stats: 5, logs: 0, attempts: 0, changelog: 1 },
      conclusion_from: null,
    });
    expect(Date.parse(entry.at)).toBeGreaterThan(Date.now() - 60_000);

    expect((await runs(store)).map((r) => r.run_id).sort()).toEqual(['100', '300']);
    expect(await run(store, '200')).toBeUndefined();
    expect(await benchmarks(store, { run: '200' })).toEqual([]);
    expect(await latestRuns(store)).toEqual(['100']);
    expect(await latestTable(store)).toEqual(['100']);
    expect((await benchmarks(store, {})).map((p) => p.metrics.tput_per_gpu).sort()).toEqual([...before].sort());
    expect([...new Set((await evaluations(store, {})).map((e) => e.run_id))]).toEqual(['100']);
    expect(await baselines(store)).toEqual(['100']);
    expect(await historyRuns(store)).toEqual(['100']);
    // Only runs 100 and 300 have rows left.
    const left = (await runs(store)).length;
    for (const table of ['benchmark_results', 'eval_results', 'run_stats', 'changelog_entries', 'latest_points'] as const) {
      const rows = await store.db.selectFrom(table).select('run_pk').distinct().execute();
      expect(rows.length, table).toBeLessThanOrEqual(left);
      const pks = (await store.db.selectFrom('runs').select('id').execute()).map((r) => r.id);
      expect(
        rows.every((r) => pks.includes(r.run_pk)),
        table,
      ).toBe(true);
    }

    // Refused, a dry run too; nothing written.
    await expect(ingest(store, '200')).rejects.toThrow(IngestConflict);
    await expect(ingest(store, '200', { attempt: 2 })).rejects.toThrow(
      /run 200 was purged on .* by alice \(wrong image\); nothing was written\. To ingest it again, un-purge it first: frontier runs unpurge 200 --reason/,
    );
    await expect(ingestBatch(store, readArtifacts(HALF, { runId: '200' }), { dryRun: true })).rejects.toThrow(IngestConflict);
    expect((await runs(store)).map((r) => r.run_id)).not.toContain('200');

    // Refusals: purged already, unknown, no reason, not purged.
    await expect(purgeRun(store, '200', { by: 'alice', reason: 'again' })).rejects.toThrow(/run 200 was purged on .* by alice/);
    await expect(purgeRun(store, 'nope', { by: 'alice', reason: 'x' })).rejects.toMatchObject({
      kind: 'unknown',
      message: 'no run nope in the store',
    });
    await expect(purgeRun(store, '100', { by: 'alice', reason: ' ' })).rejects.toThrow(/a reason is required/);
    await expect(unpurgeRun(store, '100', { by: 'alice', reason: 'x' })).rejects.toMatchObject({ kind: 'conflict' });
    await expect(overrideConclusion(store, '200', 'success', { by: 'alice', reason: 'x' })).rejects.toBeInstanceOf(
      CorrectionRefused,
    );
    expect(await latestRuns(store)).toEqual(['100']);

    const back = await unpurgeRun(store, '200', { by: 'bob', reason: 'the image was right after all' });
    expect(back).toMatchObject({ action: 'unpurge', run_id: '200', by: 'bob', counts: entry.counts, run: entry.run });
    expect(await latestRuns(store)).toEqual(['100']);
    await ingest(store, '200');
    expect(await latestRuns(store)).toEqual(['200']);
    expect(await latestTable(store)).toEqual(['200']);
    expect((await audit(store)).map((e) => [e.action, e.run_id, e.by])).toEqual([
      ['unpurge', '200', 'bob'],
      ['purge', '200', 'alice'],
    ]);
    expect(await audit(store, { run: '100' })).toEqual([]);
  });

  it('a failure override takes a run out of latest points, baselines and trends, survives re-ingests, and is shown with its reason; clearing it puts it back', async () => {
    const store = await fresh();
    await threeRuns(store);
    const e = await overrideConclusion(store, '200', 'failure', { by: 'carol', reason: 'misconfigured node' });
    expect(e).toMatchObject({ action: 'override', conclusion_from: 'success', conclusion_to: 'failure', by: 'carol' });

    const row = (await runs(store, { run: '200' }))[0]!;
    expect(row).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      conclusion_override: { conclusion: 'failure', reason: 'misconfigured node', by: 'carol', at: e.at },
    });
    expect((await run(store, '100'))!).toMatchObject({ conclusion: 'success', conclusion_override: null });
    expect(await latestRuns(store)).toEqual(['100']);
    expect(await latestTable(store)).toEqual(['100']);
    expect(await baselines(store)).toEqual(['100']);
    expect(await historyRuns(store)).toEqual(['100']);
    expect([...new Set((await evaluations(store, {})).map((x) => x.run_id))]).toEqual(['100']);
    // Named, the run is shown whole.
    expect(await benchmarks(store, { run: '200' })).toHaveLength(6);
    expect((await compareRun(store, '200'))!.points.every((p) => p.baseline_run_id === '100')).toBe(true);

    // Kept by a re-ingest and by a later attempt (the override is by run id).
    await ingest(store, '200');
    await ingest(store, '200', { attempt: 2 });
    expect((await run(store, '200'))!).toMatchObject({ attempt: 2, conclusion: 'failure' });
    expect(await latestRuns(store)).toEqual(['100']);
    expect(await latestTable(store)).toEqual(['100']);

    const cleared = await overrideConclusion(store, '200', null, { by: 'carol', reason: 'node was fine' });
    expect(cleared).toMatchObject({ action: 'clear-override', conclusion_from: 'failure', conclusion_to: 'success' });
    expect((await run(store, '200'))!).toMatchObject({ conclusion: 'success', conclusion_override: null });
    expect(await latestRuns(store)).toEqual(['200']);
    expect(await latestTable(store)).toEqual(['200']);
    expect(await baselines(store)).toEqual(['200']);
    await expect(overrideConclusion(store, '200', null, { by: 'carol', reason: 'x' })).rejects.toThrow(
      'run 200 has no conclusion override to clear',
    );

    // success on a run whose status failed: shown as success, its points counted as before.
    await store.db.updateTable('runs').set({ status: 'failed' }).where('run_id', '=', '100').execute();
    expect((await run(store, '100'))!.conclusion).toBe('failure');
    await overrideConclusion(store, '100', 'success', { by: 'dan', reason: 'CI failed after the benchmark' });
    expect((await run(store, '100'))!).toMatchObject({ status: 'failed', conclusion: 'success' });
    expect(await historyRuns(store)).toEqual(['100', '200']);
    expect((await audit(store)).map((x) => x.action)).toEqual(['override', 'clear-override', 'override']);
  });

  it('over the API: corrections need a token (who is its name), refusals are 404/409, the answers show them', async () => {
    const store = await fresh();
    await threeRuns(store);
    const token = await createToken(store, 'ops-bot');
    const app = await buildApi({ store });
    try {
      const post = (url: string, payload: unknown, auth = true) =>
        app.inject({
          method: 'POST',
          url,
          payload: payload as object,
          headers: auth ? { authorization: `Bearer ${token}` } : {},
        });
      expect((await post('/api/v1/runs/200/purge', { reason: 'x' }, false)).statusCode).toBe(401);
      expect(
        (
          await app.inject({
            method: 'POST',
            url: '/api/v1/runs/200/purge',
            payload: { reason: 'x' },
            headers: { authorization: 'Bearer nope' },
          })
        ).statusCode,
      ).toBe(401);
      expect((await post('/api/v1/runs/200/purge', {})).json().error).toMatch(/reason/);
      expect((await post('/api/v1/runs/200/override', { reason: 'x' })).statusCode).toBe(400);
      expect((await post('/api/v1/runs/nope/purge', { reason: 'x' })).statusCode).toBe(404);
      expect((await runs(store)).map((r) => r.run_id)).toContain('200');

      const o = await post('/api/v1/runs/100/override', { conclusion: 'failure', reason: 'bad image' });
      expect(o.statusCode).toBe(200);
      expect(o.json()).toMatchObject({ action: 'override', by: 'ops-bot', conclusion_to: 'failure' });
      const detail = (await app.inject({ url: '/api/v1/runs/100' })).json();
      expect(detail).toMatchObject({ conclusion: 'failure', conclusion_override: { reason: 'bad image', by: 'ops-bot' } });

      const p = await post('/api/v1/runs/200/purge', { reason: 'accidental merge' });
      expect(p.json()).toMatchObject({ action: 'purge', run_id: '200', by: 'ops-bot', counts: { points: 6 } });
      expect((await post('/api/v1/runs/200/purge', { reason: 'x' })).statusCode).toBe(409);
      expect((await post('/api/v1/runs/200/override', { clear: true, reason: 'x' })).statusCode).toBe(409);
      expect((await app.inject({ url: '/api/v1/runs/200' })).statusCode).toBe(404);
      expect((await app.inject({ url: '/api/v1/runs' })).json().map((r: { run_id: string }) => r.run_id)).toEqual(['300', '100']);
      // Neither 200 (purged) nor 100 (overridden to failure) is on the official record now.
      expect((await app.inject({ url: '/api/v1/benchmarks' })).json()).toEqual([]);
      expect((await app.inject({ url: '/api/v1/compare?run=300' })).json().unmatched).toBe(6);

      const log = (await app.inject({ url: '/api/v1/audit' })).json() as { action: string; by: string }[];
      expect(log.map((x) => `${x.action} ${x.by}`)).toEqual(['purge ops-bot', 'override ops-bot']);
      expect((await app.inject({ url: '/api/v1/audit?run=100' })).json()).toHaveLength(1);
      expect((await post('/api/v1/runs/200/unpurge', { reason: 'restore' })).json()).toMatchObject({ action: 'unpurge' });

      // The document says what these take: a JSON body with the reason, a token.
      const doc = (await app.inject({ url: '/api/openapi.json' })).json();
      expect(doc.paths['/api/v1/runs/{id}/override'].post).toMatchObject({
        security: [{ bearer: [] }],
        requestBody: { content: { 'application/json': { schema: { required: ['reason'] } } } },
        responses: { '401': {}, '404': {}, '409': {} },
      });
    } finally {
      await app.close();
    }
  });
});

describe('frontier runs (the command, in-process)', () => {
  const fresh = storeFactory('sqlite');
  const cli = async (store: Store, args: string[], env: NodeJS.ProcessEnv = { GITHUB_ACTOR: 'octo' }) => {
    let stdout = '';
    await runsCommand({ stdout: (t) => (stdout += t), env }).parseAsync(['node', 'runs', ...args, '--db', store.location]);
    return stdout;
  };

  it('purges, overrides and lists the audit; --by defaults to $GITHUB_ACTOR; bad input is refused with the fix', async () => {
    const store = await fresh();
    await threeRuns(store);
    expect(await cli(store, ['purge', '200', '--reason', 'wrong image'])).toMatch(
      /^purged run 200 \(attempt 1, official, 2026-02-01\): 6 points, 3 evals, 5 run stats, 1 changelog deleted; .* by octo: wrong image \(audit entry 1\)\n$/,
    );
    expect(await cli(store, ['override', '100', '--conclusion', 'failure', '--reason', 'bad node', '--by', 'eve'])).toContain(
      'run 100: conclusion success → failure (overridden); its points are out of latest points, baselines and trends; by eve',
    );
    await expect(cli(store, ['override', '100', '--conclusion', 'success', '--clear', '--reason', 'x'])).rejects.toThrow(
      /give --conclusion success\|failure, or --clear/,
    );
    await expect(cli(store, ['unpurge', '200', '--reason', ''])).rejects.toThrow(UserError);
    await expect(cli(store, ['purge', 'nope', '--reason', 'x'])).rejects.toThrow('no run nope in the store');
    const table = await cli(store, ['audit']);
    expect(table.split('\n')[0]).toMatch(/^id\s+at\s+action\s+run\s+attempt\s+by\s+conclusion\s+reason$/);
    expect(table).toMatch(/2 .* override\s+100\s+1\s+eve\s+success → failure\s+bad node/);
    const json = JSON.parse(await cli(store, ['audit', '--run', '200', '--format', 'json'])) as { action: string; by: string }[];
    expect(json.map((x) => [x.action, x.by])).toEqual([['purge', 'octo']]);
    expect(await cli(store, ['audit', '--run', '300'])).toBe('no corrections of the record for run 300\n');
  });
});
