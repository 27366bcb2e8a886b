import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accuracy, predict, worstSlice } from '../../src/sim/calibration/accuracy.js';
import { crossValidate, fitProfile, folds } from '../../src/sim/calibration/fit.js';
import type { MeasuredPoint } from '../../src/sim/calibration/points.js';
import { calibrationSet, expressible, pointsFromRows, readPoints } from '../../src/sim/calibration/points.js';
import { benchmarks, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import { findHardware, findModel } from '../../src/sim/index.js';
import type { EfficiencyProfile } from '../../src/sim/profile.js';
import { engineFamily, parseProfile, resolveEfficiency, shippedProfile } from '../../src/sim/profile.js';
import { REPO, runCli } from '../helpers.js';

/** Real InferenceX aggregated results (not in the calibration set): six points, two of models the catalog lacks. */
const ARTIFACTS = join(REPO, 'test/fixtures/inferencex/artifacts');

const EMPTY: EfficiencyProfile = { description: 'nothing fitted', entries: [] };

/** Points the simulator itself measured with known factors: a fit must find those factors again. */
function synthetic(truth: { compute: number; memory: number; requestOverheadMs: number }): MeasuredPoint[] {
  const loads = [
    { conc: 1, isl: 2048, osl: 32 },
    { conc: 8, isl: 256, osl: 64 },
    { conc: 32, isl: 1024, osl: 64 },
  ];
  return loads.map((l, i) => {
    const point: MeasuredPoint = {
      id: `synthetic-${i}`,
      model: 'llama-3.1-8b',
      hardware: 'h100',
      precision: 'fp8',
      engine: 'vllm',
      ...l,
      rangeRatio: 0.8,
      topology: { kind: 'aggregated', tp: 1, ep: 1, dpAttn: false },
      measured: { tputPerGpu: 1, interactivity: 1, ttftS: 1 },
    };
    const p = predict(point, EMPTY, truth);
    return { ...point, measured: { tputPerGpu: p.tputPerGpu, interactivity: p.interactivity, ttftS: p.ttftS } };
  });
}

const key = (hardware: string, engine: string) => ({ hardware: findHardware(hardware), engine, model: findModel('deepseek-r1') });

describe('efficiency profiles', () => {
  it('a more specific entry overrides: vendor < engine family < framework < hardware < model', () => {
    const profile = parseProfile(
      JSON.stringify({
        description: 'test',
        entries: [
          { match: { hardware: 'h200' }, factors: { compute: 0.4 }, source: 'h200' },
          { match: { vendor: 'nvidia' }, factors: { compute: 0.1, memory: 0.5 }, source: 'nvidia' },
          { match: { engine: 'trt' }, factors: { memory: 0.6 }, source: 'family' },
          { match: { engine: 'dynamo-trt' }, factors: { memory: 0.7 }, source: 'framework' },
          { match: { hardware: 'h200', model: 'deepseek-r1' }, factors: { requestOverheadMs: 99 }, source: 'model' },
        ],
      }),
      'test.json',
    );
    expect(resolveEfficiency(profile, key('h200', 'trt'))).toMatchObject({ compute: 0.4, memory: 0.6, requestOverheadMs: 99 });
    expect(resolveEfficiency(profile, key('h200', 'dynamo-trt')).memory).toBe(0.7);
    expect(resolveEfficiency(profile, key('b200', 'sglang'))).toMatchObject({ compute: 0.1, memory: 0.5 });
    expect(resolveEfficiency(profile, key('mi300x', 'sglang')).compute).toBe(0.45); // the default
    expect(engineFamily('dynamo-trt')).toBe('trt');
    expect(engineFamily('mori-sglang')).toBe('sglang');
    expect(engineFamily(undefined)).toBe('vllm');
  });

  it('refuses a bad profile, naming the file, the key and what is accepted', () => {
    const bad = (entries: unknown[]) => () => parseProfile(JSON.stringify({ description: 'x', entries }), 'my-profile.json');
    expect(bad([{ match: {}, factors: { computee: 0.5 }, source: 's' }])).toThrow(
      /my-profile\.json: entries\.0\.factors.*compute, memory/s,
    );
    expect(bad([{ match: {}, factors: { compute: -1 }, source: 's' }])).toThrow(/entries\.0\.factors\.compute/);
    expect(bad([{ match: {}, factors: { compute: 0.5 } }])).toThrow(/"source" or a "fit" record/);
    expect(() => parseProfile('{', 'p.json')).toThrow(/p\.json: not JSON/);
  });

  it('the shipped profile: every entry has a source or a fit record, and its fits name calibration points', () => {
    const ids = new Set(calibrationSet().map((p) => p.id));
    expect(shippedProfile().entries.length).toBeGreaterThan(0);
    for (const e of shippedProfile().entries) {
      expect(e.source !== undefined || e.fit !== undefined).toBe(true);
      for (const id of e.fit?.points ?? []) expect(ids.has(id), id).toBe(true);
    }
  });
});

describe('calibration', () => {
  it('reads published points and InferenceX aggregated results, and names the file and key of a bad one', () => {
    expect(calibrationSet()).toHaveLength(25);
    const dsr1 = calibrationSet().find((p) => p.id === 'dsr1-gb200-fp8-dyntrt-5p1d-8k1k-c1229')!;
    expect(dsr1.topology).toEqual({
      kind: 'disaggregated',
      prefillWorkers: 5,
      decodeWorkers: 1,
      prefill: { tp: 8, ep: 8, dpAttn: true },
      decode: { tp: 16, ep: 16, dpAttn: true },
    });
    const dir = mkdtempSync(join(tmpdir(), 'frontier-calibrate-'));
    const agg = {
      hw: 'h200-nb',
      conc: 16,
      model: 'deepseek-ai/DeepSeek-R1-0528',
      framework: 'sglang',
      precision: 'fp8',
      isl: 1024,
      osl: 1024,
      is_multinode: false,
      disagg: false,
      tp: 8,
      ep: 1,
      dp_attention: false,
      tput_per_gpu: 250.5,
      median_intvty: 80.1,
      median_ttft: 0.12,
    };
    writeFileSync(join(dir, 'agg_dsr1_h200.json'), JSON.stringify(agg));
    writeFileSync(join(dir, 'notes.json'), '{"unrelated": true}');
    const [point] = readPoints(dir);
    expect(point).toMatchObject({ hardware: 'h200-nb', engine: 'sglang', conc: 16, topology: { kind: 'aggregated', tp: 8 } });
    expect(point!.measured).toEqual({ tputPerGpu: 250.5, interactivity: 80.1, ttftS: 0.12 });
    writeFileSync(join(dir, 'agg_bad.json'), JSON.stringify({ ...agg, precision: 'int3' }));
    expect(() => readPoints(dir)).toThrow(/agg_bad\.json: precision "int3"/);
    writeFileSync(join(dir, 'agg_bad.json'), JSON.stringify({ ...agg, tput_per_gpu: 'fast' }));
    expect(() => readPoints(dir)).toThrow(/agg_bad\.json: "tput_per_gpu" must be a positive number/);
    expect(() => readPoints(join(dir, 'missing'))).toThrow(/no such file or folder/);
  });

  it('reads the same points from a store as from the artifacts it ingested, and says which it cannot express', async () => {
    const fromDir = readPoints(ARTIFACTS);
    expect(fromDir).toHaveLength(6);
    // A multinode aggregated arm (no decode workers) is an aggregated deployment of its workers.
    expect(fromDir.find((p) => p.engine === 'dynamo-vllm')!.topology).toEqual({
      kind: 'aggregated',
      tp: 8,
      ep: 1,
      dpAttn: false,
    });
    const db = join(mkdtempSync(join(tmpdir(), 'frontier-calibrate-store-')), 'frontier.db');
    const store = await openStore(db);
    try {
      await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'r1', official: true, date: '2026-08-01' }));
      const fromStore = pointsFromRows(await benchmarks(store, { source: 'all' }));
      // The store keeps canonical names (mi355x-disagg is an mi355x, sglang-disagg an SGLang).
      const key = (p: MeasuredPoint) =>
        `${p.model} ${findHardware(p.hardware).id} ${engineFamily(p.engine)} ${p.conc} ${JSON.stringify(p.topology)}`;
      expect(fromStore.map(key).sort()).toEqual(fromDir.map(key).sort());
      for (const p of fromStore) {
        const same = fromDir.find((d) => key(d) === key(p))!;
        expect(p.measured.tputPerGpu).toBeCloseTo(same.measured.tputPerGpu, 6);
        expect(p.measured.ttftS).toBeCloseTo(same.measured.ttftS, 6);
      }
    } finally {
      await store.close();
    }
    // The CLI knows a SQLite store by its header.
    const fromCli = runCli(['sim', 'accuracy', '--from', db, '--format', 'json']);
    expect(fromCli.status).toBe(0);
    expect((JSON.parse(fromCli.stdout) as { report: { points: unknown[] } }).report.points).toHaveLength(4);
    const { points, skipped } = expressible(fromDir);
    expect(points).toHaveLength(4);
    expect(skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/^unknown model "nvidia\/Kimi-K2\.5-NVFP4"/),
      expect.stringMatching(/^unknown model "deepseek-ai\/DeepSeek-V4-Pro"/),
    ]);
  });

  it('a fit finds the factors that made the measurements again', () => {
    const truth = { compute: 0.3, memory: 0.6, requestOverheadMs: 40 };
    const fitted = fitProfile(synthetic(truth), EMPTY, { levels: [['hardware', 'engine']], iterations: 4 });
    const entry = fitted.entries.at(-1)!;
    expect(entry.match).toEqual({ hardware: 'h100', engine: 'vllm' });
    expect(entry.fit!.points).toEqual(['synthetic-0', 'synthetic-1', 'synthetic-2']);
    expect(entry.factors.compute!).toBeCloseTo(truth.compute, 1);
    expect(entry.factors.memory!).toBeCloseTo(truth.memory, 1);
    expect(Math.abs(entry.factors.requestOverheadMs! - truth.requestOverheadMs)).toBeLessThan(8);
    expect(entry.fit!.error.tputPerGpu).toBeLessThan(0.03);
    expect(entry.fit!.error.ttft).toBeLessThan(0.1);
  });

  it('cross-validation holds each point out exactly once', () => {
    const parts = folds(calibrationSet(), ['hardware', 'engine'], 2);
    expect(
      parts
        .flat()
        .map((p) => p.id)
        .sort(),
    ).toEqual(
      calibrationSet()
        .map((p) => p.id)
        .sort(),
    );
    expect(Math.abs(parts[0]!.length - parts[1]!.length)).toBeLessThanOrEqual(1);
    // A slice with two points lands in both halves.
    const h200sglang = (ps: MeasuredPoint[]) => ps.filter((p) => p.hardware === 'h200' && p.engine === 'sglang').length;
    expect(h200sglang(parts[0]!)).toBeGreaterThan(0);
    expect(h200sglang(parts[1]!)).toBeGreaterThan(0);
    const report = crossValidate(
      synthetic({ compute: 0.3, memory: 0.6, requestOverheadMs: 40 }),
      EMPTY,
      [['hardware', 'engine']],
      3,
    );
    expect(report.points.map((e) => e.point.id).sort()).toEqual(['synthetic-0', 'synthetic-1', 'synthetic-2']);
  });

  it('the shipped profile meets its targets on the calibration set', () => {
    const report = accuracy(calibrationSet(), shippedProfile());
    expect(report.overall.tputPerGpu).toBeLessThanOrEqual(0.1);
    expect(report.overall.ttft).toBeLessThanOrEqual(0.2);
    expect(worstSlice(report)!.median.tputPerGpu).toBeLessThanOrEqual(0.25);
    for (const slice of ['hardware=mi300x', 'engine=trt', 'kind=disaggregated'])
      expect(report.slices.map((s) => s.slice)).toContain(slice);
  });
});

