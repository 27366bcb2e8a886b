// GET /api/v1/variation: the run-to-run variation official history shows, per hardware × framework
// pool and per config with enough history of its own, over the store of each dialect.
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import type { VariationRow } from '../../src/contract/index.js';
import { MIN_CONFIG_DF, ingestBatch, readArtifacts } from '../../src/store/index.js';
import { ARTIFACTS, DIALECTS, copyDir, scaleMeasurements, storeFactory } from '../store/helpers.js';

/** Ten official runs of the fixture, each a few per cent off (no two alike: a value met twice is one measurement stored twice): the spread of their logs is the cv. */
const FACTORS = [0.99, 1.01, 1.0, 0.995, 1.005, 0.98, 1.02, 1.003, 0.992, 1.012];

/** The sample standard deviation of ln(factor): what every metric of every point varies by. */
function cvOf(factors: readonly number[]): number {
  const logs = factors.map(Math.log);
  const m = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / (logs.length - 1));
}

describe.each(DIALECTS)('GET /api/v1/variation on %s', (dialect) => {
  const fresh = storeFactory(dialect);
  let app: FastifyInstance;
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() as unknown };
  };

  beforeAll(async () => {
    const store = await fresh();
    for (const [i, factor] of FACTORS.entries()) {
      const dir = copyDir(ARTIFACTS);
      scaleMeasurements(dir, factor);
      await ingestBatch(
        store,
        readArtifacts(dir, { runId: `h${i}`, official: true, date: `2026-01-${String(i + 1).padStart(2, '0')}` }),
      );
    }
    // An unofficial run far off: not history.
    const pr = copyDir(ARTIFACTS);
    scaleMeasurements(pr, 0.5);
    await ingestBatch(store, readArtifacts(pr, { runId: 'pr', date: '2026-02-01' }));
    app = await buildApi({ store });
    return () => app.close();
  }, 60_000);

  it('each metric’s cv per pool and per config, from the jittered official runs', async () => {
    const r = await get('/api/v1/variation?hardware=h200&metrics=tput_per_gpu,median_ttft');
    expect(r.status).toBe(200);
    const rows = r.body as VariationRow[];
    // One config at one conc, ten runs: 10 samples, 1 group, 9 degrees of freedom (≥ MIN_CONFIG_DF: its own estimate too).
    expect(FACTORS.length - 1).toBeGreaterThanOrEqual(MIN_CONFIG_DF);
    expect(rows.map((v) => [v.metric, v.scope])).toEqual([
      ['median_ttft', 'pooled'],
      ['median_ttft', 'config'],
      ['tput_per_gpu', 'pooled'],
      ['tput_per_gpu', 'config'],
    ]);
    for (const v of rows) {
      expect(v).toMatchObject({ hardware: 'h200', framework: 'sglang', samples: 10, groups: 1, df: 9 });
      expect(v.cv).toBeCloseTo(cvOf(FACTORS), 9);
    }
    expect(rows[0]!.config_id).toBeNull();
    expect(typeof rows[1]!.config_id).toBe('number');
  });

  it('every pool by default, the compared metrics by default; filtered by model and framework', async () => {
    const all = (await get('/api/v1/variation')).body as VariationRow[];
    const pools = new Set(all.filter((v) => v.scope === 'pooled').map((v) => `${v.hardware} ${v.framework}`));
    expect([...pools].sort()).toEqual(
      ['b200 vllm', 'b300 sglang', 'gb200 dynamo-trt', 'gb200 dynamo-vllm', 'h200 sglang', 'mi355x mori-sglang'].sort(),
    );
    expect(new Set(all.map((v) => v.metric))).toContain('tput_per_gpu');
    expect(new Set(all.map((v) => v.metric))).toContain('median_intvty');
    for (const v of all) expect(v.cv).toBeCloseTo(cvOf(FACTORS), 9);

    const kimi = (await get('/api/v1/variation?model=kimik2.5&metrics=tput_per_gpu')).body as VariationRow[];
    expect(kimi.map((v) => [v.hardware, v.framework, v.scope])).toEqual([
      ['b200', 'vllm', 'pooled'],
      ['b200', 'vllm', 'config'],
    ]);
    expect((await get('/api/v1/variation?framework=sglang&metrics=tput_per_gpu')).body).toHaveLength(4);
    expect((await get('/api/v1/variation?model=nothing')).body).toEqual([]);
  });

  it('refuses what it does not take, and documents what it answers', async () => {
    expect((await get('/api/v1/variation?conc=4')).status).toBe(400);
    expect((await get('/api/v1/variation?metrics=Not%20a%20key')).status).toBe(400);
    const doc = (await get('/api/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string }[]; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/api/v1/variation']!.get.parameters.map((p) => p.name)).toEqual([
      'hardware',
      'framework',
      'model',
      'metrics',
    ]);
    expect(doc.components.schemas.VariationRow).toMatchObject({ properties: { cv: { type: 'number' } } });
  });
});
