// The dashboard figures of `npm run perf`:
//   interactive  with 10,000 points in view (50 series of 200 points, every point shown), the time
//                from navigation to the inference chart drawn and the page answering input, in
//                headless Chromium (Debian's, driven by playwright-core); target < 1.5 s;
//   bundle       the built JS, gzipped; target < 1 MB.
// Usage: node perf/dashboard.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve.mjs';
import { gzipSync } from 'node:zlib';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.cjs`;

const HARDWARE = ['h100', 'h200', 'b200', 'b300', 'gb200', 'gb300', 'mi300x', 'mi325x', 'mi355x', 'h20'];
const FRAMEWORKS = ['vllm', 'sglang', 'trt', 'dynamo-vllm', 'dynamo-sglang'];

/** 10,000 points of one model and sequence: 50 series × (4 TP × 2 DP-attention × 25 concurrencies). */
function points() {
  const rows = [];
  for (const hw of HARDWARE)
    for (const framework of FRAMEWORKS)
      for (const tp of [1, 2, 4, 8])
        for (const dp of [false, true])
          for (let c = 1; c <= 25; c++) {
            const conc = c * 4;
            const tpot = 0.004 + conc * 0.0003 * (1 + tp / 16) + (dp ? 0.001 : 0);
            const row = {
              hw,
              conc,
              image: `${framework}:1`,
              model: 'org/perf-model',
              infmax_model_prefix: 'perf',
              framework,
              precision: 'fp8',
              spec_decoding: 'none',
              disagg: false,
              isl: 1024,
              osl: 1024,
              is_multinode: false,
              tp,
              pp: 1,
              dcp_size: 1,
              pcp_size: 1,
              ep: dp ? tp : 1,
              dp_attention: String(dp),
              tput_per_gpu: (conc * 900) / tp / (1 + conc / 64),
              output_tput_per_gpu: (conc * 450) / tp / (1 + conc / 64),
              input_tput_per_gpu: (conc * 450) / tp / (1 + conc / 64),
            };
            for (const s of ['mean', 'median', 'p90', 'p99']) {
              row[`${s}_ttft`] = 0.05 + conc / 500;
              row[`${s}_tpot`] = tpot;
              row[`${s}_intvty`] = 1 / tpot;
              row[`${s}_e2el`] = tpot * 1024;
            }
            rows.push(row);
          }
  return rows;
}

export async function dashboardPerf({ loads = 5 } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'frontier-dashboard-perf-'));
  const dir = join(root, 'run');
  mkdirSync(join(dir, 'results_bmk'), { recursive: true });
  const rows = points();
  writeFileSync(join(dir, 'results_bmk', 'agg_bmk.json'), JSON.stringify(rows));
  const db = join(root, 'frontier.db');
  const ingest = spawnSync(
    process.execPath,
    [cli, 'ingest', dir, '--db', db, '--run-id', 'perf', '--official', '--date', '2026-11-01'],
    { encoding: 'utf8' },
  );
  if (ingest.status !== 0) throw new Error(`frontier ingest failed: ${ingest.stderr}`);

  const server = await startServe(db);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking'],
  });
  try {
    const { url } = server;
    const times = [];
    let drawn = 0;
    for (let i = 0; i < loads + 1; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${url}/inference?model=perf&optimal=0`);
      await page
        .locator('[data-testid="inference-chart"][data-ready="true"][data-loading="0"][data-points="10000"]')
        .waitFor({ timeout: 30_000 });
      // Interactive: the chart is drawn and the main thread takes the next task (a frame, then a timer).
      const ms = await page.evaluate(
        'new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)))',
      );
      drawn = Number(await page.locator('[data-testid="inference-chart"]').getAttribute('data-points'));
      if (i > 0) times.push(ms); // the first load warms the server and the browser's disk cache
      await page.close();
    }
    times.sort((a, b) => a - b);
    const assets = join(repo, 'dist/web/assets');
    const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
    const gzip = js.reduce((n, f) => n + gzipSync(readFileSync(join(assets, f)), { level: 9 }).length, 0);
    return {
      points: drawn,
      interactiveMedianMs: times[Math.floor(times.length / 2)],
      interactiveMaxMs: times.at(-1),
      bundleGzipBytes: gzip,
    };
  } finally {
    await browser.close();
    server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await dashboardPerf()));
