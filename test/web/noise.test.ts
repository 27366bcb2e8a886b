// Noise on the dashboard (issue 42), in Chromium against the built dashboard (npm run build): error
// bars on points measured more than once and none on a single sample, a frontier point tied within
// noise marked with a dashed ring, and the trends' noise band from /api/v1/variation with its label.
//
// The store: six official sweeps of an H200 config a little apart (history), then one official
// sweep with repeats (frontier run --repeats 3 writes the `repeats` key, made here by combineRepeats)
// of that H200 config and of an H100 one, crafted so that the H100's conc 8 beats the H200's conc 8
// only within noise, and its conc 4 beats the H200's conc 4 plainly.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { combineRepeats } from '../../src/results/index.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson, scaleMeasurements, storeFactory } from '../store/helpers.js';
import { chartOf, launchChromium } from '../support/browser.js';

type Row = Record<string, unknown>;
const SHOTS = join(REPO, 'test-results/screenshots');
const H200 = (JSON.parse(readFileSync(join(ARTIFACTS, 'results_bmk/agg_bmk.json'), 'utf8')) as Row[])[0]!;

/** A result directory holding only these rows in its collected aggregate. */
function runDir(rows: Row[]): string {
  const dir = copyDir(ARTIFACTS);
  for (const d of readdirSync(dir).filter((d) => d !== 'results_bmk')) rmSync(join(dir, d), { recursive: true });
  editJson(join(dir, 'results_bmk/agg_bmk.json'), () => rows);
  return dir;
}

/** A point measured once at (x, y). */
const once = (hw: string, conc: number, x: number, y: number): Row => ({ ...H200, hw, conc, median_intvty: x, tput_per_gpu: y });

/** A point measured three times, each a fresh launch: its aggregate as combineRepeats writes it. */
const thrice = (hw: string, conc: number, xs: number[], ys: number[]): Row =>
  JSON.parse(
    combineRepeats(
      xs.map((x, i) => JSON.stringify(once(hw, conc, x, ys[i]!))),
      'launch',
    ),
  ) as Row;

/** The H200 sweep: (15, 70) is beaten by (20, 80) on both axes. */
const sweep = () => [once('h200', 4, 10, 100), once('h200', 8, 20, 80), once('h200', 16, 15, 70), once('h200', 32, 30, 50)];

