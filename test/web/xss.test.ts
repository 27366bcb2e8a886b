// Stored XSS (issue 40): hostile strings ingested through the real ingest path into every field the
// pages render, served by `buildApi` with its Content-Security-Policy, every page opened and every
// kind of tooltip shown in Chromium. No script may run, no CSP violation may be reported (an
// unescaped payload would be one: the policy blocks its inline handler), every payload must read
// as text, and the charts must draw under the policy. One store, one server, one browser.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/index.js';
import { CONTENT_SECURITY_POLICY } from '../../src/api/security-headers.js';
import { ingestBatch, readArtifacts } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson, storeFactory } from '../store/helpers.js';
import { launchChromium } from '../support/browser.js';

type Row = Record<string, unknown>;

/** Each payload sets window.__xss to its own number if it runs; all are lower case (ingest lowers some fields). */
const img = (n: number) => `<img src=x onerror=window.__xss=${n}>`;
const script = (n: number) => `"><script>window.__xss=${n}</script>`;
const P = {
  hardware: img(1),
  framework: script(2),
  precision: img(3),
  model: script(4),
  spec: img(5),
  image: script(6),
  recipe: img(7),
  powerReason: img(8),
  task: img(9),
  runId: img(10),
  runUrl: 'javascript:window.__xss=12',
  changelog: img(13),
  prLink: 'javascript:window.__xss=14',
  agenticModel: img(15),
  agenticImage: script(16),
  agenticRunId: img(17),
  deferred: script(18),
  agenticFramework: img(19),
  logFolder: img(20),
  logFile: '<svg onload=window.__xss=21>.log',
  logContent: script(22),
  branch: script(23),
  commit: img(24),
  statsHardware: img(25),
  status: img(26),
  ended: script(27),
  offloadBackend: img(28),
};

const POWER = join(REPO, 'test/fixtures/power/store/artifacts');
const AGENTIC = join(REPO, 'test/fixtures/agentic/store/run');
const STEM = 'dsr1_h200_sglang_tp8_conc64';

/**
 * An InferenceX artifact set whose every string is hostile: one config at two concurrencies (so
 * that the trends page reads its frontier), its power invalid for a hostile reason, a GSM8K eval
 * of a hostile task, a changelog entry with a hostile description and PR link.
 */
function inferenceDir(): string {
  const dir = copyDir(POWER);
  for (const d of readdirSync(dir).filter((d) => !d.endsWith(STEM))) rmSync(join(dir, d), { recursive: true });
  const hostile = (r: Row): Row => ({
    ...r,
    hw: P.hardware,
    framework: P.framework,
    precision: P.precision,
    infmax_model_prefix: P.model,
    spec_decoding: P.spec,
    image: P.image,
    recipe_fingerprint: P.recipe,
  });
  editJson(join(dir, `bmk_${STEM}/agg_${STEM}.json`), (r) => ({ ...hostile(r as Row), power_valid: 0 }));
  editJson(join(dir, `power_audit_${STEM}/power_validation_${STEM}.json`), (v) => ({
    ...(v as Row),
    power_valid: false,
    reasons: [P.powerReason],
  }));
  // The same config at conc 32, faster per user: the frontier crosses the trends page's 50 tok/s/user.
  const other = STEM.replace('conc64', 'conc32');
  renameSync(copyDir(join(dir, `bmk_${STEM}`)), join(dir, `bmk_${other}`));
  renameSync(join(dir, `bmk_${other}/agg_${STEM}.json`), join(dir, `bmk_${other}/agg_${other}.json`));
  editJson(join(dir, `bmk_${other}/agg_${other}.json`), (r) => ({
    ...(r as Row),
    conc: 32,
    median_intvty: 60,
    tput_per_gpu: 1500,
  }));

  const evals = (readArtifactsJson(join(ARTIFACTS, 'eval_results_all/agg_eval_all.json')) as Row[]).slice(0, 1);
  writeJson(join(dir, 'agg_eval_all.json'), [
    { ...evals[0], model_prefix: P.model, hw: P.hardware, framework: P.framework, precision: P.precision, task: P.task },
  ]);
  writeJson(join(dir, 'changelog_metadata.json'), {
    base_ref: 'a'.repeat(40),
    head_ref: 'b'.repeat(40),
    entries: [{ 'config-keys': [P.changelog], description: [P.changelog], 'pr-link': P.prLink }],
  });
  writeJson(join(dir, 'run_stats.json'), { [P.statsHardware]: { n_success: 1, total: 2 } });
  mkdirSync(join(dir, `server_logs_${P.logFolder}`));
  writeFileSync(join(dir, `server_logs_${P.logFolder}`, P.logFile), `${P.logContent}\n`);
  return dir;
}

