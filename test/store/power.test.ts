/**
 * Measured power in the store (issue 21): each point's power verdict from its aggregate and its
 * `power_validation_*.json` sidecar, measured energy kept only when valid with schema version 2
 * (fail closed), modelled power from the simulated engine, and energy in the comparison.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEASURED_POWER_KEYS } from '../../src/contract/index.js';
import { benchmarks, compareRun, comparisonMarkdown, ingestBatch, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { powerVerdict, readSidecar } from '../../src/store/power.js';
import { REPO } from '../helpers.js';
import { DIALECTS, copyDir, editJson, historyRuns, storeFactory } from './helpers.js';

type Row = Record<string, unknown>;

/** Two points through InferenceX's aggregate_power.py: h200 valid (telemetry), b200 invalid (no telemetry). */
const POWER_ARTIFACTS = join(REPO, 'test/fixtures/power/store/artifacts');
const H200 = 'dsr1_h200_sglang_tp8_conc64';
const B200 = 'gptoss_b200_vllm_conc32';

const ingest = (store: Store, dir: string, o: Parameters<typeof readArtifacts>[1] = {}) =>
  ingestBatch(store, readArtifacts(dir, o));
const byHw = async (store: Store, run: string) =>
  Object.fromEntries((await benchmarks(store, { run })).map((r) => [r.hardware, r]));

/** Edit every copy of a point's aggregate (its per-point file and its row of the collected one). */
function editPoint(dir: string, rf: string, edit: (row: Row) => void): void {
  editJson(join(dir, `bmk_${rf}/agg_${rf}.json`), (row) => (edit(row as Row), row));
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) => {
    const list = rows as Row[];
    const hw = rf.split('_')[1];
    for (const r of list) if (r.hw === hw) edit(r);
    return list;
  });
}

describe('the power verdict', () => {
  it('fails closed: valid only with power_valid 1, schema version 2 and a sidecar that agrees', () => {
    const ok = readSidecar({ power_valid: true, reasons: [] }, 'f');
    expect(powerVerdict({ power_valid: 1, power_metric_schema_version: 2 }, ok, false)).toEqual({
      valid: true,
      schema_version: 2,
      reasons: [],
      source: 'measured',
    });
    expect(powerVerdict({ power_valid: 1, power_metric_schema_version: 2 }, undefined, true).source).toBe('modelled');
    expect(powerVerdict({ power_valid: 1 }, undefined, false)).toMatchObject({
      valid: false,
      reasons: ['power_metric_schema_version_missing'],
    });
    expect(powerVerdict({ power_valid: 1, power_metric_schema_version: 3 }, undefined, false).reasons).toEqual([
      'power_metric_schema_version_unsupported',
    ]);
    expect(powerVerdict({ power_valid: 'yes', power_metric_schema_version: 2 }, undefined, false).reasons).toEqual([
      'power_valid_malformed',
    ]);
    const bad = readSidecar({ power_valid: false, reasons: ['gpu_count_mismatch'] }, 'f');
    expect(powerVerdict({ power_valid: 1, power_metric_schema_version: 2 }, bad, false)).toMatchObject({
      valid: false,
      reasons: ['gpu_count_mismatch', 'power_sidecar_disagrees'],
    });
    expect(powerVerdict({}, undefined, false)).toEqual({ valid: null, schema_version: null, reasons: [], source: null });
  });
});

