import { describe, expect, it } from 'vitest';
import { METRIC_CATALOG, goalOf, latestSeries, paretoFront } from '../../src/contract/index.js';

describe('the Pareto frontier', () => {
  // Hand-worked: (15, 70) is beaten by (20, 80); (10, 60) by (10, 100) at the same x.
  const xs = [10, 20, 15, 30, 10];
  const ys = [100, 80, 70, 50, 60];

  it('maximise both (throughput against interactivity): the upper-right staircase, x ascending', () => {
    expect(paretoFront(xs, ys, { x: 'max', y: 'max' })).toEqual([0, 1, 3]);
  });

  it('minimise x, maximise y (throughput against latency)', () => {
    // (10, 100) has the lowest x and the highest y: it beats every other point.
    expect(paretoFront(xs, ys, { x: 'min', y: 'max' })).toEqual([0]);
    expect(paretoFront([1, 2, 3], [10, 20, 30], { x: 'min', y: 'max' })).toEqual([0, 1, 2]);
  });

  it('maximise x, minimise y (cost against interactivity), and minimise both', () => {
    expect(paretoFront([1, 2, 3, 2], [1, 2, 3, 5], { x: 'max', y: 'min' })).toEqual([0, 1, 2]);
    // (2, 2) loses to (2, 1) at the same x; (3, 1) to (2, 1) on x at the same y.
    expect(paretoFront([1, 2, 3, 2], [3, 2, 1, 1], { x: 'min', y: 'min' })).toEqual([0, 3]);
  });

  it('equal points: one stays; non-finite coordinates never count', () => {
    expect(paretoFront([5, 5], [5, 5], { x: 'max', y: 'max' })).toEqual([0]);
    expect(paretoFront([NaN, 1, Infinity], [100, 1, 1], { x: 'max', y: 'max' })).toEqual([1]);
    expect(paretoFront([], [], { x: 'max', y: 'max' })).toEqual([]);
  });

  it('knows which way each metric is better', () => {
    expect(['tput_per_gpu', 'output_tput_per_gpu', 'median_intvty', 'p99_intvty'].map(goalOf)).toEqual([
      'max',
      'max',
      'max',
      'max',
    ]);
    expect(['median_ttft', 'p99.9_tpot', 'median_e2el', 'p90_itl'].map(goalOf)).toEqual(['min', 'min', 'min', 'min']);
    expect(() => goalOf('vibes')).toThrow('no direction known for metric "vibes"');
  });

  it('reads directions from one catalog: each metric once, with a label and a unit', () => {
    const keys = METRIC_CATALOG.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(METRIC_CATALOG.every((m) => m.label && m.unit)).toBe(true);
    expect(METRIC_CATALOG.find((m) => m.key === 'p99.9_tpot')).toEqual({
      key: 'p99.9_tpot',
      label: 'Time per output token, p99.9',
      unit: 's',
      goal: 'min',
    });
  });

  it('series keep their newest sweep only', () => {
    const p = (hardware: string, date: string, conc: number) => ({
      hardware,
      framework: 'vllm',
      precision: 'fp8',
      spec_method: 'none',
      disagg: false,
      isl: 1024,
      osl: 1024,
      date,
      conc,
    });
    const s = latestSeries([
      p('h200', '2026-01-01', 4),
      p('h200', '2026-02-01', 8),
      p('h200', '2026-02-01', 16),
      p('b200', '2026-01-01', 4),
    ]);
    expect([...s.keys()]).toEqual(['h200/vllm/fp8/none/agg/1024x1024', 'b200/vllm/fp8/none/agg/1024x1024']);
    expect(s.get('h200/vllm/fp8/none/agg/1024x1024')!.map((x) => x.conc)).toEqual([8, 16]);
  });
});
