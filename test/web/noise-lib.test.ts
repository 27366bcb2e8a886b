// What the dashboard draws about noise, without a browser: a point's 95% interval on each axis
// (derived metrics from the throughput's), the tied-within-noise rule, a trend's per-point interval
// and its noise band from /api/v1/variation.
import { describe, expect, it } from 'vitest';
import type { MetricStats, PointRow, VariationRow } from '../../src/contract/index.js';
import { repeatedMetric } from '../../src/results/index.js';
import { inferenceView } from '../../web/src/lib/inference.js';
import { DEFAULT_TCO, pointInterval } from '../../web/src/lib/metrics.js';
import { beats, overlaps, tiesWithinNoise } from '../../web/src/lib/noise.js';
import { samplesLine, tiedLine } from '../../web/src/lib/tooltip.js';
import { bandOf, noiseBand, trendSeries } from '../../web/src/lib/trends.js';
import { DEFAULTS } from '../../web/src/lib/url-state.js';
import { configRow } from '../support/config-row.js';

/** A point at (x, y); with `ys` (and `xs`), measured once per value: n, mean and the 95% interval as the store gives them. */
function point(
  o: Partial<PointRow> & { x?: number; y?: number; xs?: number[]; ys?: number[]; hardware?: string; config_id?: number } = {},
): PointRow {
  const { x = 50, y = 1000, xs, ys, hardware = 'h200', config_id = 1, ...rest } = o;
  const stats: Record<string, MetricStats> = {};
  if (ys) stats.tput_per_gpu = repeatedMetric(ys);
  if (xs) stats.median_intvty = repeatedMetric(xs);
  const n = ys?.length ?? xs?.length ?? 1;
  return {
    ...configRow({ hardware, config_id }),
    run_id: 'r1',
    attempt: 1,
    official: true,
    date: '2026-01-01',
    isl: 1024,
    osl: 1024,
    conc: 4,
    runner: hardware,
    power_valid: null,
    power_schema_version: null,
    power_reasons: [],
    power_source: null,
    n,
    repeat_scope: n > 1 ? 'launch' : null,
    stats,
    metrics: {
      median_intvty: stats.median_intvty?.mean ?? x,
      tput_per_gpu: stats.tput_per_gpu?.mean ?? y,
      output_tput_per_gpu: (stats.tput_per_gpu?.mean ?? y) / 2,
    },
    ...rest,
  };
}

describe('a point’s 95% interval on an axis', () => {
  it('is its repeats’ interval of the mean; none for one sample or a metric without repeats', () => {
    const p = point({ ys: [97, 100, 103], xs: [9.8, 10, 10.2] });
    const [lo, hi] = pointInterval(p, 'tput_per_gpu', DEFAULT_TCO, 'tco')!;
    // t(0.975, 2) = 4.303; sd 3; ±4.303 · 3 / √3 = ±7.45.
    expect(lo).toBeCloseTo(100 - (4.302652729911275 * 3) / Math.sqrt(3), 9);
    expect(hi).toBeCloseTo(100 + (4.302652729911275 * 3) / Math.sqrt(3), 9);
    expect(pointInterval(p, 'median_intvty', DEFAULT_TCO, 'tco')).toEqual(p.stats.median_intvty!.ci95);
    expect(pointInterval(point(), 'tput_per_gpu', DEFAULT_TCO, 'tco')).toBeUndefined();
    expect(pointInterval(p, 'median_ttft', DEFAULT_TCO, 'tco')).toBeUndefined();
  });

  it('a derived metric scales from the throughput’s: cost per Mtok and J/token fall as throughput rises (the ends swap)', () => {
    const p = point({ ys: [90, 100, 110] });
    const [tlo, thi] = p.stats.tput_per_gpu!.ci95!;
    const cost = (t: number) => 1.6 / ((t * 3600) / 1e6);
    const [clo, chi] = pointInterval(p, 'cost_per_mtok', DEFAULT_TCO, 'tco')!;
    expect(clo).toBeCloseTo(cost(thi), 12);
    expect(chi).toBeCloseTo(cost(tlo), 12);
    const [mlo, mhi] = pointInterval(p, 'tput_per_mw', DEFAULT_TCO, 'tco')!;
    expect(mlo).toBeCloseTo((tlo * 1000) / 1.73, 9);
    expect(mhi).toBeCloseTo((thi * 1000) / 1.73, 9);
    // No TCO figures for the hardware: no value, no interval.
    expect(pointInterval(point({ ys: [90, 100, 110], hardware: 'cpu' }), 'cost_per_mtok', DEFAULT_TCO, 'tco')).toBeUndefined();
  });
});

