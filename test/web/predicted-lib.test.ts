/** The inference chart's predicted frontier (from /api/v1/predicted-frontier): pure, without a browser. */
import { describe, expect, it } from 'vitest';
import type { PointRow } from '../../src/contract/index.js';
import { seriesColor } from '../../web/src/lib/colors.js';
import { inferenceView } from '../../web/src/lib/inference.js';
import { DEFAULT_TCO } from '../../web/src/lib/metrics.js';
import {
  PREDICTED_LABEL,
  predictedApplies,
  predictedNote,
  predictedPoints,
  predictedRequests,
  predictedTooltip,
} from '../../web/src/lib/predicted.js';
import { DEFAULTS, parseUrl, toUrl } from '../../web/src/lib/url-state.js';
import { configRow } from '../support/config-row.js';

function point(o: Partial<PointRow> = {}): PointRow {
  return {
    ...configRow({
      hardware: 'h200',
      framework: 'sglang',
      precision: 'fp8',
      model: 'deepseek-ai/DeepSeek-R1-0528',
      model_prefix: 'dsr1',
    }),
    run_id: 'r1',
    attempt: 1,
    official: true,
    date: '2026-01-01',
    isl: 8192,
    osl: 1024,
    conc: 4,
    runner: 'h200',
    power_valid: null,
    power_schema_version: null,
    power_reasons: [],
    power_source: null,
    n: 1,
    repeat_scope: null,
    stats: {},
    metrics: { median_intvty: 20, tput_per_gpu: 1000 },
    ...o,
  };
}

const view = { ...DEFAULTS, predicted: true };
const seriesOf = (rows: PointRow[], overlay = false) => inferenceView(rows, view, DEFAULT_TCO, overlay).series;

describe('the predicted frontier on the inference chart', () => {
  it('one request per model × hardware × engine × precision shown, in its series’ colour, labelled predicted', () => {
    const rows = [
      point(),
      point({ conc: 8, metrics: { median_intvty: 10, tput_per_gpu: 1500 } }),
      // Another series (spec decoding) of the same hardware, engine and precision: the same prediction.
      point({ spec_method: 'mtp' }),
      point({ hardware: 'b300', precision: 'fp4', model: 'nvidia/DeepSeek-R1-0528-NVFP4-v2' }),
    ];
    const requests = predictedRequests(seriesOf(rows), view);
    expect(requests.map((r) => r.name)).toEqual([`B300 sglang fp4 ${PREDICTED_LABEL}`, 'H200 sglang fp8 predicted']);
    const h200 = requests[1]!;
    expect(h200.color).toBe(seriesColor('h200', 'sglang', 'fp8'));
    const url = new URL(h200.path, 'http://dashboard');
    expect(url.pathname).toBe('/api/v1/predicted-frontier');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      model: 'deepseek-ai/DeepSeek-R1-0528',
      hardware: 'h200',
      precision: 'fp8',
      isl: '8192',
      osl: '1024',
      engine: 'sglang',
    });
    expect(new Set(requests.map((r) => r.id)).size).toBe(2);
  });

  it('asks nothing for a run’s overlay series, nor on axes other than throughput per GPU against interactivity', () => {
    expect(predictedRequests(seriesOf([point()], true), view)).toEqual([]);
    expect(predictedApplies(view)).toBe(true);
    const cost = { ...view, y: 'cost_per_mtok' };
    expect(predictedApplies(cost)).toBe(false);
    expect(predictedRequests(seriesOf([point()]), cost)).toEqual([]);
    expect(predictedRequests(seriesOf([point()]), { ...view, x: 'p99_ttft' })).toEqual([]);
    expect(predictedNote(cost, [])).toContain('throughput per GPU against interactivity only');
  });

  it('draws the answer interactivity ascending, x = interactivity and y = tput/GPU, dropping non-finite points', () => {
    const at = (interactivity: number, tputPerGpu: number) => ({
      deployment: 'DEP8',
      conc: 64,
      tputPerGpu,
      interactivity,
      ttftMs: 900,
    });
    const points = predictedPoints({ points: [at(30, 800), at(10, 3000), at(Number.NaN, 1), at(20, 1500)] });
    expect(points.map((p) => [p.interactivity, p.tputPerGpu])).toEqual([
      [10, 3000],
      [20, 1500],
      [30, 800],
    ]);
    const tip = String(predictedTooltip('H200 sglang fp8 predicted', { ...at(17.25, 3211.4), deployment: '1P1D TP8/DEP8' }));
    expect(tip).toContain('simulated, not measured');
    expect(tip).toContain('1P1D TP8/DEP8 · conc 64');
    expect(tip).toContain('<b>17.3</b> tok/s/user');
    expect(tip).toContain('<b>3211</b> tok/s/GPU');
  });

  it('a short note for what the simulator does not know or what failed; nothing when all is drawn or the control is off', () => {
    const h200 = { name: 'H200 sglang fp8 predicted' };
    const mi = { name: 'MI355X sglang fp8 predicted' };
    expect(predictedNote(view, [])).toBe('');
    expect(predictedNote({ ...view, predicted: false }, [{ request: h200, error: 'boom' }])).toBe('');
    expect(
      predictedNote(view, [
        { request: h200, error: 'unknown model "org/m"; known: deepseek-r1, qwen3.5-397b-a17b (or their Hugging Face names)' },
        { request: mi, error: '500 Internal Server Error' },
      ]),
    ).toBe('No predicted frontier for H200 sglang fp8 (unknown model "org/m"), MI355X sglang fp8 (500 Internal Server Error).');
  });

  it('the control is in the URL: predicted=1, absent when off', () => {
    expect(toUrl({ ...DEFAULTS, model: 'dsr1', predicted: true })).toBe('/inference?model=dsr1&predicted=1');
    expect(parseUrl('/inference', '?model=dsr1&predicted=1').predicted).toBe(true);
    expect(parseUrl('/inference', '?model=dsr1').predicted).toBe(false);
    expect(toUrl(DEFAULTS)).toBe('/inference');
  });
});
