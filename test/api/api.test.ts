import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { createToken, ingestBatch, readArtifacts, revokeToken } from '../../src/store/index.js';
import type { Comparison } from '../../src/contract/index.js';
import type { Store } from '../../src/store/index.js';
import { ARTIFACTS, DIALECTS, copyDir, editJson, storeFactory } from '../store/helpers.js';

type Row = Record<string, unknown>;

/** A .tar.gz of `dir` made by GNU tar, as a user would upload it. */
function tarGz(dir: string, ...extra: string[]): Buffer {
  const out = join(mkdtempSync(join(tmpdir(), 'frontier-tar-')), 'upload.tar.gz');
  execFileSync('tar', ['-czf', out, ...extra, '-C', dir, '.']);
  return readFileSync(out);
}

/** The fixture with a sweep of the h200 config at four concurrencies, whose frontier is known. */
function sweepDir(): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) => {
    const list = rows as Row[];
    const h200 = list[0]!;
    const at = (conc: number, x: number, y: number) => ({ ...h200, conc, median_intvty: x, tput_per_gpu: y });
    // (15, 70) is beaten by (20, 80) on both axes; the rest form the frontier.
    return [at(4, 10, 100), at(8, 20, 80), at(16, 15, 70), at(32, 30, 50), ...list.slice(1)];
  });
  mkdirSync(join(dir, 'server_logs_h200'));
  writeFileSync(join(dir, 'server_logs_h200', 'server.log'), 'engine up\nserving\n');
  return dir;
}