describe('tied within noise', () => {
  const goals = { x: 'max', y: 'max' } as const;
  const at = (x: number, y: number, yInterval?: [number, number]) => ({ x, y, yInterval });

  it('beats: at least as good on both axes and better on one, in the direction each axis calls for', () => {
    expect(beats(at(21, 83), at(20, 80), goals)).toBe(true);
    expect(beats(at(20, 80), at(20, 80), goals)).toBe(false);
    expect(beats(at(19, 90), at(20, 80), goals)).toBe(false);
    expect(beats(at(19, 80), at(20, 80), { x: 'min', y: 'max' })).toBe(true);
  });

  it('overlap needs an interval on one side at least; a single sample is its value', () => {
    expect(overlaps(at(0, 80, [75, 85]), at(0, 83, [78, 88]))).toBe(true);
    expect(overlaps(at(0, 80, [75, 85]), at(0, 90))).toBe(false);
    expect(overlaps(at(0, 80, [75, 85]), at(0, 84))).toBe(true);
    expect(overlaps(at(0, 80), at(0, 80))).toBe(false);
  });

  it('tied only when every point that beats it does so within noise', () => {
    const points = [
      at(20, 80, [75, 85]), // 0: beaten by 1 within noise → tied
      at(21, 83, [78, 88]), // 1: beaten by nothing
      at(10, 100, [92, 108]), // 2: beaten plainly by 3
      at(12, 130), // 3
      at(15, 70, [60, 79.9]), // 4: beaten by 0 and 1, both within noise → tied
      at(30, 50), // 5: beaten plainly by 6 (two single samples)
      at(30, 60), // 6
      at(19, 79, [74, 84]), // 7: beaten by 0 and 1, both within noise (3 is left of it) → tied
    ];
    const ties = tiesWithinNoise(points, [0, 1, 2, 3, 4, 5, 6, 7], goals);
    expect([...ties.keys()].sort()).toEqual([0, 4, 7]);
    expect(ties.get(0)).toEqual([1]);
    expect(ties.get(4)).toEqual([0, 1, 7]);
    // No intervals anywhere: nothing is tied.
    expect(tiesWithinNoise([at(20, 80), at(21, 83)], [0, 1], goals).size).toBe(0);
  });

  it('the inference view marks them across series, and the tooltip says so', () => {
    const h200 = [
      point({ conc: 4, xs: [9.8, 10, 10.2], ys: [97, 100, 103] }),
      point({ conc: 8, xs: [19.8, 20, 20.2], ys: [78, 80, 82] }),
      point({ conc: 32, x: 30, y: 50 }),
    ];
    const h100 = [
      point({ hardware: 'h100', config_id: 2, conc: 4, x: 12, y: 130 }),
      point({ hardware: 'h100', config_id: 2, conc: 8, xs: [20.8, 21, 21.2], ys: [81, 83, 85] }),
    ];
    const v = inferenceView([...h200, ...h100], DEFAULTS, DEFAULT_TCO);
    const tied = v.visible.filter((p) => p.tiedWith.length > 0);
    expect(tied.map((p) => [p.row.hardware, p.row.conc])).toEqual([['h200', 8]]);
    expect(tied[0]!.tiedWith.map((q) => [q.row.hardware, q.row.conc])).toEqual([['h100', 8]]);
    expect(String(tiedLine(tied[0]!))).toBe(
      '<b>◌ tied within noise</b>: beaten by H100 sglang fp8 TP8 conc 8 only within the 95% interval',
    );
    const conc4 = v.visible.find((p) => p.row.hardware === 'h200' && p.row.conc === 4)!;
    expect(conc4.tiedWith).toEqual([]);
    expect(String(samplesLine(conc4, 'Interactivity (tok/s/user)', 'Throughput (tok/s/GPU)'))).toMatch(
      /^n = 3 \(fresh launches\), 95% CI: Interactivity \[9\.\d\d, 10\.\d\d\]; Throughput \[93, 107\]$/,
    );
    const single = v.visible.find((p) => p.row.conc === 32)!;
    expect(String(samplesLine(single, 'x', 'y'))).toBe('one sample (no interval)');
    expect(single.xInterval).toBeUndefined();
  });
});

