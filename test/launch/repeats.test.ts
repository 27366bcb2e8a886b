import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planRun } from '../../src/plan/index.js';
import { combineRepeats } from '../../src/results/index.js';
import { ingestBatch, openStore, benchmarks, readArtifacts } from '../../src/store/index.js';
import { REPO, runCli, tempFiles } from '../helpers.js';
import { runLocally, simCluster, singleRow } from './fixtures.js';

/** InferenceX's own collector (utils/collect_results.py), as its workflow runs it over the downloaded bmk_* artifacts. */
const COLLECT_RESULTS = join(REPO, 'test/fixtures/inferencex/utils/collect_results.py');

describe('repeats in the plan', () => {
  const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2 }), singleRow({ conc: 4, tp: 2, 'run-eval': true })];

  it('launch scope: rounds of launches, each point once per round, evals only in the first', () => {
    const launches = planRun(rows, 'lab', { count: 3, scope: 'launch' });
    expect(launches.map((g) => g.id)).toEqual(['g0', 'g1', 'g0r2', 'g1r2', 'g0r3', 'g1r3']);
    expect(launches.map((g) => g.evals.length)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(launches[2]!.label).toMatch(/\(repeat 2\/3\)$/);
    expect(launches[2]!.points.map((p) => [p.conc, p.repeat])).toEqual([
      [1, { index: 2, of: 3, scope: 'launch' }],
      [2, { index: 2, of: 3, scope: 'launch' }],
    ]);
  });

  it('point scope: each point measured in a row within its one launch', () => {
    const [g] = planRun([singleRow({ conc: 1 }), singleRow({ conc: 2 })], 'lab', { count: 2, scope: 'point' });
    expect(g!.points.map((p) => `${p.conc}#${p.repeat!.index}`)).toEqual(['1#1', '1#2', '2#1', '2#2']);
  });

  it('once: the plan is as before, no repeat on any point', () => {
    expect(planRun(rows, 'lab', { count: 1, scope: 'launch' })).toEqual(planRun(rows, 'lab'));
    expect(
      planRun(rows, 'lab')
        .flatMap((g) => g.points)
        .some((p) => p.repeat),
    ).toBe(false);
  });
});

describe('combining repeats', () => {
  const agg = (tput: number, valid: number) =>
    JSON.stringify(
      { hw: 'h100', conc: 4, tp: 1, tput_per_gpu: tput, median_ttft: 0.5, power_valid: valid, joules_per_output_token: 0.2 },
      null,
      2,
    );

  it('keeps every key, means the measurements, adds the repeats block, and is valid only when every repeat is', () => {
    const out = JSON.parse(combineRepeats([agg(100.5, 1), agg(110.5, 1), agg(105.5, 1)], 'launch')) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual([
      'hw',
      'conc',
      'tp',
      'tput_per_gpu',
      'median_ttft',
      'power_valid',
      'joules_per_output_token',
      'repeats',
    ]);
    expect(out.tput_per_gpu).toBeCloseTo(105.5, 12);
    expect(out.median_ttft).toBe(0.5);
    expect(out.power_valid).toBe(1);
    const r = out.repeats as {
      n: number;
      scope: string;
      metrics: Record<string, { n: number; std: number; ci95: number[]; values: number[] }>;
    };
    expect(r).toMatchObject({ n: 3, scope: 'launch' });
    expect(r.metrics.tput_per_gpu!.values).toEqual([100.5, 110.5, 105.5]);
    expect(r.metrics.tput_per_gpu!.std).toBeCloseTo(5, 12);
    // 105.5 ± t(0.975, 2) · 5 / √3
    expect(r.metrics.tput_per_gpu!.ci95[0]).toBeCloseTo(105.5 - 4.30265273 * (5 / Math.sqrt(3)), 6);
    expect(r.metrics.conc).toBeUndefined();
    const mixed = JSON.parse(combineRepeats([agg(100, 1), agg(110, 0)], 'point')) as Record<string, unknown>;
    expect(mixed.power_valid).toBe(0);
  });
});