describe.each(DIALECTS)('the API on %s', (dialect) => {
  const fresh = storeFactory(dialect);
  let store: Store;
  let app: FastifyInstance;
  let token: string;
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const r = await app.inject({ method: 'GET', url, headers });
    return { status: r.statusCode, body: r.json() as unknown, headers: r.headers };
  };
  const upload = (body: Buffer, query = '', headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/ingest${query}`,
      payload: body,
      headers: { 'content-type': 'application/gzip', ...headers },
    });

  beforeAll(async () => {
    store = await fresh();
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'old', official: true, date: '2026-08-01' }));
    await ingestBatch(store, readArtifacts(sweepDir(), { runId: 'new', official: true, date: '2026-09-01' }));
    const pr = copyDir(ARTIFACTS);
    editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) =>
      (rows as Row[]).map((r) => ({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * 0.8 })),
    );
    await ingestBatch(store, readArtifacts(pr, { runId: 'pr-1', date: '2026-09-02' }));
    token = await createToken(store, 'ci');
    app = await buildApi({ store, maxUploadBytes: 256 * 1024, maxUnpackedBytes: 1024 * 1024 });
    return () => app.close();
  });

  it('benchmarks: the latest official points, filtered; as of a date; one run’s', async () => {
    const latest = await get('/api/v1/benchmarks?model=dsr1&isl=8192&osl=1024');
    expect(latest.status).toBe(200);
    const rows = latest.body as Row[];
    // The newer sweep of h200 replaced conc 64 with 4–32: each point is the latest of its own (config, conc).
    expect(rows.filter((r) => r.hardware === 'h200').map((r) => [r.conc, r.run_id])).toEqual([
      [4, 'new'],
      [8, 'new'],
      [16, 'new'],
      [32, 'new'],
      [64, 'old'],
    ]);
    expect(rows.filter((r) => r.hardware !== 'h200').every((r) => r.run_id === 'new' && r.official === true)).toBe(true);
    const asOf = (await get('/api/v1/benchmarks?model=dsr1&date=2026-08-15')).body as Row[];
    expect(asOf.map((r) => [r.hardware, r.run_id, r.conc])).toEqual([
      ['b300', 'old', 64],
      ['gb200', 'old', 48],
      ['h200', 'old', 64],
    ]);
    const slim = (await get('/api/v1/benchmarks?model=dsr1&hardware=b300&metrics=tput_per_gpu,median_ttft,nope')).body as Row[];
    expect(slim.map((r) => Object.keys(r.metrics as object))).toEqual([['tput_per_gpu', 'median_ttft']]);
    expect((await get('/api/v1/benchmarks?metrics=a;b')).status).toBe(400);
    const pr = (await get('/api/v1/benchmarks?run=pr-1')).body as Row[];
    expect(pr).toHaveLength(6);
    expect(((await get('/api/v1/benchmarks?source=unofficial&hardware=b200')).body as Row[]).map((r) => r.run_id)).toEqual([
      'pr-1',
    ]);
  });

  it('every input is checked: unknown parameters, wrong types and values are 400s that say which', async () => {
    expect(await get('/api/v1/benchmarks?model=dsr1&sort=tput')).toMatchObject({
      status: 400,
      body: { error: 'unknown parameter "sort"' },
    });
    expect(await get('/api/v1/benchmarks?isl=lots')).toMatchObject({
      status: 400,
      body: { error: 'isl: expected an integer from 1 to 10000000, got "lots"' },
    });
    expect(await get('/api/v1/benchmarks?source=mine')).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('official, unofficial, staged, all') },
    });
    expect(await get('/api/v1/benchmarks?date=yesterday')).toMatchObject({
      status: 400,
      body: { error: 'date: expected a date that exists, YYYY-MM-DD, got "yesterday"' },
    });
    expect(await get('/api/v1/history')).toMatchObject({ status: 400, body: { error: 'missing parameter: config or model' } });
    expect(await get('/api/v1/pareto?model=dsr1&x=vibes')).toMatchObject({
      status: 400,
      body: { error: 'no direction known for metric "vibes"' },
    });
    expect(await get('/api/v1/nothing')).toMatchObject({ status: 404, body: { error: 'no such endpoint: GET /api/v1/nothing' } });
  });

  it('numbers out of range (1e999, negative, fractional) and impossible dates are 400s naming the parameter and its range', async () => {
    const cases: [string, string][] = [
      ['/api/v1/runs?limit=1e999', 'limit: expected an integer from 1 to 1000, got "1e999"'],
      ['/api/v1/runs?offset=1e999', 'offset: expected an integer from 0 to 10000000, got "1e999"'],
      ['/api/v1/runs?offset=-1', 'offset: expected an integer from 0 to 10000000, got "-1"'],
      ['/api/v1/benchmarks?limit=0', 'limit: expected an integer from 1 to 10000, got "0"'],
      ['/api/v1/benchmarks?isl=1e999', 'isl: expected an integer from 1 to 10000000, got "1e999"'],
      ['/api/v1/benchmarks?osl=1.5', 'osl: expected an integer from 1 to 10000000, got "1.5"'],
      ['/api/v1/history?config=1e999', 'config: expected an integer from 1 to 10000000, got "1e999"'],
      ['/api/v1/history?model=dsr1&conc=NaN', 'conc: expected an integer from 1 to 10000000, got "NaN"'],
      ['/api/v1/compare?run=pr-1&min-effect=1e999', 'min-effect: expected a number from 0 to 100, got "1e999"'],
      ['/api/v1/benchmarks?date=2026-02-30', 'date: expected a date that exists, YYYY-MM-DD, got "2026-02-30"'],
      ['/api/v1/evaluations?date=2025-02-29', 'date: expected a date that exists, YYYY-MM-DD, got "2025-02-29"'],
      ['/api/v1/benchmarks?date=2026-13-01', 'date: expected a date that exists, YYYY-MM-DD, got "2026-13-01"'],
    ];
    for (const [url, error] of cases) expect(await get(url), url).toMatchObject({ status: 400, body: { error } });
    // A leap day that exists is a date.
    expect((await get('/api/v1/benchmarks?date=2028-02-29')).status).toBe(200);
    // The ingest's date too, checked before anything is unpacked.
    const r = await upload(tarGz(ARTIFACTS), '?run_id=bad-date&date=2026-02-30');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: 'date: expected a date that exists, YYYY-MM-DD, got "2026-02-30"' });
  });

  it('pages: limit, a cursor to follow (X-Next-Cursor, Link rel="next"), offset for older callers; the pages add up to the whole', async () => {
    const whole = await get('/api/v1/benchmarks?source=all&date=2026-12-31');
    const all = whole.body as Row[];
    expect(all.length).toBeGreaterThan(5);
    expect(whole.headers['x-next-cursor']).toBeUndefined();
    const pages: Row[][] = [];
    let url: string | undefined = '/api/v1/benchmarks?source=all&date=2026-12-31&limit=2';
    while (url) {
      const page = await get(url);
      expect(page.status).toBe(200);
      pages.push(page.body as Row[]);
      const link = page.headers.link as string | undefined;
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
      if (url) expect(url).toContain(`cursor=${page.headers['x-next-cursor'] as string}`);
    }
    expect(pages.map((p) => p.length)).toEqual([...Array(Math.floor(all.length / 2)).fill(2), ...(all.length % 2 ? [1] : [])]);
    expect(pages.flat()).toEqual(all);
    // offset, as before: the same rows.
    expect((await get('/api/v1/benchmarks?source=all&date=2026-12-31&limit=2&offset=2')).body).toEqual(all.slice(2, 4));
    // Every list pages the same way.
    for (const path of ['/api/v1/history?model=dsr1', '/api/v1/evaluations?source=all', '/api/v1/availability', '/api/v1/runs']) {
      const full = (await get(path)).body as Row[];
      const first = await get(`${path}${path.includes('?') ? '&' : '?'}limit=1`);
      expect(first.body, path).toEqual(full.slice(0, 1));
      const second = await get(/^<([^>]+)>/.exec(first.headers.link as string)![1]!);
      expect(second.body, path).toEqual(full.slice(1, 2));
    }
    expect(await get('/api/v1/benchmarks?cursor=bm9wZQ')).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('cursor: not a cursor this server gave') },
    });
    const cursor = (await get('/api/v1/runs?limit=1')).headers['x-next-cursor'] as string;
    expect(await get(`/api/v1/runs?cursor=${cursor}&offset=1`)).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('cursor and offset: pass one') },
    });
    expect((await get('/api/v1/benchmarks?limit=10001')).status).toBe(400);
  });

  it('hostile filter values are data: SQL metacharacters match nothing and change nothing', async () => {
    for (const v of [
      "dsr1' OR '1'='1",
      '"; DROP TABLE benchmark_results; --',
      '%25',
      "x' UNION SELECT name, hash FROM tokens --",
    ]) {
      const r = await get(`/api/v1/benchmarks?model=${encodeURIComponent(v)}`);
      expect(r, v).toMatchObject({ status: 200, body: [] });
      expect((await get(`/api/v1/evaluations?task=${encodeURIComponent(v)}`)).body).toEqual([]);
      expect((await get(`/api/v1/runs/${encodeURIComponent(v)}`)).status).toBe(404);
    }
    expect(((await get('/api/v1/benchmarks?run=pr-1')).body as Row[]).length).toBe(6);
  });

  it('pareto: each series’ frontier, with the right direction for the axes', async () => {
    const r = await get('/api/v1/pareto?model=dsr1&isl=8192&osl=1024');
    expect(r.status).toBe(200);
    const body = r.body as {
      goals: Row;
      series: { key: string; points: { conc: number; x: number; y: number }[]; frontier: number[] }[];
    };
    expect(body.goals).toEqual({ x: 'max', y: 'max' });
    const h200 = body.series.find((s) => s.key.startsWith('h200/'))!;
    // A series is its newest sweep: the older conc 64 point is not part of it.
    expect(h200.points.map((p) => p.conc)).toEqual([4, 8, 16, 32]);
    expect(h200.frontier.map((i) => h200.points[i]!.conc)).toEqual([4, 8, 32]);
    // Throughput against TTFT (lower is better): the frontier keeps the fastest point too.
    const ttft = (await get('/api/v1/pareto?model=dsr1&x=median_ttft')).body as typeof body;
    expect(ttft.goals).toEqual({ x: 'min', y: 'max' });
    expect(body.series.every((s) => s.frontier.length >= 1)).toBe(true);
  });

  it('history, evaluations, availability, runs, one run, compare', async () => {
    const rows = (await get('/api/v1/benchmarks?model=dsr1&hardware=b300')).body as Row[];
    const config = rows[0]!.config_id as number;
    const over = (await get(`/api/v1/history?config=${config}`)).body as Row[];
    expect(over.map((r) => [r.date, r.run_id])).toEqual([
      ['2026-08-01', 'old'],
      ['2026-09-01', 'new'],
    ]);
    const model = (await get('/api/v1/history?model=dsr1&hardware=h200')).body as Row[];
    expect(model.map((r) => [r.date, r.conc])).toEqual([
      ['2026-08-01', 64],
      ['2026-09-01', 4],
      ['2026-09-01', 8],
      ['2026-09-01', 16],
      ['2026-09-01', 32],
    ]);
    const evals = (await get('/api/v1/evaluations?task=gsm8k')).body as Row[];
    expect(evals).toHaveLength(3);
    expect(evals.every((e) => e.run_id === 'new')).toBe(true);
    const avail = (await get('/api/v1/availability')).body as Row[];
    expect(new Set(avail.map((a) => a.date))).toEqual(new Set(['2026-08-01', '2026-09-01']));
    expect(avail.some((a) => a.hardware === 'mi355x' && a.framework === 'mori-sglang' && a.disagg === true)).toBe(true);

    const runs = (await get('/api/v1/runs')).body as Row[];
    expect(runs.map((r) => r.run_id)).toEqual(['pr-1', 'new', 'old']);
    expect(((await get('/api/v1/runs?source=official&limit=1')).body as Row[]).map((r) => r.run_id)).toEqual(['new']);
    const one = await get('/api/v1/runs/new');
    expect(one.body).toMatchObject({
      run_id: 'new',
      points: 9,
      evals: 3,
      success_rate: 6 / 7,
      run_stats: expect.any(Array),
      changelog: [expect.objectContaining({ pr_link: expect.any(String) })],
    });
    expect(await get('/api/v1/runs/nope')).toMatchObject({ status: 404, body: { error: 'no run nope in the store' } });
    const logs = (one.body as { logs: { name: string }[] }).logs;
    expect(logs.map((l) => l.name)).toEqual(['server_logs_h200/server.log']);
    const log = await app.inject({ url: `/api/v1/runs/new/log?name=${encodeURIComponent(logs[0]!.name)}` });
    expect(log.statusCode).toBe(200);
    expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(log.body).toBe('engine up\nserving\n');
    expect((await get('/api/v1/runs/new/log?name=../../etc/passwd')).status).toBe(404);

    const c = await get('/api/v1/compare?run=pr-1&min-effect=10&alpha=0.01');
    const comparison = c.body as Comparison;
    expect(comparison.method).toMatchObject({ min_effect_pct: 10, alpha: 0.01, fdr: 'benjamini-hochberg' });
    expect(comparison.regressions).toBe(comparison.verdicts.regression);
    expect(Object.values(comparison.verdicts).reduce((a, b) => a + b, 0)).toBe(comparison.points.length - comparison.unmatched);
    const t = comparison.points[0]!.metrics.tput_per_gpu!;
    expect(t.delta_pct).toBeCloseTo(-20, 9);
    expect(t).toMatchObject({ n_run: 1, n_baseline: 1 });
    expect(['regression', 'inconclusive']).toContain(t.verdict);
    expect((await get('/api/v1/compare?run=pr-1&alpha=0.9')).status).toBe(400);
    expect((await get('/api/v1/compare?run=nope')).status).toBe(404);
  });

  it('predicted-frontier: the planner’s frontier from the simulator, cached; 404 for what the simulator does not know', async () => {
    const url = '/api/v1/predicted-frontier?model=meta-llama/Llama-3.1-8B-Instruct&hardware=h100&precision=fp8&isl=1024&osl=64';
    const first = await get(url);
    expect(first.status).toBe(200);
    const body = first.body as {
      model: string;
      points: { deployment: string; conc: number; interactivity: number; tputPerGpu: number }[];
    };
    expect(body.model).toBe('llama-3.1-8b');
    expect(body.points.length).toBeGreaterThan(1);
    const xs = body.points.map((p) => p.interactivity);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect((await get(url)).body).toEqual(body);
    const unknown = await get('/api/v1/predicted-frontier?model=no-such-model&hardware=h100&precision=fp8&isl=1024&osl=64');
    expect(unknown.status).toBe(404);
    expect((unknown.body as { error: string }).error).toContain('unknown model "no-such-model"');
    expect((await get('/api/v1/predicted-frontier?model=llama-3.1-8b&hardware=h100&precision=int3&isl=1024&osl=64')).status).toBe(
      404,
    );
    expect((await get('/api/v1/predicted-frontier?model=llama-3.1-8b&hardware=h100')).status).toBe(400);
  });

  it('the OpenAPI document lists every route and every parameter the server accepts', async () => {
    const doc = (await get('/api/openapi.json')).body as {
      openapi: string;
      paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean }[] }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/v1/agentic',
        '/api/v1/agentic/{id}',
        '/api/v1/audit',
        '/api/v1/availability',
        '/api/v1/benchmarks',
        '/api/v1/compare',
        '/api/v1/evaluations',
        '/api/v1/health',
        '/api/v1/history',
        '/api/v1/ingest',
        '/api/v1/nodes',
        '/api/v1/pareto',
        '/api/v1/predicted-frontier',
        '/api/v1/runs',
        '/api/v1/runs/{id}',
        '/api/v1/runs/{id}/log',
        '/api/v1/runs/{id}/override',
        '/api/v1/runs/{id}/purge',
        '/api/v1/runs/{id}/unpurge',
        '/api/v1/variation',
      ].sort(),
    );
    const names = (path: string, method = 'get') => doc.paths[path]![method]!.parameters.map((p) => p.name);
    expect(names('/api/v1/benchmarks')).toEqual([
      'model',
      'isl',
      'osl',
      'hardware',
      'framework',
      'precision',
      'run',
      'source',
      'date',
      'exact',
      'metrics',
      'limit',
      'cursor',
      'offset',
    ]);
    expect(doc.paths['/api/v1/compare']!.get!.parameters.find((p) => p.name === 'run')).toMatchObject({
      in: 'query',
      required: true,
    });
    expect(doc.paths['/api/v1/runs/{id}']!.get!.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(names('/api/v1/nodes')).toEqual(['cluster', 'min_failures', 'limit', 'cursor', 'offset']);
    expect(names('/api/v1/ingest', 'post')).toContain('official');
    // Each documented parameter is one the server takes: a request with it is not refused as unknown.
    for (const p of doc.paths['/api/v1/benchmarks']!.get!.parameters) {
      const value =
        {
          isl: '1',
          osl: '1',
          source: 'all',
          date: '2026-01-01',
          exact: 'true',
          metrics: 'tput_per_gpu',
          limit: '5',
          offset: '0',
          cursor: 'bzA',
        }[p.name] ?? 'x';
      expect((await get(`/api/v1/benchmarks?${p.name}=${value}`)).status, p.name).toBe(200);
    }
  });

  it('ingest over HTTP: a token is required; the upload lands once; re-uploading changes nothing', async () => {
    const archive = tarGz(ARTIFACTS);
    const none = await upload(archive, '?run_id=http-1', {});
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect((await upload(archive, '?run_id=http-1', { authorization: 'Bearer ftk_wrong' })).statusCode).toBe(401);
    expect((await upload(archive, '?run_id=http-1', { authorization: `Basic ${token}` })).statusCode).toBe(401);

    const first = await upload(archive, '?run_id=http-1&date=2026-09-03');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ run_id: 'http-1', official: false, benchmarks: { total: 6, new: 6 } });
    const again = await upload(archive, '?run_id=http-1&date=2026-09-03');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ benchmarks: { new: 0 } });
    expect(((await get('/api/v1/benchmarks?run=http-1')).body as Row[]).length).toBe(6);

    // An archive of the directory itself (one top-level folder) works the same.
    const parent = mkdtempSync(join(tmpdir(), 'frontier-parent-'));
    execFileSync('cp', ['-r', ARTIFACTS, join(parent, 'artifacts')]);
    expect((await upload(tarGz(parent), '?run_id=http-2&dry_run=true')).json()).toMatchObject({
      dry_run: true,
      benchmarks: { new: 6 },
    });
    expect(((await get('/api/v1/benchmarks?run=http-2')).body as Row[]).length).toBe(0);

    // An archive whose one top-level folder is the set's own results_bmk/: that is the set (as `frontier ingest` reads it).
    const bmkOnly = mkdtempSync(join(tmpdir(), 'frontier-bmk-'));
    execFileSync('cp', ['-r', join(ARTIFACTS, 'results_bmk'), join(bmkOnly, 'results_bmk')]);
    const fromBmk = await upload(tarGz(bmkOnly), '?run_id=http-bmk&dry_run=true');
    expect(fromBmk.statusCode).toBe(200);
    expect(fromBmk.json()).toMatchObject({ benchmarks: { new: 6 } });
    expect(readArtifacts(bmkOnly, { runId: 'http-bmk' }).benchmarks).toHaveLength(6);

    // Bad rows: 422 with each problem, nothing written.
    const bad = copyDir(ARTIFACTS);
    editJson(join(bad, 'results_bmk/agg_bmk.json'), (rows) => {
      (rows as Row[])[2]!.isl = 'long';
      return rows;
    });
    const refused = await upload(tarGz(bad), '?run_id=http-3');
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      problems: [{ file: 'results_bmk/agg_bmk.json', index: 2, field: 'isl', message: 'expected an integer ≥ 1, got "long"' }],
    });
    expect(((await get('/api/v1/runs')).body as Row[]).some((r) => r.run_id === 'http-3')).toBe(false);

    // An older attempt than the stored one: 409.
    await upload(archive, '?run_id=http-4&attempt=2');
    expect((await upload(archive, '?run_id=http-4&attempt=1')).statusCode).toBe(409);

    // A revoked token no longer works.
    const temp = await createToken(store, 'temp');
    await revokeToken(store, 'temp');
    expect((await upload(archive, '?run_id=http-5', { authorization: `Bearer ${temp}` })).statusCode).toBe(401);
  });

  it('hostile uploads: path traversal, absolute paths, links, gzip bombs, oversized and non-archive bodies', async () => {
    const escape = mkdtempSync(join(tmpdir(), 'frontier-escape-'));
    const inside = join(escape, 'inside');
    mkdirSync(inside);
    writeFileSync(join(escape, 'evil.json'), '[]');
    const marker = join(tmpdir(), `frontier-evil-${process.pid}.json`);
    writeFileSync(marker, '[]');

    const traversal = join(escape, 'traversal.tar.gz');
    execFileSync('tar', ['-czPf', traversal, '-C', inside, '../evil.json']);
    const t = await upload(readFileSync(traversal));
    expect(t.statusCode).toBe(400);
    expect(t.json()).toEqual({ error: 'path escapes the archive: ../evil.json' });

    const absolute = join(escape, 'absolute.tar.gz');
    execFileSync('tar', ['-czPf', absolute, marker]);
    expect((await upload(readFileSync(absolute))).json()).toEqual({ error: `absolute path in the archive: ${marker}` });

    const linked = copyDir(ARTIFACTS);
    symlinkSync('/etc/passwd', join(linked, 'results_bmk', 'passwd'));
    const l = await upload(tarGz(linked), '?run_id=links');
    expect(l.statusCode).toBe(400);
    expect(l.json().error).toMatch(/^links are not accepted in an upload: .*passwd → \/etc\/passwd$/);

    // 8 MiB of zeros gzips to ~8 KiB: under the upload limit, over the unpacked one.
    const bomb = copyDir(ARTIFACTS);
    writeFileSync(join(bomb, 'zeros.bin'), Buffer.alloc(8 * 1024 * 1024));
    const b = await upload(tarGz(bomb), '?run_id=bomb');
    expect(b.statusCode).toBe(400);
    expect(b.json()).toEqual({ error: 'the archive unpacks to more than 1 MiB' });

    const big = await upload(Buffer.alloc(300 * 1024, 1), '?run_id=big');
    expect(big.statusCode).toBe(413);
    expect((await upload(Buffer.from('not gzip at all'))).json().error).toMatch(/^not a gzip file/);
    expect((await upload(gzipSync(Buffer.alloc(2048, 7)))).json().error).toMatch(/^not a tar archive/);
    const json = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      payload: { a: 1 },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(json.statusCode).toBe(415);

    // Nothing escaped, nothing was stored.
    expect(readFileSync(marker, 'utf8')).toBe('[]');
    expect(existsSync(join(tmpdir(), 'evil.json'))).toBe(false);
    const runIds = ((await get('/api/v1/runs')).body as Row[]).map((r) => r.run_id);
    for (const id of ['links', 'bomb', 'big']) expect(runIds).not.toContain(id);
  });

  it('serves the dashboard’s files, index.html for its pages, nothing outside its folder', async () => {
    const root = mkdtempSync(join(tmpdir(), 'frontier-web-'));
    const web = join(root, 'web');
    mkdirSync(join(web, 'assets'), { recursive: true });
    writeFileSync(join(web, 'index.html'), '<div id="root"></div>');
    writeFileSync(join(web, 'assets', 'app-1234.js'), 'console.log(1)');
    writeFileSync(join(root, 'secret.txt'), 'do not serve');
    const site = await buildApi({ store, webDir: web });
    try {
      const js = await site.inject({ url: '/assets/app-1234.js' });
      expect(js.body).toBe('console.log(1)');
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      for (const url of [
        '/',
        '/inference?model=dsr1',
        '/runs/pr-1',
        '/..%2fsecret.txt',
        '/assets/../../secret.txt',
        '/%2e%2e/secret.txt',
      ]) {
        const page = await site.inject({ url });
        expect(page.body, url).toBe('<div id="root"></div>');
        expect(page.headers['cache-control']).toBe('no-cache');
      }
      expect((await site.inject({ url: '/api/v1/nope' })).json()).toEqual({ error: 'no such endpoint: GET /api/v1/nope' });
      expect((await site.inject({ url: '/api/v1/runs' })).statusCode).toBe(200);
    } finally {
      await site.close();
    }
  });

  it('--private: reads need a token too', async () => {
    const closed = await buildApi({ store, private: true });
    try {
      expect((await closed.inject({ url: '/api/v1/benchmarks?model=dsr1' })).statusCode).toBe(401);
      expect((await closed.inject({ url: '/api/v1/health' })).statusCode).toBe(401);
      const ok = await closed.inject({ url: '/api/v1/benchmarks?model=dsr1', headers: { authorization: `Bearer ${token}` } });
      expect(ok.statusCode).toBe(200);
      expect((ok.json() as Row[]).length).toBeGreaterThan(0);
    } finally {
      await closed.close();
    }
  });
});