describe('trends: a point’s interval and the noise band', () => {
  const sweep = (date: string, ys4?: number[], ys8?: number[]) => [
    point({ date, conc: 4, x: 10, ...(ys4 ? { ys: ys4 } : { y: 100 }) }),
    point({ date, conc: 8, x: 20, ...(ys8 ? { ys: ys8 } : { y: 80 }) }),
  ];

  it('reads the interval ends off the frontier like the value, where the points either side were repeated', () => {
    const [t] = trendSeries([...sweep('2026-01-01'), ...sweep('2026-02-01', [97, 100, 103], [78, 80, 82])], 15);
    expect(t!.points).toEqual([
      ['2026-01-01', 90],
      ['2026-02-01', 90],
    ]);
    expect(t!.intervals).toHaveLength(1);
    const i = t!.intervals[0]!;
    expect(i.date).toBe('2026-02-01');
    expect(i.n).toBe(3);
    expect(i.lo).toBeLessThan(90);
    expect(i.hi).toBeGreaterThan(90);
    expect(t!.configIds).toEqual([1]);
  });

  const row = (o: Partial<VariationRow>): VariationRow => ({
    config_id: null,
    hardware: 'h200',
    framework: 'sglang',
    metric: 'tput_per_gpu',
    cv: 0.01,
    samples: 24,
    groups: 4,
    df: 20,
    scope: 'pooled',
    ...o,
  });

  it('its configs’ own estimate when each has one, else its hardware × framework pool, else none', () => {
    const [t] = trendSeries(sweep('2026-01-01'), 15);
    const pooled = row({ cv: 0.02, samples: 40, groups: 10, df: 30 });
    const own = row({ config_id: 1, scope: 'config', cv: 0.01 });
    const band = noiseBand(t!, [pooled, own])!;
    expect(band).toMatchObject({ scope: 'config', cv: 0.01, samples: 24, groups: 4 });
    expect(band.halfWidthPct).toBeCloseTo(100 * (Math.exp(0.0196) - 1), 9);
    expect(band.label).toBe('±2.0% (1.96·cv, cv 1.0%): 24 samples of 4 points, this config’s history');
    expect(noiseBand(t!, [pooled])).toMatchObject({ scope: 'pooled', cv: 0.02 });
    expect(noiseBand(t!, [pooled])!.label).toContain('40 samples of 10 points, pooled over H200 sglang');
    expect(noiseBand(t!, [row({ metric: 'median_ttft' }), row({ framework: 'vllm' })])).toBeUndefined();
    const [[date, lo, hi]] = bandOf(t!, band) as [[string, number, number]];
    expect(date).toBe('2026-01-01');
    expect(lo).toBeCloseTo(90 * Math.exp(-0.0196), 9);
    expect(hi).toBeCloseTo(90 * Math.exp(0.0196), 9);
  });
});
