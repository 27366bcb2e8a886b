// The dashboard in a real browser: Debian's Chromium, driven by playwright-core, against
// `buildApi` serving the built dashboard (dist/web, made by `npm run build`) over a seeded store.
// Screenshots of every page land in test-results/screenshots/.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { ingestBatch, overrideConclusion, purgeRun, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson, scaleMeasurements, storeFactory } from '../store/helpers.js';
import { chartOf, launchChromium } from '../support/browser.js';

type Row = Record<string, unknown>;
const SHOTS = join(REPO, 'test-results/screenshots');

/** The fixture with the h200 config swept at four concurrencies: (15, 70) is off the frontier. */
function sweepDir(): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) => {
    const list = rows as Row[];
    const at = (conc: number, x: number, y: number) => ({ ...list[0], conc, median_intvty: x, tput_per_gpu: y });
    return [at(4, 10, 100), at(8, 20, 80), at(16, 15, 70), at(32, 30, 50), ...list.slice(1)];
  });
  return dir;
}

/** A PR run: every throughput 20% lower, one GSM8K eval below its threshold, and a GPQA eval of one config. */
function prDir(): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Row[]).map((r) => ({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * 0.8 })),
  );
  editJson(join(dir, 'eval_results_all/agg_eval_all.json'), (rows) => {
    const list = rows as Row[];
    list[2]!.score = 0.6;
    const gpqa = {
      em_strict: null,
      em_strict_se: null,
      em_flexible: 0.95,
      em_flexible_se: 0.011,
      n_eff: 396,
      score: 0.95,
      score_se: 0.011,
    };
    return [...list, { ...list[0], ...gpqa, task: 'gpqa_diamond_cot_n_shot' }];
  });
  mkdirSync(join(dir, 'server_logs_b300'));
  writeFileSync(join(dir, 'server_logs_b300', 'server.log'), 'sglang ready on :30000\n');
  return dir;
}

/** Official history: the fixture’s points measured again in earlier runs, each a little off (±1%, no two alike), so a comparison knows their spread. */
const HISTORY = [0.99, 1.01, 1.003, 0.995, 1.005, 0.998];
function historyDir(factor: number): string {
  const dir = copyDir(ARTIFACTS);
  for (const d of ['eval_results_all', 'run-stats', 'changelog-metadata']) rmSync(join(dir, d), { recursive: true });
  scaleMeasurements(dir, factor);
  return dir;
}

