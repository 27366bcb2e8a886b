import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import type { AgenticPointDetail, AgenticPointRow } from '../../src/contract/index.js';
import { createToken, ingestBatch, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { DIALECTS, copyDir, editJson, storeFactory } from '../store/helpers.js';

const RUN = join(REPO, 'test/fixtures/agentic/store/run');

describe.each(DIALECTS)('the agentic endpoints on %s', (dialect) => {
  const fresh = storeFactory(dialect);
  let store: Store;
  let app: FastifyInstance;
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() as unknown };
  };

  beforeAll(async () => {
    store = await fresh();
    await ingestBatch(store, readArtifacts(RUN, { official: true }));
    const pr = copyDir(RUN);
    editJson(join(pr, 'run.json'), (v) => ({ ...(v as object), id: 'pr-7', started: '2026-12-03T08:00:00Z' }));
    await ingestBatch(store, readArtifacts(pr));
    app = await buildApi({ store });
    return () => app.close();
  });

  it('lists the latest official agentic points, filtered; a run’s; pages them', async () => {
    const official = await get('/api/v1/agentic?model=dsr1&hardware=h200');
    expect(official.status).toBe(200);
    const rows = official.body as AgenticPointRow[];
    expect(rows.map((r) => [r.kv_offloading, r.conc])).toEqual([
      ['dram', 4],
      ['dram', 8],
      ['dram', 16],
      ['none', 4],
      ['none', 8],
      ['none', 16],
    ]);
    expect(rows.every((r) => r.run_id === '20261201T120000-agentic1' && r.official)).toBe(true);
    expect(rows[0]).toMatchObject({ kv_offload_backend: 'vllm-simple', allocated_cpu_dram_gb: 1024, disagg: false });
    expect(typeof rows[0]!.tput_per_gpu).toBe('number');

    const pr = (await get('/api/v1/agentic?run=pr-7')).body as AgenticPointRow[];
    expect(pr).toHaveLength(6);
    expect(pr.every((r) => r.run_id === 'pr-7' && !r.official)).toBe(true);
    expect(((await get('/api/v1/agentic?source=all')).body as AgenticPointRow[]).every((r) => r.run_id === 'pr-7')).toBe(true);
    expect((await get('/api/v1/agentic?framework=sglang')).body).toEqual([]);

    const page = await app.inject({ method: 'GET', url: '/api/v1/agentic?limit=4' });
    expect((page.json() as unknown[]).length).toBe(4);
    expect(page.headers['x-next-cursor']).toBeTruthy();
  });

  it('one point: its row, its whole aggregate and its TTFT by context length; 404 for none', async () => {
    const rows = (await get('/api/v1/agentic?model=dsr1')).body as AgenticPointRow[];
    const gpu = rows.find((r) => r.kv_offloading === 'none' && r.conc === 8)!;
    const one = await get(`/api/v1/agentic/${gpu.point_id}`);
    expect(one.status).toBe(200);
    const detail = one.body as AgenticPointDetail;
    expect(detail).toMatchObject(gpu);
    expect(detail.aggregate).toMatchObject({ scenario_type: 'agentic-coding', conc: 8, kv_offloading: 'none' });
    expect(detail.ttft_by_context!.length).toBeGreaterThan(2);
    expect(detail.ttft_by_context!.reduce((n, b) => n + b.count, 0)).toBe(gpu.num_requests_successful);

    const dram = rows.find((r) => r.kv_offloading === 'dram')!;
    expect(((await get(`/api/v1/agentic/${dram.point_id}`)).body as AgenticPointDetail).ttft_by_context).toBeNull();
    expect(await get('/api/v1/agentic/99999')).toEqual({ status: 404, body: { error: 'no agentic point 99999 in the store' } });
  });

  it('refuses parameters that do not apply, naming them', async () => {
    expect(await get('/api/v1/agentic?isl=1024')).toEqual({ status: 400, body: { error: 'unknown parameter "isl"' } });
    expect((await get('/api/v1/agentic/abc')).status).toBe(400);
  });

  it('an uploaded run directory with only agentic points is ingested (201), counted apart', async () => {
    const tar = join(mkdtempSync(join(tmpdir(), 'frontier-tar-')), 'run.tar.gz');
    execFileSync('tar', ['-czf', tar, '-C', RUN, '.']);
    const token = await createToken(store, `upload-${dialect}`);
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/ingest?run_id=uploaded',
        payload: readFileSync(tar),
        headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
      });
    const first = await send();
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ run_id: 'uploaded', agentic: { total: 6, new: 6 }, benchmarks: { total: 0 } });
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ agentic: { total: 6, new: 0, changed: 0, removed: 0 } });
    expect(((await get('/api/v1/agentic?run=uploaded')).body as unknown[]).length).toBe(6);
  });

  it('the OpenAPI document lists both endpoints with their parameters', async () => {
    const doc = (await get('/api/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string }[] } }> };
    expect(doc.paths['/api/v1/agentic']!.get.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['model', 'hardware', 'framework', 'run', 'source', 'date', 'limit', 'cursor']),
    );
    expect(doc.paths['/api/v1/agentic/{id}']!.get.parameters.map((p) => p.name)).toEqual(['id']);
  });
});
