/** Measured power in the API (issue 21): the verdict in point rows and comparisons, and in the OpenAPI document. */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import type { Comparison, PointRow } from '../../src/contract/index.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { DIALECTS, copyDir, editJson, storeFactory } from '../store/helpers.js';

type Row = Record<string, unknown>;
const POWER_ARTIFACTS = join(REPO, 'test/fixtures/power/store/artifacts');
const H200 = 'dsr1_h200_sglang_tp8_conc64';

describe.each(DIALECTS)('power in the API on %s', (dialect) => {
  const fresh = storeFactory(dialect);
  let store: Store;
  let app: FastifyInstance;
  const get = async <T>(url: string): Promise<T> => (await app.inject({ method: 'GET', url })).json() as T;

  beforeAll(async () => {
    store = await fresh();
    await ingestBatch(store, readArtifacts(POWER_ARTIFACTS, { runId: 'base', official: true, date: '2026-11-01' }));
    const pr = copyDir(POWER_ARTIFACTS);
    // The same point at 20% more energy per token.
    const more = (r: Row) => ({ ...r, joules_per_total_token: (r.joules_per_total_token as number) * 1.2 });
    editJson(join(pr, `bmk_${H200}/agg_${H200}.json`), (r) => more(r as Row));
    editJson(join(pr, 'results_bmk/agg_bmk.json'), (rows) => (rows as Row[]).map((r) => (r.hw === 'h200' ? more(r) : r)));
    await ingestBatch(store, readArtifacts(pr, { runId: 'pr', date: '2026-11-02' }));
    app = await buildApi({ store });
    return () => app.close();
  });

  it('point rows carry the power verdict; measured energy only where valid', async () => {
    const rows = await get<PointRow[]>('/api/v1/benchmarks?run=base&metrics=joules_per_total_token,tput_per_gpu');
    const h200 = rows.find((r) => r.hardware === 'h200')!;
    const b200 = rows.find((r) => r.hardware === 'b200')!;
    expect(h200).toMatchObject({ power_valid: true, power_schema_version: 2, power_reasons: [], power_source: 'measured' });
    expect(h200.metrics).toEqual({ joules_per_total_token: 0.165365, tput_per_gpu: expect.any(Number) as number });
    expect(b200).toMatchObject({ power_valid: false, power_reasons: ['telemetry_file_missing'], power_source: 'measured' });
    expect(b200.metrics).not.toHaveProperty('joules_per_total_token');
    const history = await get<PointRow[]>(`/api/v1/history?config=${h200.config_id}&source=all`);
    expect(history.map((r) => [r.run_id, r.power_valid])).toEqual([
      ['base', true],
      ['pr', true],
    ]);
  });

  it('the comparison flags an energy regression, with both sides’ verdicts', async () => {
    const c = await get<Comparison>('/api/v1/compare?run=pr&min-effect=10');
    expect(c.method.min_effect_pct).toBe(10);
    const h200 = c.points.find((p) => p.config.hardware === 'h200')!;
    // One official sample a side and no history: the 20% is reported with what would settle it, not called a regression.
    expect(h200.metrics.joules_per_total_token).toMatchObject({ verdict: 'inconclusive', n_run: 1, n_baseline: 1 });
    expect(h200.metrics.joules_per_total_token!.note).toContain('--repeats');
    expect(h200.metrics.joules_per_total_token!.delta_pct).toBeCloseTo(20, 4);
    expect(h200.power.baseline).toEqual({ valid: true, source: 'measured' });
    expect(h200.config).not.toHaveProperty('power_valid');
  });

  it('the OpenAPI document describes the power fields of point rows and comparisons', async () => {
    const doc = await get<{
      paths: Record<string, { get: { responses: { '200': { content: { 'application/json': { schema?: unknown } } } } } }>;
      components: { schemas: Record<string, { properties: Record<string, { enum?: unknown[] }> }> };
    }>('/api/openapi.json');
    const point = doc.components.schemas.PointRow!.properties;
    expect(Object.keys(point)).toEqual(
      expect.arrayContaining(['power_valid', 'power_schema_version', 'power_reasons', 'power_source']),
    );
    expect(point.power_source!.enum).toEqual(['measured', 'modelled', null]);
    expect(doc.paths['/api/v1/benchmarks']!.get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/PointRow' },
    });
    expect(doc.components.schemas.Comparison!.properties).toHaveProperty('points');
  });
});