describe('the dashboard in Chromium', () => {
  const fresh = storeFactory('sqlite');
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    store = await fresh();
    for (const [i, factor] of HISTORY.entries())
      await ingestBatch(store, readArtifacts(historyDir(factor), { runId: `h${i}`, official: true, date: `2026-07-0${i + 1}` }));
    await ingestBatch(store, readArtifacts(ARTIFACTS, { runId: 'old', official: true, date: '2026-08-01' }));
    await ingestBatch(store, readArtifacts(sweepDir(), { runId: 'new', official: true, date: '2026-09-01' }));
    await ingestBatch(store, readArtifacts(prDir(), { runId: 'pr-1', date: '2026-09-02', thresholdOf: () => 0.91 }));
    // A run staged from PR #5 (/stage-results), the newest of all: in no view unless asked for (?staged=).
    const staged = copyDir(ARTIFACTS);
    scaleMeasurements(staged, 3);
    await ingestBatch(store, readArtifacts(staged, { runId: 'stg-1', date: '2026-09-03', stage: { pr: 5, by: 'alice' } }));
    app = await buildApi({ store, webDir: join(REPO, 'dist/web') });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(SHOTS, { recursive: true });
    return async () => {
      expect(errors).toEqual([]);
    };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The chart once it has drawn the data of the current URL. */
  const chart = (testId: string) => chartOf(page, testId);
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('inference: the expected points and frontier lines, one series per hardware × engine × precision', async () => {
    await page.goto(`${base}/inference?model=dsr1`);
    const attr = await chart('inference-chart');
    // h200 sglang fp8 (its newest sweep: conc 4, 8, 16, 32; conc 16 off the frontier), b300 sglang fp4 mtp, gb200 dynamo-trt fp4 mtp.
    expect(await attr('series')).toBe(3);
    expect(await attr('points')).toBe(5);
    expect(await attr('frontiers')).toBe(1);
    await shot('inference');
    await page.getByLabel('Hide non-optimal points').uncheck();
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&optimal=0`);
    expect(await (await chart('inference-chart'))('points')).toBe(6);
    // The simulator's predicted frontier for the h200 series: one dashed line beside the measured one.
    await page.goto(`${base}/inference?model=dsr1&hw=h200`);
    await page.getByLabel('Predicted frontier').check();
    await expect.poll(async () => (await chart('inference-chart'))('predicted'), { timeout: 20_000 }).toBe(1);
  });

  it('no layout shift while the page loads its data', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await fresh.addInitScript(
      'window.__cls = 0; new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; }).observe({ type: "layout-shift", buffered: true });',
    );
    await fresh.goto(`${base}/inference?model=dsr1&run=pr-1`);
    await fresh.locator('[data-testid="inference-chart"][data-ready="true"][data-loading="0"]').waitFor();
    // Part of the test, not a wait for anything: a shift in the moments after the data has come counts too.
    await fresh.waitForTimeout(200);
    const cls = Number(await fresh.evaluate('window.__cls'));
    await fresh.close();
    // Cumulative layout shift: "good" is under 0.1 (web.dev); the chart's box is sized before its data comes.
    expect(cls).toBeLessThan(0.1);
  });

  it('a filter changes the URL and the chart; reloading restores the view; back and forward work', async () => {
    await page.goto(`${base}/inference?model=dsr1`);
    await chart('inference-chart');
    await page.locator('[data-filter="hw"] input[value="h200"]').uncheck();
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&hw=b300,gb200`);
    expect(await (await chart('inference-chart'))('points')).toBe(2);
    await page.selectOption('select[name="y"]', 'cost_per_mtok');
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&y=cost_per_mtok&hw=b300,gb200`);
    await page.reload();
    expect(await (await chart('inference-chart'))('points')).toBe(2);
    expect(await page.locator('[data-filter="hw"] input[value="h200"]').isChecked()).toBe(false);
    expect(await page.locator('select[name="y"]').inputValue()).toBe('cost_per_mtok');
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&hw=b300,gb200`);
    expect(await page.locator('select[name="y"]').inputValue()).toBe('tput_per_gpu');
    await page.goBack();
    expect(await (await chart('inference-chart'))('points')).toBe(5);
    await page.goForward();
    expect(await (await chart('inference-chart'))('points')).toBe(2);
    // The filters work from the keyboard.
    await page.locator('[data-filter="hw"] input[value="h200"]').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1`);
  });

  it('a preset link expands into its view', async () => {
    await page.goto(`${base}/inference?model=dsr1&preset=cost`);
    await chart('inference-chart');
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&y=cost_per_mtok`);
  });

  it('?run= draws the run over the official points, marked unofficial, with the table of deltas', async () => {
    await page.goto(`${base}/inference?model=dsr1&run=pr-1`);
    const attr = await chart('inference-chart');
    expect(await attr('overlay-points')).toBe(3);
    expect(await attr('points')).toBe(5);
    await expect(page.getByTestId('overlay-banner').textContent()).resolves.toContain('Unofficial run pr-1');
    const deltas = page.getByTestId('deltas').locator('tbody tr');
    await deltas.first().waitFor();
    expect(await deltas.count()).toBe(6);
    // −20% against official history ±1%: every point a significant regression, badged in words as well as colour.
    expect(await page.getByTestId('deltas').locator('tbody tr.regression').count()).toBe(6);
    await expect(page.getByTestId('deltas').locator('.badge').allTextContents()).resolves.toEqual(Array(6).fill('▼ regression'));
    expect(await deltas.first().textContent()).toMatch(/−20\.0% \[−2\d\.\d, −1\d\.\d\] ▼/);
    expect(await deltas.first().locator('td').nth(5).getAttribute('title')).toMatch(
      /^regression: n 1 run \/ 1 official; moderated-t, df \d+\.\d, p [\d.e-]+, q [\d.e-]+$/,
    );
    await expect(page.locator('h2').first().textContent()).resolves.toContain('6 significant regressions');
    await expect(page.getByTestId('compare-method').textContent()).resolves.toMatch(
      /false discovery rate α = 0\.05 \(Benjamini–Hochberg, over every metric of every point\) and at least 2%; a change whose interval reaches beyond ±5% is inconclusive\. Tests: Welch's t/,
    );
    await shot('inference-run-overlay');
  });

  it('?staged= draws a staged run over the official points under a "staged, not official" banner', async () => {
    await page.goto(`${base}/inference?model=dsr1&staged=stg-1`);
    const attr = await chart('inference-chart');
    expect(await attr('overlay-points')).toBe(3);
    expect(await attr('points')).toBe(5);
    await expect
      .poll(() => page.getByTestId('staged-banner').textContent())
      .toMatch(
        /^Staged, not official: run stg-1 from PR #5, staged by @alice on \d{4}-\d{2}-\d{2}, drawn over the official results/,
      );
    expect(await page.getByTestId('overlay-banner').count()).toBe(0);
    await shot('inference-staged');
    await page.getByTestId('staged-banner').getByRole('link', { name: 'Hide it' }).click();
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1`);
    expect(await (await chart('inference-chart'))('overlay-points')).toBe(0);
    expect(await page.getByTestId('staged-banner').count()).toBe(0);
  });

  it('exports the visible points as CSV, units in the header, values as the API gives them', async () => {
    await page.goto(`${base}/inference?model=dsr1&y=cost_per_mtok&tco=h200:3.6:1.73`);
    await chart('inference-chart');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    expect(download.suggestedFilename()).toBe('frontier-dsr1-8192x1024-cost_per_mtok-vs-median_intvty.csv');
    const lines = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    const header = lines[0]!.split(',');
    expect(header).toContain('median_intvty (tok/s/user)');
    expect(header).toContain('cost_per_mtok ($/M tok)');
    expect(header).toContain('median_ttft (s)');
    expect(lines).toHaveLength(1 + 5);
    const rows = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v])));
    const h200 = rows.find((r) => r.hardware === 'h200' && r.conc === '4')!;
    // $3.60/GPU/hour over 100 tok/s/GPU = 0.36 M tok/hour: $10 per million tokens.
    expect(Number(h200['cost_per_mtok ($/M tok)'])).toBeCloseTo(10, 9);
    expect(Number(h200['median_intvty (tok/s/user)'])).toBe(10);
  });

  it('evaluation: a chart per task, a bar with error bars per config, the threshold, the failed one marked', async () => {
    await page.goto(`${base}/evaluation?model=dsr1&run=pr-1`);
    const attr = await chart('eval-chart-gsm8k');
    expect(await attr('bars')).toBe(6);
    expect(await attr('failed')).toBe(1);
    const gpqa = await chart('eval-chart-gpqa_diamond_cot_n_shot');
    expect(await gpqa('bars')).toBe(1);
    expect(await gpqa('failed')).toBe(0);
    await expect(page.locator('.note b.fail').textContent()).resolves.toBe('1 below threshold.');
    await shot('evaluation');
  });

  it('trends: a series’ throughput at the chosen interactivity, run after run', async () => {
    await page.goto(`${base}/trends?model=dsr1&target=15`);
    const attr = await chart('trends-chart');
    // Only the newest h200 sweep reaches 15 tok/s/user; single points count only at their own x.
    expect(await attr('lines')).toBe(1);
    expect(await attr('points')).toBe(1);
    await shot('trends');
  });

  it('runs: the list with status and success rate, and a run’s page with its points and evals', async () => {
    await page.goto(`${base}/runs`);
    const rows = page.getByTestId('runs').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3 + HISTORY.length);
    expect(await rows.first().textContent()).toContain('pr-1');
    expect(await rows.first().textContent()).toContain('86%');
    await shot('runs');
    await rows.first().getByRole('link').click();
    await expect.poll(() => page.url()).toBe(`${base}/runs/pr-1`);
    await page.getByTestId('run-points').locator('tbody tr').first().waitFor();
    expect(await page.getByTestId('run-points').locator('tbody tr').count()).toBe(6);
    expect(await page.getByTestId('run-evals').locator('tbody tr.regression').count()).toBe(1);
    await shot('run');
    await page.getByTestId('run-logs').getByRole('link', { name: 'server_logs_b300/server.log' }).click();
    await expect.poll(() => page.textContent('body')).toBe('sglang ready on :30000\n');
  });

  it('TCO: editing a price changes the URL and the cost axis', async () => {
    await page.goto(`${base}/tco`);
    const input = page.getByLabel('h200 dollars per GPU hour');
    await input.fill('3.6');
    await expect.poll(() => page.url()).toBe(`${base}/tco?tco=h200:3.6:1.73`);
    await shot('tco');
    await page.getByRole('link', { name: 'Inference' }).click();
    await expect.poll(() => page.url()).toBe(`${base}/inference?tco=h200:3.6:1.73`);
  });

  it('reads on a phone: the chart fits the screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await phone.goto(`${base}/inference?model=dsr1`);
    await phone.locator('[data-testid="inference-chart"][data-ready="true"]').waitFor();
    const width = await phone.evaluate('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: join(SHOTS, 'inference-phone.png'), fullPage: true });
    await phone.close();
  });
  // Last: it corrects the record the other tests read.
  it('corrections of the record: a purged run is gone from the runs list; an overridden one carries its mark and reason', async () => {
    await purgeRun(store, 'h0', { by: 'alice', reason: 'wrong image' });
    await overrideConclusion(store, 'old', 'failure', { by: 'bob', reason: 'misconfigured node' });
    await page.goto(`${base}/runs`);
    const rows = page.getByTestId('runs').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3 + HISTORY.length - 1);
    const ids = await rows.locator('td:first-child').allTextContents();
    expect(ids).not.toContain('h0');
    const old = rows.filter({ has: page.getByRole('link', { name: 'old', exact: true }) });
    expect(await old.getAttribute('class')).toBe('regression');
    expect(await old.getByTestId('conclusion-override').textContent()).toBe(' overridden: failure (misconfigured node)');
    expect(await page.getByTestId('conclusion-override').count()).toBe(1);
    await old.getByRole('link').click();
    await expect
      .poll(() => page.getByTestId('run-conclusion').textContent())
      .toMatch(/^failure — set by bob on \d{4}-\d{2}-\d{2}: misconfigured node \(its points are left out/);
    await page.goto(`${base}/runs/h0`);
    await expect.poll(() => page.locator('.error').first().textContent()).toContain('no run h0');
  });
});