describe('frontier run --repeats, local executor, simulated engine', () => {
  it('launch scope: every repeat a fresh launch, each raw result kept, one aggregate InferenceX and the store read', async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2 })];
    const { manifest, dir } = await runLocally(rows, {
      cluster: simCluster({ engines: { sim: { speed: 10 } } }),
      repeats: { count: 2, scope: 'launch' },
    });
    expect(manifest.status).toBe('completed');
    expect(manifest.launches.map((l) => l.id)).toEqual(['g0', 'g0r2']);
    expect(manifest.points.map((p) => `${p.conc}#${p.repeat}:${p.status}`)).toEqual(['1#1:ok', '2#1:ok', '1#2:ok', '2#2:ok']);
    // Each launch logs apart.
    expect(new Set(manifest.launches.map((l) => l.logs)).size).toBe(2);
    for (const rf of new Set(manifest.points.map((p) => p.resultFilename))) {
      const combined = JSON.parse(readFileSync(dir.aggFile(rf), 'utf8')) as Record<string, unknown> & {
        repeats: { n: number; scope: string; metrics: Record<string, { values: number[] }> };
      };
      const each = [1, 2].map((k) => JSON.parse(readFileSync(dir.aggFile(rf, k), 'utf8')) as Record<string, number>);
      expect(existsSync(dir.rawFile(rf, 1)) && existsSync(dir.rawFile(rf, 2))).toBe(true);
      expect(combined.repeats).toMatchObject({ n: 2, scope: 'launch' });
      expect(combined.repeats.metrics.tput_per_gpu!.values).toEqual(each.map((a) => a.tput_per_gpu));
      expect(combined.tput_per_gpu).toBeCloseTo((each[0]!.tput_per_gpu! + each[1]!.tput_per_gpu!) / 2, 9);
      // Every key of a single measurement's aggregate, in its order, then `repeats`.
      expect(Object.keys(combined)).toEqual([...Object.keys(each[0]!), 'repeats']);
    }
    // One aggregate per point in the collected file.
    const collected = JSON.parse(readFileSync(join(dir.root, 'results_bmk/agg_bmk.json'), 'utf8')) as unknown[];
    expect(collected).toHaveLength(2);

    // InferenceX's collect_results.py over the artifacts its workflow uploads (agg_<RF>.json per bmk_<RF>).
    const artifacts = tempFiles({});
    for (const rf of new Set(manifest.points.map((p) => p.resultFilename))) {
      mkdirSync(join(artifacts, `bmk_${rf}`), { recursive: true });
      cpSync(dir.aggFile(rf), join(artifacts, `bmk_${rf}`, `agg_${rf}.json`));
    }
    execFileSync('python3', [COLLECT_RESULTS, artifacts, 'bmk'], { cwd: artifacts });
    const theirs = JSON.parse(readFileSync(join(artifacts, 'agg_bmk.json'), 'utf8')) as {
      conc: number;
      repeats: { n: number };
    }[];
    expect(theirs.map((r) => [r.conc, r.repeats.n]).sort()).toEqual([
      [1, 2],
      [2, 2],
    ]);

    // Frontier's own collector reads the point's aggregate, not each repeat's.
    const ours = join(tempFiles({}), 'agg_bmk.json');
    expect(runCli(['results', 'collect', dir.root, '--out', ours]).status).toBe(0);
    expect((JSON.parse(readFileSync(ours, 'utf8')) as { repeats: { n: number } }[]).map((r) => r.repeats.n)).toEqual([2, 2]);

    // The store keeps the repeats as samples of one point.
    const store = await openStore(join(tempFiles({}), 'frontier.db'));
    try {
      await ingestBatch(store, readArtifacts(dir.root, { runId: 'rep' }));
      const points = await benchmarks(store, { run: 'rep' });
      expect(points.map((p) => [p.conc, p.n, p.repeat_scope])).toEqual([
        [1, 2, 'launch'],
        [2, 2, 'launch'],
      ]);
      const s = points[0]!.stats.tput_per_gpu!;
      expect(s.values).toHaveLength(2);
      expect(s.mean).toBeCloseTo(points[0]!.metrics.tput_per_gpu!, 9);
      expect(s.ci95![0]).toBeLessThanOrEqual(s.mean);
    } finally {
      await store.close();
    }
  }, 180_000);

  it('point scope: the repeats share one launch', async () => {
    const { manifest, dir } = await runLocally([singleRow({ conc: 1 })], {
      cluster: simCluster({ engines: { sim: { speed: 10 } } }),
      repeats: { count: 2, scope: 'point' },
    });
    expect(manifest.status).toBe('completed');
    expect(manifest.launches).toHaveLength(1);
    expect(manifest.points.map((p) => p.repeat)).toEqual([1, 2]);
    const rf = manifest.points[0]!.resultFilename;
    expect((JSON.parse(readFileSync(dir.aggFile(rf), 'utf8')) as { repeats: { scope: string } }).repeats.scope).toBe('point');
  }, 120_000);
});