describe.each(DIALECTS)('measured power in the store on %s', (dialect) => {
  const fresh = storeFactory(dialect);

  it('keeps each point’s verdict, the sidecar’s reasons and the measured keys only when valid', async () => {
    const store = await fresh();
    const batch = readArtifacts(POWER_ARTIFACTS, { runId: 'p1', official: true });
    expect(batch.files).toContain(`power_audit_${H200}/power_validation_${H200}.json`);
    await ingestBatch(store, batch);
    const rows = await byHw(store, 'p1');
    expect(rows.h200).toMatchObject({
      power_valid: true,
      power_schema_version: 2,
      power_reasons: [],
      power_source: 'measured',
    });
    // As aggregate_power.py wrote them: 8 GPUs at 600–670 W over 600 s, 2,000 requests.
    expect(rows.h200!.metrics).toMatchObject({
      avg_power_w: 635,
      avg_total_gpu_power_w: 5080,
      total_gpu_energy_j: 3048000,
      joules_per_successful_query: 1524,
      joules_per_input_token: 0.186035,
      joules_per_output_token: 1.488281,
      joules_per_total_token: 0.165365,
    });
    expect(rows.b200).toMatchObject({
      power_valid: false,
      power_schema_version: 2,
      power_reasons: ['telemetry_file_missing'],
      power_source: 'measured',
    });
    for (const k of MEASURED_POWER_KEYS) expect(rows.b200!.metrics).not.toHaveProperty(k);
  });

  it('finds the sidecars from the per-point aggregates alone, and from the collected one without them', async () => {
    const store = await fresh();
    const perPoint = copyDir(POWER_ARTIFACTS);
    rmSync(join(perPoint, 'results_bmk'), { recursive: true });
    await ingest(store, perPoint, { runId: 'per-point' });
    expect((await byHw(store, 'per-point')).b200!.power_reasons).toEqual(['telemetry_file_missing']);

    // Only the collected aggregate: no result file names, so no sidecar; the aggregate's verdict stands.
    const collected = copyDir(POWER_ARTIFACTS);
    for (const d of readdirSync(collected).filter((d) => d.startsWith('bmk_'))) rmSync(join(collected, d), { recursive: true });
    await ingest(store, collected, { runId: 'collected' });
    const rows = await byHw(store, 'collected');
    expect(rows.h200).toMatchObject({ power_valid: true, power_reasons: [] });
    expect(rows.b200).toMatchObject({ power_valid: false, power_reasons: [] });
  });

  it('fails closed: an unversioned verdict or a disagreeing sidecar shows no energy; no verdict at all is null', async () => {
    const store = await fresh();
    const dir = copyDir(POWER_ARTIFACTS);
    editPoint(dir, H200, (r) => delete r.power_metric_schema_version);
    editPoint(dir, B200, (r) => {
      delete r.power_metric_schema_version;
      delete r.power_valid;
    });
    rmSync(join(dir, `power_audit_${B200}`), { recursive: true });
    await ingest(store, dir, { runId: 'unversioned' });
    let rows = await byHw(store, 'unversioned');
    expect(rows.h200).toMatchObject({ power_valid: false, power_schema_version: null });
    expect(rows.h200!.power_reasons).toEqual(['power_metric_schema_version_missing']);
    expect(rows.h200!.metrics).not.toHaveProperty('joules_per_total_token');
    expect(rows.b200).toMatchObject({ power_valid: null, power_schema_version: null, power_reasons: [], power_source: null });

    const disagree = copyDir(POWER_ARTIFACTS);
    editJson(join(disagree, `power_audit_${H200}/power_validation_${H200}.json`), (v) => ({
      ...(v as Row),
      power_valid: false,
      reasons: ['gpu_count_mismatch'],
    }));
    await ingest(store, disagree, { runId: 'disagree' });
    rows = await byHw(store, 'disagree');
    expect(rows.h200).toMatchObject({ power_valid: false, power_reasons: ['gpu_count_mismatch', 'power_sidecar_disagrees'] });
    expect(rows.h200!.metrics).not.toHaveProperty('avg_power_w');
  });

  it('power measured on the simulated engine is modelled: the run’s manifest says its cluster simulates', async () => {
    const store = await fresh();
    const dir = copyDir(POWER_ARTIFACTS);
    writeFileSync(
      join(dir, 'run.json'),
      JSON.stringify({
        version: 1,
        frontier: 'test',
        started: '2026-12-01T10:00:00Z',
        cluster: { name: 'local-sim', simulate: true },
      }),
    );
    const s = await ingest(store, dir, { runId: 'sim' });
    const rows = await byHw(store, s.run_id);
    expect(rows.h200).toMatchObject({ power_valid: true, power_source: 'modelled' });
    expect(rows.h200!.metrics.joules_per_total_token).toBe(0.165365);
  });

  it('compares measured energy only where both points have valid power, and flags an energy regression', async () => {
    const store = await fresh();
    // Earlier official runs ±1% apart: the spread a change is judged against.
    for (const [i, earlier] of historyRuns(POWER_ARTIFACTS).entries())
      await ingest(store, earlier, { runId: `h${i}`, official: true, date: `2026-01-0${i + 1}` });
    await ingest(store, POWER_ARTIFACTS, { runId: 'base', official: true, date: '2026-02-01' });
    const pr = copyDir(POWER_ARTIFACTS);
    // 10% more energy per token at the same throughput: a regression; the b200 point has no valid power.
    editPoint(pr, H200, (r) => {
      for (const k of ['joules_per_total_token', 'joules_per_output_token', 'joules_per_input_token'])
        r[k] = (r[k] as number) * 1.1;
    });
    editPoint(pr, B200, (r) => (r.joules_per_total_token = 99));
    await ingest(store, pr, { runId: 'pr', date: '2026-02-02' });
    const c = (await compareRun(store, 'pr'))!;
    expect(c.regressions).toBe(1);
    const h200 = c.points.find((p) => p.config.hardware === 'h200')!;
    expect(h200.verdict).toBe('regression');
    expect(h200.power).toEqual({ run: { valid: true, source: 'measured' }, baseline: { valid: true, source: 'measured' } });
    expect(h200.metrics.joules_per_total_token).toMatchObject({ baseline: 0.165365, verdict: 'regression' });
    expect(h200.metrics.joules_per_total_token!.delta_pct).toBeCloseTo(10, 6);
    expect(h200.metrics.tput_per_gpu!.verdict).toBe('no significant change');
    const b200 = c.points.find((p) => p.config.hardware === 'b200')!;
    expect(b200.metrics.joules_per_total_token).toBeUndefined();
    expect(b200.power.run).toEqual({ valid: false, source: 'measured' });
    expect(b200.verdict).not.toBe('regression');

    const md = comparisonMarkdown(c);
    expect(md).toContain('Energy is compared only where both points have valid measured power.');
    expect(md).toContain('| J/token (measured) |');
    expect(md).toMatch(/\| ▼ regression \| dsr1 h200 sglang fp8 TP8 \|.*\| 0\.1819 \+10\.0% \[\+\d+\.\d, \+\d+\.\d\] ▼ \| base/);
    expect(md).toContain('Energy regressions:');
    expect(md).toMatch(/- ▼ dsr1 h200 sglang fp8 TP8 8192\/1024 conc 64: J\/token 0\.1654 → 0\.1819 \+10\.0% \[/);

    // A baseline without valid power: nothing to compare energy with, no energy column.
    const store2 = await fresh();
    const base = copyDir(POWER_ARTIFACTS);
    editPoint(base, H200, (r) => (r.power_valid = 0));
    await ingest(store2, base, { runId: 'base', official: true });
    await ingest(store2, pr, { runId: 'pr' });
    const c2 = (await compareRun(store2, 'pr'))!;
    const h2 = c2.points.find((p) => p.config.hardware === 'h200')!;
    expect(h2.metrics.joules_per_total_token).toMatchObject({ baseline: null, delta: null, verdict: 'inconclusive' });
    expect(h2.verdict).not.toBe('regression');
    expect(comparisonMarkdown(c2)).not.toContain('J/token');
  });
});