describe('frontier sim calibrate / accuracy', () => {
  it('fits a profile from a points file, prints fit and held-out error, and sim estimate loads it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'frontier-calibrate-cli-'));
    const pointsFile = join(dir, 'points.json');
    const points = synthetic({ compute: 0.3, memory: 0.6, requestOverheadMs: 40 }).map((p) => ({
      id: p.id,
      model: p.model,
      hardware: p.hardware,
      precision: p.precision,
      framework: p.engine,
      isl: p.isl,
      osl: p.osl,
      conc: p.conc,
      random_range_ratio: 0.8,
      topology: { kind: 'aggregated', tp: 1, ep: 1, dp_attn: false, workers: 1 },
      published: {
        tput_per_gpu: p.measured.tputPerGpu,
        median_intvty: p.measured.interactivity,
        median_ttft_s: p.measured.ttftS,
      },
    }));
    writeFileSync(pointsFile, JSON.stringify({ description: 'synthetic', points }));
    const out = join(dir, 'profile.json');
    const fit = runCli(['sim', 'calibrate', '--from', pointsFile, '--fit', 'hardware,engine', '--holdout', '0.34', '--out', out]);
    expect(fit.stderr).not.toMatch(/Error/);
    expect(fit.status).toBe(0);
    expect(fit.stdout).toMatch(/fit error .* over 3 points/);
    expect(fit.stdout).toMatch(/held-out error \(3-fold cross-validation/);
    expect(fit.stdout).toMatch(/hardware=h100\s+3/);
    const profile = JSON.parse(readFileSync(out, 'utf8')) as EfficiencyProfile;
    expect(profile.fitted).toMatchObject({ points: 3, levels: ['hardware,engine'] });
    const estimate = (extra: string[]) =>
      JSON.parse(
        runCli(['sim', 'estimate', '--conc', '8', '--isl', '256', '--osl', '64', '--format', 'json', ...extra]).stdout,
      ) as {
        points: { interactivity: number }[];
      };
    expect(estimate(['--profile', out]).points[0]!.interactivity).not.toBeCloseTo(estimate([]).points[0]!.interactivity, 0);
    const acc = JSON.parse(runCli(['sim', 'accuracy', '--from', pointsFile, '--profile', out, '--format', 'json']).stdout) as {
      report: { overall: { tputPerGpu: number } };
      targets: { met: boolean }[];
    };
    expect(acc.report.overall.tputPerGpu).toBeLessThan(0.05);
    expect(acc.targets.length).toBe(3);
    // Real results the shipped profile never saw: the points it cannot express are named, the rest predicted.
    const real = runCli(['sim', 'accuracy', '--from', ARTIFACTS]);
    expect(real.status).toBe(0);
    expect(real.stderr).toMatch(/skipped agg_bmk-4: unknown model "deepseek-ai\/DeepSeek-V4-Pro"/);
    expect(real.stdout).toMatch(/over 4 points/);
    const bad = runCli(['sim', 'calibrate', '--from', pointsFile, '--fit', 'gpu']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--fit gpu: "gpu" is not a dimension; use vendor, hardware, engine, model/);
  });
});
