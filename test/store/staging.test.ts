// Staged runs (`/stage-results`, migration 009_run_staging): a pull request's sweep staged for
// review is kept apart from the record. Its points never become latest points and appear in no
// view that does not ask for them (official, unofficial, all, history, evals); asked for by run,
// by source=staged or by pull request, they are there: in the store and through the API.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import type { RunRow } from '../../src/contract/index.js';
import { benchmarks, createToken, evaluations, history, ingestBatch, readArtifacts, run, runs } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { ARTIFACTS, DIALECTS, copyDir, editJson, storeFactory } from './helpers.js';

type Row = Record<string, unknown>;

const ingest = (store: Store, dir: string, o: Parameters<typeof readArtifacts>[1] = {}) =>
  ingestBatch(store, readArtifacts(dir, o));

/** The fixture measured `factor` faster: another run of the same points. */
function faster(factor: number): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Row[]).map((r) => ({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * factor })),
  );
  return dir;
}

describe.each(DIALECTS)('staged runs on %s', (dialect) => {
  const fresh = storeFactory(dialect);
  let store: Store;
  let app: FastifyInstance;
  let token: string;
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() as unknown };
  };
  const ids = (rows: { run_id: string }[]) => [...new Set(rows.map((r) => r.run_id))].sort();

  beforeAll(async () => {
    store = await fresh();
    await ingest(store, ARTIFACTS, { runId: 'off', official: true, date: '2026-08-01' });
    await ingest(store, faster(1.1), { runId: 'pr-run', date: '2026-09-01' });
    // Newer than both: were it in the record, its points would be every latest point.
    const staged = await ingest(store, faster(2), { runId: 'stg', stage: { pr: 7, by: 'alice' }, date: '2026-09-02' });
    expect(staged).toMatchObject({ run_id: 'stg', official: false, staged: { pr: 7, by: 'alice' } });
    expect(staged.benchmarks.total).toBe(6);
    token = await createToken(store, 'ci');
    app = await buildApi({ store, maxUploadBytes: 256 * 1024, maxUnpackedBytes: 1024 * 1024 });
    return () => app.close();
  }, 60_000);

  it('feeds no latest point and no view that does not name it', async () => {
    const latestRows = await store.db
      .selectFrom('latest_points as l')
      .innerJoin('runs as r', 'r.id', 'l.run_pk')
      .select('r.run_id')
      .execute();
    expect(ids(latestRows)).toEqual(['off', 'pr-run']);
    expect(ids(await benchmarks(store))).toEqual(['off']);
    expect(ids(await benchmarks(store, { source: 'unofficial' }))).toEqual(['pr-run']);
    // `all` and an as-of date are computed from every point rather than latest_points: still the record only.
    expect(ids(await benchmarks(store, { source: 'all' }))).toEqual(['pr-run']);
    expect(ids(await benchmarks(store, { source: 'unofficial', date: '2026-12-31' }))).toEqual(['pr-run']);
    expect(ids(await history(store, { source: 'all' }))).toEqual(['off', 'pr-run']);
    expect(ids(await evaluations(store, { source: 'all' })).includes('stg')).toBe(false);
    expect(ids(await runs(store))).toEqual(['off', 'pr-run']);
    expect(ids(await runs(store, { source: 'unofficial' }))).toEqual(['pr-run']);
  });

  it('is there where it is asked for: by run, as source staged, by pull request', async () => {
    const points = await benchmarks(store, { run: 'stg' });
    expect(points).toHaveLength(6);
    expect(points.every((p) => !p.official)).toBe(true);
    expect(ids(await benchmarks(store, { source: 'staged' }))).toEqual(['stg']);
    const [listed] = await runs(store, { source: 'staged' });
    expect(listed).toMatchObject({ run_id: 'stg', official: false, staged_pr: 7, staged_by: 'alice', points: 6 });
    expect(listed!.staged_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(ids(await runs(store, { pr: 7 }))).toEqual(['stg']);
    expect(await runs(store, { pr: 8 })).toEqual([]);
    expect(await run(store, 'stg')).toMatchObject({ staged_pr: 7, staged_by: 'alice' });
    expect(await run(store, 'off')).toMatchObject({ staged_pr: 0, staged_by: '', staged_at: '' });
  });

  it('the API: lists and shows staged runs where asked, never in the default views', async () => {
    expect(ids((await get('/api/v1/benchmarks?source=all')).body as Row[] as { run_id: string }[])).toEqual(['pr-run']);
    expect(ids((await get('/api/v1/runs')).body as RunRow[])).toEqual(['off', 'pr-run']);
    const staged = await get('/api/v1/runs?source=staged');
    expect(staged.status).toBe(200);
    expect(staged.body).toEqual([expect.objectContaining({ run_id: 'stg', staged_pr: 7, staged_by: 'alice' })]);
    expect(ids((await get('/api/v1/runs?pr=7')).body as RunRow[])).toEqual(['stg']);
    expect(((await get('/api/v1/benchmarks?run=stg')).body as Row[]).length).toBe(6);
    expect(ids((await get('/api/v1/benchmarks?source=staged')).body as Row[] as { run_id: string }[])).toEqual(['stg']);
    expect((await get('/api/v1/runs/stg')).body).toMatchObject({ run_id: 'stg', staged_pr: 7 });
  });

  it('staging a recorded run moves it out of the record; ingesting it again without --stage puts it back', async () => {
    const again = await ingest(store, faster(1.1), { runId: 'pr-run', stage: { pr: 9, by: 'bob' }, date: '2026-09-01' });
    expect(again.run_changes).toEqual(
      expect.arrayContaining([
        { field: 'staged_pr', from: '', to: '9' },
        { field: 'staged_by', from: '', to: 'bob' },
      ]),
    );
    expect(await benchmarks(store, { source: 'unofficial' })).toEqual([]);
    expect(ids(await runs(store, { source: 'staged' }))).toEqual(['pr-run', 'stg']);
    const back = await ingest(store, faster(1.1), { runId: 'pr-run', date: '2026-09-01' });
    expect(back.staged).toBeNull();
    expect(ids(await benchmarks(store, { source: 'unofficial' }))).toEqual(['pr-run']);
    expect(ids(await runs(store, { source: 'staged' }))).toEqual(['stg']);
  });

  it('a staged run is never official; the API stages an upload and checks its parameters before reading it', async () => {
    expect(() => readArtifacts(ARTIFACTS, { runId: 'x', official: true, stage: { pr: 1, by: 'a' } })).toThrow(
      /a staged run is never official/,
    );
    const archive = join(mkdtempSync(join(tmpdir(), 'frontier-tar-')), 'up.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', faster(3), '.']);
    const upload = (query: string) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/ingest${query}`,
        payload: readFileSync(archive),
        headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
      });
    const lone = await upload('?run_id=up&stage_pr=12');
    expect(lone.statusCode).toBe(400);
    expect(lone.json()).toEqual({ error: expect.stringMatching(/stage_pr and staged_by go together/) });
    expect((await upload('?run_id=up&stage_pr=12&staged_by=carol&official=true')).statusCode).toBe(400);
    const ok = await upload('?run_id=up&stage_pr=12&staged_by=carol');
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ run_id: 'up', staged: { pr: 12, by: 'carol' } });
    expect(ids(await runs(store, { pr: 12 }))).toEqual(['up']);
    expect(ids(await benchmarks(store, { source: 'all' }))).toEqual(['pr-run']);
  });
});