describe('noise on the dashboard in Chromium', () => {
  const fresh = storeFactory('sqlite');
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const store = await fresh();
    for (const [i, factor] of [0.99, 1.01, 1.0, 0.995, 1.005, 1.002].entries()) {
      const dir = runDir(sweep());
      scaleMeasurements(dir, factor);
      await ingestBatch(store, readArtifacts(dir, { runId: `h${i}`, official: true, date: `2026-01-0${i + 1}` }));
    }
    const repeated = runDir([
      thrice('h200', 4, [9.8, 10, 10.2], [97, 100, 103]),
      thrice('h200', 8, [19.8, 20, 20.2], [78, 80, 82]),
      thrice('h200', 16, [14.8, 15, 15.2], [66, 70, 74]),
      once('h200', 32, 30, 50),
      once('h100', 4, 12, 130),
      thrice('h100', 8, [20.8, 21, 21.2], [81, 83, 85]),
      once('h100', 32, 30, 60),
    ]);
    await ingestBatch(store, readArtifacts(repeated, { runId: 'rep', official: true, date: '2026-02-01' }));
    // A PR's run: H100 conc 4 measured once, 4% slower, where history knows little of the H100's spread.
    await ingestBatch(store, readArtifacts(runDir([once('h100', 4, 12, 125)]), { runId: 'pr', date: '2026-02-02' }));
    app = await buildApi({ store, webDir: join(REPO, 'dist/web') });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(SHOTS, { recursive: true });
    return () => expect(errors).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const chart = (testId: string) => chartOf(page, testId);
  /** The tooltip of a chart's item, by its series' id, as the page shows it (ECharts' showTip). */
  const tooltip = async (testId: string, seriesId: string, dataIndex: number): Promise<string> => {
    const el = page.locator(`[data-testid="${testId}"][data-ready="true"]`);
    await el.evaluate(
      (node, at) => {
        const chart = (
          node as unknown as { echarts: { getOption(): { series: { id: string }[] }; dispatchAction(a: object): void } }
        ).echarts;
        const seriesIndex = chart.getOption().series.findIndex((s) => s.id === at.seriesId);
        chart.dispatchAction({ type: 'showTip', seriesIndex, dataIndex: at.dataIndex });
      },
      { seriesId, dataIndex },
    );
    await expect.poll(() => el.innerText()).not.toBe('');
    return el.innerText();
  };
  /** The names in a chart's legend (an entry is a name, or an object with one and its own icon). */
  const legend = (testId: string): Promise<string[]> =>
    page
      .getByTestId(testId)
      .evaluate((node) =>
        (node as unknown as { echarts: { getOption(): { legend: { data: (string | { name: string })[] }[] } } }).echarts
          .getOption()
          .legend[0]!.data.map((d) => (typeof d === 'string' ? d : d.name)),
      );
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('error bars on the points measured more than once, none on a single sample; the tooltip says which', async () => {
    await page.goto(`${base}/inference?model=dsr1`);
    const attr = await chart('inference-chart');
    // H200: conc 4, 8 and 32 on its frontier (16 is beaten); H100: conc 4, 8 and 32.
    expect(await attr('series')).toBe(2);
    expect(await attr('points')).toBe(6);
    // Repeated: H200 conc 4 and 8, H100 conc 8. Once: conc 32 of both, H100 conc 4.
    expect(await attr('error-bars')).toBe(3);
    await expect(page.getByTestId('error-bars-note').textContent()).resolves.toContain('3 points here');
    await shot('inference-error-bars');
    // The H200 series' points, x ascending: conc 4 (repeated), 8 (repeated), 32 (once).
    const h200 = 'h200/sglang/fp8/none/agg/8192x1024:points';
    expect(await tooltip('inference-chart', h200, 0)).toMatch(
      /n = 3 \(fresh launches\), 95% CI: Interactivity, median \[9\.\d\d, 10\.\d\d\]; .*\[9\d, 10\d\]/,
    );
    expect(await tooltip('inference-chart', h200, 2)).toContain('one sample (no interval)');
    await tooltip('inference-chart', h200, 0);
    await shot('inference-error-bars-tooltip');
    // Every point shown: H200 conc 16 (repeated) gets its bars too.
    await page.goto(`${base}/inference?model=dsr1&optimal=0`);
    const all = await chart('inference-chart');
    expect(await all('points')).toBe(7);
    expect(await all('error-bars')).toBe(4);
    // On a derived axis the bars follow: cost per million tokens from the throughput's interval.
    await page.goto(`${base}/inference?model=dsr1&y=cost_per_mtok`);
    expect(await (await chart('inference-chart'))('error-bars')).toBe(3);
    const csv = await page.getByTestId('export-csv');
    const [download] = await Promise.all([page.waitForEvent('download'), csv.click()]);
    const lines = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    const header = lines[0]!.split(',');
    expect(header).toEqual(
      expect.arrayContaining(['n', 'cost_per_mtok_ci95_low ($/M tok)', 'cost_per_mtok_ci95_high ($/M tok)']),
    );
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v])));
    const conc4 = rows.find((r) => r.hardware === 'h200' && r.conc === '4')!;
    expect(conc4.n).toBe('3');
    expect(Number(conc4['cost_per_mtok_ci95_low ($/M tok)'])).toBeLessThan(Number(conc4['cost_per_mtok ($/M tok)']));
    expect(Number(conc4['cost_per_mtok_ci95_high ($/M tok)'])).toBeGreaterThan(Number(conc4['cost_per_mtok ($/M tok)']));
    expect(rows.find((r) => r.hardware === 'h200' && r.conc === '32')!['cost_per_mtok_ci95_low ($/M tok)']).toBe('');
  });

  it('a frontier point beaten only within noise is marked tied, with its legend entry, tooltip and note', async () => {
    await page.goto(`${base}/inference?model=dsr1`);
    const attr = await chart('inference-chart');
    // H200 conc 8 (80, 95% CI [75, 85]) is beaten by H100 conc 8 (83, [78, 88]): overlapping, so tied.
    // H200 conc 4 (100, [92.5, 107.5]) is beaten by H100 conc 4 (130, once): plainly. Conc 32: two single samples, plainly.
    expect(await attr('tied')).toBe(1);
    const note = page.getByTestId('tied-note');
    await expect(note.locator('li').allTextContents()).resolves.toEqual([
      'H200 sglang fp8 TP8 conc 8: beaten only within noise by H100 sglang fp8 TP8 conc 8',
    ]);
    await shot('inference-tied');
    expect(await tooltip('inference-chart', 'tied', 0)).toContain(
      '◌ tied within noise: beaten by H100 sglang fp8 TP8 conc 8 only within the 95% interval',
    );
    expect(await legend('inference-chart')).toContain('tied within noise');
    // With every point shown, H200 conc 16 too: beaten by H200 conc 8 and H100 conc 8, each within noise (the same series counts).
    await page.goto(`${base}/inference?model=dsr1&optimal=0`);
    expect(await (await chart('inference-chart'))('tied')).toBe(2);
    await expect(page.getByTestId('tied-note').locator('li').nth(1).textContent()).resolves.toBe(
      'H200 sglang fp8 TP8 conc 16: beaten only within noise by H100 sglang fp8 TP8 conc 8, H200 sglang fp8 TP8 conc 8',
    );
  });

  it('?run=: an inconclusive point is badged so, its note in its title; the method line says how it was judged', async () => {
    await page.goto(`${base}/inference?model=dsr1&run=pr`);
    expect(await (await chart('inference-chart'))('overlay-points')).toBe(1);
    const row = page.getByTestId('deltas').locator('tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    const badge = row.locator('.badge');
    await expect(badge.textContent()).resolves.toBe('? inconclusive');
    expect(await badge.getAttribute('title')).toMatch(
      /^the interval is wider than ±5%: about \d+ launches a side \(--repeats \d+\) would narrow it/,
    );
    expect(await row.locator('td').nth(5).textContent()).toMatch(/^−3\.8% \[−\d+\.\d, \+\d+\.\d\] \?$/);
    await expect(page.locator('h2').first().textContent()).resolves.toContain('0 significant regressions');
    await expect(page.getByTestId('compare-method').textContent()).resolves.toContain('α = 0.05');
    await shot('inference-run-inconclusive');
  });

  it('trends: the noise band around each line, labelled with what it rests on, and the repeated points’ intervals', async () => {
    await page.goto(`${base}/trends?model=dsr1&target=15`);
    const attr = await chart('trends-chart');
    expect(await attr('lines')).toBe(2);
    expect(await attr('points')).toBe(8);
    // H200: its own history (4 points, 6 runs and the repeats: 34 samples); H100: its pool's 3 repeats only.
    expect(await attr('bands')).toBe(2);
    // The newest date of each line reads its frontier between repeated points.
    expect(await attr('intervals')).toBe(2);
    const items = page.getByTestId('noise-bands').locator('li');
    await expect(items.allTextContents()).resolves.toEqual([
      expect.stringMatching(
        /^H100 sglang fp8: noise band ±\d+\.\d% \(1\.96·cv, cv \d+\.\d%\): 3 samples of 1 point, pooled over H100 sglang; 1 point with a 95% interval from repeats$/,
      ),
      expect.stringMatching(
        /^H200 sglang fp8: noise band ±\d\.\d% \(1\.96·cv, cv \d\.\d%\): 30 samples of 4 points, this config’s history; 1 point with a 95% interval from repeats$/,
      ),
    ]);
    expect(await items.nth(1).getAttribute('data-band')).toBe('config');
    expect(await legend('trends-chart')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^H200 sglang fp8 noise ±\d\.\d% \(30 samples\)$/)]),
    );
    await shot('trends-noise-band');
    expect(await tooltip('trends-chart', 'h200/sglang/fp8/none/agg/8192x1024', 6)).toMatch(
      /H200 sglang fp8: 9\d tok\/s\/GPU \(n = 3, 95% CI \d+–\d+\); noise ±\d\.\d%/,
    );
  });
});
