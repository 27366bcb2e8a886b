// A partial run on the dashboard, in Chromium: a run whose rows were deferred (`frontier run
// --defer`, as npm start defers the llama.cpp row while llama-server builds) says so on every page,
// and says again when the rest is in.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import type { Store } from '../../src/store/index.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import { REPO, tempFiles } from '../helpers.js';
import { runLocally, singleRow } from '../launch/fixtures.js';
import type { RunManifest } from '../../src/launch/index.js';
import { copyDir, editJson, storeFactory } from '../store/helpers.js';
import { launchChromium } from '../support/browser.js';

describe('a partial run on the dashboard', () => {
  const fresh = storeFactory('sqlite');
  const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2, tp: 2 })];
  const out = join(tempFiles({}), 'run');
  const sweep = (defer: boolean) =>
    runLocally(rows, {
      out,
      resume: !defer,
      ...(defer ? { defer: { rows: new Set([rows[1]!]), reason: 'its engine is still building' } } : {}),
    });
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    store = await fresh();
    expect((await sweep(true)).manifest.status).toBe('partial');
    await ingestBatch(store, readArtifacts(out, { official: true }));
    app = await buildApi({ store, webDir: join(REPO, 'dist/web') });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('says on every page what is still to come and why, then that it is in', async () => {
    const banner = page.getByTestId('partial-runs');
    for (const path of ['/inference', '/runs']) {
      await page.goto(`${base}${path}`);
      await expect.poll(() => banner.textContent(), { timeout: 10_000 }).toMatch(/is partial: 1 points are in, 1 more to come/);
      expect(await banner.textContent()).toContain('its engine is still building');
    }
    expect(await page.getByTestId('runs').locator('tbody tr').first().textContent()).toContain('partial');

    // The deferred row runs, the same run is ingested again: the open page notices, and a reload shows it.
    expect((await sweep(false)).manifest.status).toBe('completed');
    const again = await ingestBatch(store, readArtifacts(out, { official: true }));
    expect(again.run_changes).toEqual(
      expect.arrayContaining([
        { field: 'status', from: 'partial', to: 'completed' },
        { field: 'deferred_points', from: '1', to: '0' },
        { field: 'deferred_reason', from: 'its engine is still building', to: '' },
      ]),
    );
    await expect.poll(() => banner.textContent(), { timeout: 15_000 }).toMatch(/its deferred points are in \(run completed\)/);
    await banner.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('runs').locator('tbody tr').first().textContent()).toContain('completed');
    expect(await page.getByTestId('partial-runs').count()).toBe(0);
  }, 60_000);

  it('a run whose launch was retried lists its attempts: nodes, outcome and why', async () => {
    // The same run as a retried launch records it (frontier run --retries; test/launch/retries*.test.ts run them for real).
    const retried = copyDir(out);
    editJson(join(retried, 'run.json'), (value) => {
      const m = value as RunManifest;
      const ok = m.launches[0]!.attempts![0]!;
      m.launches[0]!.attempts = [
        { ...ok, attempt: 1, nodes: ['gpu-07'], outcome: 'infrastructure', reason: 'the engine never became healthy' },
        { ...ok, attempt: 2, nodes: ['gpu-08'] },
      ];
      return m;
    });
    const s = await ingestBatch(store, readArtifacts(retried, { runId: 'retried' }));
    expect(s.attempts).toMatchObject({ infrastructure: 1 });
    await page.goto(`${base}/runs/retried`);
    const rows = page.getByTestId('run-attempts').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/gpu-07infrastructurethe engine never became healthy$/),
        expect.stringMatching(/gpu-08ok–$/),
      ]),
    );
    await expect(page.getByTestId('run-facts').textContent()).resolves.toMatch(/1 failed for infrastructure reasons and retried/);
  }, 60_000);
});
