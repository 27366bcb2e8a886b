// The Agentic page in a real browser (Debian's Chromium, playwright-core), as dashboard.test.ts
// drives the others: `buildApi` serving the built dashboard (dist/web) over a store seeded with the
// agentic fixture run and a PR run of it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { copyDir, editJson, storeFactory } from '../store/helpers.js';
import { chartOf, launchChromium } from '../support/browser.js';

const SHOTS = join(REPO, 'test-results/screenshots');
const RUN = join(REPO, 'test/fixtures/agentic/store/run');

/** The fixture run again as an unofficial PR run, every throughput 20% lower. */
function prDir(): string {
  const dir = copyDir(RUN);
  editJson(join(dir, 'run.json'), (v) => ({ ...(v as object), id: 'pr-agentic', started: '2026-12-03T08:00:00Z' }));
  for (const rf of [4, 8, 16].flatMap((c) =>
    ['gpu', 'dram'].map((k) => `dsr1_fp8_vllm_tp8-ep1-dpafalse_kv-${k}_agentic_conc${c}_h200-nv_0`),
  ))
    editJson(join(dir, `bmk_agentic_${rf}`, `${rf}.json`), (v) => {
      const perGpu = (v as { request_metrics: { throughput: { per_gpu: { total_tput_tps: number } } } }).request_metrics
        .throughput.per_gpu;
      perGpu.total_tput_tps *= 0.8;
      return v;
    });
  return dir;
}

describe('the Agentic page in Chromium', () => {
  const fresh = storeFactory('sqlite');
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    const store = await fresh();
    await ingestBatch(store, readArtifacts(RUN, { official: true }));
    await ingestBatch(store, readArtifacts(prDir()));
    app = await buildApi({ store, webDir: join(REPO, 'dist/web') });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    expect(errors).toEqual([]);
  });

  const chart = (testId: string) => chartOf(page, testId);

  it('is a page of its own in the navigation', async () => {
    await page.goto(`${base}/inference`);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Agentic' }).click();
    await expect.poll(() => page.url()).toBe(`${base}/agentic`);
    expect(await page.locator('h1').textContent()).toContain('Agentic coding');
  });

  it('draws throughput against interactivity per configuration, TTFT by context length, and cache hit rates per concurrency', async () => {
    await page.goto(`${base}/agentic?model=dsr1`);
    const throughput = await chart('agentic-chart');
    // Two configurations (GPU-only and DRAM offload) at conc 4, 8 and 16.
    expect(await throughput('series')).toBe(2);
    expect(await throughput('points')).toBe(6);
    expect(await throughput('overlay-points')).toBe(0);
    // Only the GPU-only arm kept its per-request records: one line at the highest concurrency.
    expect(await (await chart('agentic-ttft-chart'))('lines')).toBe(1);
    expect(await page.locator('select[name="conc"]').inputValue()).toBe('16');
    // GPU and theoretical hit rates for both arms; the CPU/offload rate for the offload arm only.
    expect(await (await chart('agentic-cache-chart'))('lines')).toBe(5);
    await page.screenshot({ path: join(SHOTS, 'agentic.png'), fullPage: true });
    await page.selectOption('select[name="conc"]', '4');
    await expect.poll(async () => page.locator('h2').first().textContent()).toContain('at concurrency 4');
    expect(await (await chart('agentic-ttft-chart'))('lines')).toBe(1);
  });

  it('?run= draws the run over the official points, marked unofficial, with its changes against them', async () => {
    await page.goto(`${base}/agentic?model=dsr1&run=pr-agentic`);
    const throughput = await chart('agentic-chart');
    expect(await throughput('overlay-points')).toBe(6);
    expect(await throughput('points')).toBe(6);
    await expect.poll(() => page.locator('[data-testid="overlay-banner"]').textContent()).toContain('pr-agentic');
    const rows = page.locator('[data-testid="agentic-deltas"] tbody tr');
    await expect.poll(() => rows.count()).toBe(6);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('-20.0%');
      expect(text).toContain('20261201T120000-agentic1');
    }
    // With both runs' records, the TTFT chart has a line for the run's GPU-only arm too.
    expect(await (await chart('agentic-ttft-chart'))('lines')).toBe(2);
    await page.screenshot({ path: join(SHOTS, 'agentic-run.png'), fullPage: true });
  });

  it('a run’s page counts its agentic points and links to them over the official ones', async () => {
    await page.goto(`${base}/runs/pr-agentic`);
    await page.getByRole('link', { name: '6 agentic points over the official ones' }).click();
    await expect.poll(() => page.url()).toBe(`${base}/agentic?run=pr-agentic`);
    expect(await (await chart('agentic-chart'))('overlay-points')).toBe(6);
  });
});