/** The agentic fixture run with hostile names, its id from run.json, and a deferred point with a hostile reason. */
function agenticDir(): string {
  const dir = copyDir(AGENTIC);
  editJson(join(dir, 'run.json'), (v) => ({
    ...(v as Row),
    id: P.agenticRunId,
    status: P.status,
    ended: P.ended,
    points: [{ status: 'deferred', reason: P.deferred }],
  }));
  for (const folder of readdirSync(dir).filter((d) => d.startsWith('bmk_agentic_')))
    for (const f of readdirSync(join(dir, folder)))
      editJson(join(dir, folder, f), (v) => ({
        ...(v as Row),
        infmax_model_prefix: P.agenticModel,
        image: P.agenticImage,
        framework: P.agenticFramework,
        ...((v as Row).kv_offload_backend ? { kv_offload_backend: P.offloadBackend } : {}),
      }));
  return dir;
}

const readArtifactsJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value));

/** Records every violation of the policy the page reports (the test's own script: CDP, not the page's CSP). */
const RECORD_VIOLATIONS = `document.addEventListener('securitypolicyviolation', (e) =>
  (window.__csp ??= []).push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample));`;

describe('hostile stored strings on the dashboard, in Chromium under its CSP', () => {
  const fresh = storeFactory('sqlite');
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const store = await fresh();
    const options = { runId: P.runId, official: true, date: '2026-11-01', url: P.runUrl, branch: P.branch, commit: P.commit };
    await ingestBatch(store, readArtifacts(inferenceDir(), { ...options, thresholdOf: () => 0.9 }));
    await ingestBatch(store, readArtifacts(agenticDir(), { official: true }));
    app = await buildApi({ store, webDir: join(REPO, 'dist/web') });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    await page.addInitScript({ content: RECORD_VIOLATIONS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  }, 30_000);

  /** Nothing ran, nothing was refused: the page is as its files and escaped text made it. */
  const clean = async () => {
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.evaluate('window.__csp ?? []')).toEqual([]);
    expect(problems).toEqual([]);
  };
  const open = async (path: string) => {
    problems.length = 0;
    const answer = await page.goto(`${base}${path}`);
    expect(answer?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  };
  /** A chart drawn under the CSP: ECharts has finished drawing its data. */
  const drawn = async (selector: string) => {
    const chart = page.locator(`${selector}[data-ready="true"][data-loading="0"]`).first();
    await chart.waitFor({ timeout: 15_000 });
    return chart;
  };
  /** The tooltip of one item, shown through ECharts' showTip; its text as the page shows it. */
  const tooltip = async (selector: string, seriesIndex: number, dataIndex = 0): Promise<string> => {
    const chart = await drawn(selector);
    await chart.evaluate(
      (el, at) =>
        (el as unknown as { echarts: { dispatchAction(a: object): void } }).echarts.dispatchAction({ type: 'showTip', ...at }),
      { seriesIndex, dataIndex },
    );
    await expect.poll(() => chart.innerText()).not.toBe('');
    expect(await chart.locator('img, script').count()).toBe(0);
    return chart.innerText();
  };
  const text = () => page.locator('main, body').first().innerText();

  it('serves the CSP and nosniff on pages, assets and the API', async () => {
    for (const path of ['/inference', '/assets/none.js', '/api/v1/runs', '/api/v1/nothing']) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.headers.get('content-security-policy'), path).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const html = await (await fetch(`${base}/inference`)).text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${base}${asset}`)).headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('inference: the point tooltip shows every field as text, and the power reason', async () => {
    await open(`/inference?model=${encodeURIComponent(P.model)}&optimal=0`);
    // Two points: conc 32 and conc 64, whose power verdict has the hostile reason.
    const tip =
      (await tooltip('[data-testid="inference-chart"]', 0, 0)) + (await tooltip('[data-testid="inference-chart"]', 0, 1));
    expect(await (await drawn('[data-testid="inference-chart"]')).getAttribute('data-points')).toBe('2');
    for (const p of [
      P.model,
      P.hardware,
      P.framework,
      P.precision,
      P.spec,
      P.image,
      P.recipe.slice(0, 16),
      P.powerReason,
      P.runId,
    ])
      expect(tip).toContain(p);
    // The filters name the hardware, engine, precision and spec decoding as text.
    const filters = await page.locator('fieldset').allInnerTexts();
    for (const p of [P.hardware, P.framework, P.precision, P.spec]) expect(filters.join('\n')).toContain(p);
    // The exports (a blob: and a data: URL) work under the policy too.
    for (const button of ['Export CSV', 'Export PNG']) {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      expect(await file.failure()).toBeNull();
    }
    await clean();
  });

  it('evaluation: the bar tooltip shows the task, the config and the run as text', async () => {
    await open(`/evaluation?model=${encodeURIComponent(P.model)}`);
    const tip = await tooltip('[data-testid^="eval-chart-"]', 0);
    expect(await (await drawn('[data-testid^="eval-chart-"]')).getAttribute('data-bars')).toBe('1');
    for (const p of [P.task, P.model, P.hardware, P.framework, P.precision, P.runId]) expect(tip).toContain(p);
    expect(await text()).toContain(P.task);
    await clean();
  });

  it('trends: the axis tooltip names the series as text', async () => {
    await open(`/trends?model=${encodeURIComponent(P.model)}`);
    const tip = await tooltip('[data-testid="trends-chart"]', 0);
    expect(await (await drawn('[data-testid="trends-chart"]')).getAttribute('data-points')).toBe('1');
    // The trends page names a series' hardware in capitals.
    for (const p of [P.hardware.toUpperCase(), P.framework, P.precision]) expect(tip).toContain(p);
    await clean();
  });

  it('agentic: the point, TTFT and cache tooltips show names, image and run as text', async () => {
    await open(`/agentic?model=${encodeURIComponent(P.agenticModel)}`);
    const point = await tooltip('[data-testid="agentic-chart"]', 0);
    expect(await (await drawn('[data-testid="agentic-chart"]')).getAttribute('data-points')).toBe('6');
    for (const p of [P.agenticModel, P.agenticFramework, P.agenticImage, P.agenticRunId]) expect(point).toContain(p);
    // The offload arm's series names its backend.
    expect(await tooltip('[data-testid="agentic-cache-chart"]', 2)).toContain(P.offloadBackend);
    expect(await tooltip('[data-testid="agentic-ttft-chart"]', 0)).toContain(P.agenticModel);
    expect(await tooltip('[data-testid="agentic-cache-chart"]', 0)).toContain(P.agenticModel);
    // The partial run's banner: its id and the deferred point's reason.
    const banner = await page.locator('[data-testid="partial-runs"]').innerText();
    expect(banner).toContain(P.agenticRunId);
    expect(banner).toContain(P.deferred);
    await clean();
  });

  it('runs: names, ids and changelog as text; javascript: links are not links', async () => {
    await open('/runs');
    await page.locator('[data-testid="runs"] tbody tr').nth(1).waitFor();
    for (const p of [P.runId, P.agenticRunId, P.branch, P.commit.slice(0, 10), P.status]) expect(await text()).toContain(p);
    await open(`/runs/${encodeURIComponent(P.runId)}`);
    await page.getByText('changelog', { exact: true }).waitFor();
    const shown = await text();
    for (const p of [
      P.runId,
      P.runUrl,
      P.changelog,
      P.prLink,
      P.commit,
      P.statsHardware,
      `server_logs_${P.logFolder}/${P.logFile}`,
    ])
      expect(shown).toContain(p);
    const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.filter((h) => !h.startsWith('/'))).toEqual([]);
    await clean();
    // The log, opened from its link, is text (text/plain, nosniff): its markup does not run.
    await page.getByRole('link', { name: `server_logs_${P.logFolder}/${P.logFile}` }).click();
    await expect.poll(() => page.locator('body').innerText()).toContain(P.logContent);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('runs: a frontier run’s status and end time as text', async () => {
    await open(`/runs/${encodeURIComponent(P.agenticRunId)}`);
    await page.getByText('started / ended', { exact: true }).waitFor();
    for (const p of [P.agenticRunId, P.status, P.ended, P.deferred]) expect(await text()).toContain(p);
    await clean();
  });

  it('tco: hardware names as text', async () => {
    await open('/tco');
    await page.locator('[data-testid="tco"] tbody tr').first().waitFor();
    await expect.poll(text).toContain(P.hardware);
    await clean();
  });
});
