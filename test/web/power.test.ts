// Measured energy on the dashboard (issue 21), in Chromium against the built dashboard (npm run
// build): the Energy control switches the energy axes between measured power and the TCO figures,
// leaves out (and counts) points without valid power, and labels the figures measured, modelled
// (simulated engine) or from TCO figures. One page, few navigations: kept fast.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { MEASURED_POWER_KEYS } from '../../src/contract/index.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { copyDir, editJson, storeFactory } from '../store/helpers.js';
import { launchChromium } from '../support/browser.js';

type Row = Record<string, unknown>;
const POWER_ARTIFACTS = join(REPO, 'test/fixtures/power/store/artifacts');
const SHOTS = join(REPO, 'test-results/screenshots');

/** Only the collected aggregate, edited: per-point files and sidecars removed. */
function collectedOnly(edit: (rows: Row[]) => Row[]): string {
  const dir = copyDir(POWER_ARTIFACTS);
  for (const d of readdirSync(dir).filter((d) => d !== 'results_bmk')) rmSync(join(dir, d), { recursive: true });
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) => edit(rows as Row[]));
  return dir;
}

describe('measured energy on the dashboard in Chromium', () => {
  const fresh = storeFactory('sqlite');
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const store = await fresh();
    // dsr1 on h200: conc 64 with valid measured power, conc 32 without (power_valid 0).
    const measured = collectedOnly((rows) => {
      const invalid: Row = { ...rows[0]!, conc: 32, power_valid: 0 };
      for (const k of MEASURED_POWER_KEYS) delete invalid[k];
      return [rows[0]!, invalid];
    });
    await ingestBatch(store, readArtifacts(measured, { runId: 'measured', official: true, date: '2026-11-01' }));
    // kimik2.5 on b200 from a simulated run: valid power, modelled by the simulated engine.
    const sim = collectedOnly((rows) => [
      { ...rows[1]!, power_valid: 1, avg_power_w: 700, joules_per_total_token: 0.3, joules_per_output_token: 2.4 },
    ]);
    writeFileSync(join(sim, 'run.json'), JSON.stringify({ version: 1, frontier: 'test', cluster: { simulate: true } }));
    await ingestBatch(store, readArtifacts(sim, { runId: 'sim', official: true, date: '2026-11-02' }));
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

  const chart = async () => {
    const el = page.locator('[data-testid="inference-chart"][data-ready="true"][data-loading="0"]');
    await el.waitFor({ timeout: 15_000 });
    return { points: Number(await el.getAttribute('data-points')), y: await el.getAttribute('data-y-axis') };
  };

  it('switches J/token between the TCO figures and measured power, and says which', async () => {
    await page.goto(`${base}/inference?model=dsr1&y=joules_per_tok&optimal=0`);
    expect(await chart()).toEqual({ points: 2, y: 'Energy per total token (J/tok), from TCO figures' });
    expect(await page.getByTestId('energy-source').textContent()).toContain('from TCO figures');
    expect(await page.getByTestId('unmeasured').count()).toBe(0);

    await page.selectOption('select[name="energy"]', 'measured');
    await expect.poll(() => page.url()).toBe(`${base}/inference?model=dsr1&y=joules_per_tok&optimal=0&energy=measured`);
    expect(await chart()).toEqual({ points: 1, y: 'Energy per total token (J/tok), measured' });
    expect(await page.locator('h1').textContent()).toBe(
      'Inference: Energy per total token, measured against interactivity, median',
    );
    expect(await page.getByTestId('unmeasured').getAttribute('data-count')).toBe('1');
    expect(await page.getByTestId('unmeasured').textContent()).toContain('1 point not shown: no valid measured power');
    await page.screenshot({ path: join(SHOTS, 'inference-measured-energy.png'), fullPage: true });

    // A simulated run's power is modelled, and says so.
    await page.goto(`${base}/inference?model=kimik2.5&y=tput_per_mw&energy=measured`);
    expect(await chart()).toEqual({ points: 1, y: 'Token throughput per MW (tok/s/MW), modelled (simulated engine)' });
    expect(await page.getByTestId('energy-source').textContent()).toContain('modelled (simulated engine)');
  });
});
