// The store and API figures of `npm run perf`, measured as a user meets them: `frontier ingest`
// processes loading run directories into a SQLite store, then `frontier serve` answering
// `/api/v1/benchmarks` for one model over HTTP.
//   ingest       wall time of `frontier ingest` of one 10,000-point run directory (target < 2 s)
//   benchmarks   p95 latency of /api/v1/benchmarks?model=M with 200,000 points stored (target < 50 ms)
// Usage: node perf/store.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.cjs`;

const MODELS = 10;
const HARDWARE = ['h100', 'h200', 'b200', 'mi300x', 'mi355x'];
const FRAMEWORKS = ['vllm', 'sglang', 'trt', 'dynamo-sglang'];
const PRECISIONS = ['fp8', 'fp4'];
const SEQUENCES = [
  [1024, 1024],
  [8192, 1024],
  [1024, 8192],
  [4096, 1024],
  [2048, 2048],
];
const CONCS = [4, 8, 16, 32, 64];
const PER_RUN = MODELS * HARDWARE.length * FRAMEWORKS.length * PRECISIONS.length * SEQUENCES.length * CONCS.length; // 10,000

/** One run's points: every config at every sequence and conc, with the aggregate's full key set. */
function runPoints(run) {
  const rows = [];
  let k = 0;
  for (let m = 0; m < MODELS; m++)
    for (const hw of HARDWARE)
      for (const framework of FRAMEWORKS)
        for (const precision of PRECISIONS)
          for (const [isl, osl] of SEQUENCES)
            for (const conc of CONCS) {
              const tpot = 0.005 + conc * 0.0004 + ((k++ * 7919 + run) % 100) / 1e5;
              const row = {
                hw,
                conc,
                image: `${framework}:v${run}`.replace(/:v\d+$/, ':v1'),
                model: `org/model-${m}`,
                infmax_model_prefix: `model${m}`,
                framework,
                precision,
                spec_decoding: 'none',
                disagg: false,
                isl,
                osl,
                is_multinode: false,
                tp: 8,
                pp: 1,
                dcp_size: 1,
                pcp_size: 1,
                ep: 1,
                dp_attention: 'false',
                tput_per_gpu: conc * 100 + run,
                output_tput_per_gpu: conc * 10 + run,
                input_tput_per_gpu: conc * 90,
              };
              for (const m of ['ttft', 'tpot', 'itl', 'e2el']) {
                for (const s of ['mean', 'median', 'std', 'p90', 'p99', 'p99.9']) {
                  row[`${s}_${m}`] = m === 'ttft' ? 0.1 + conc / 100 : m === 'e2el' ? tpot * osl : tpot;
                  if (m === 'tpot') row[`${s}_intvty`] = 1 / tpot;
                }
              }
              rows.push(row);
            }
  return rows;
}

function runDir(root, run) {
  const dir = join(root, `run-${run}`);
  mkdirSync(join(dir, 'results_bmk'), { recursive: true });
  writeFileSync(join(dir, 'results_bmk', 'agg_bmk.json'), JSON.stringify(runPoints(run)));
  return dir;
}

function ingest(db, dir, run) {
  const start = process.hrtime.bigint();
  const r = spawnSync(
    process.execPath,
    [
      cli,
      'ingest',
      dir,
      '--db',
      db,
      '--run-id',
      `perf-${run}`,
      '--official',
      '--date',
      `2026-${String(1 + Math.floor(run / 28)).padStart(2, '0')}-${String(1 + (run % 28)).padStart(2, '0')}`,
    ],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`frontier ingest failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function storePerf({ runs = 20, requests = 200 } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'frontier-store-perf-'));
  const db = join(root, 'frontier.db');
  const ingestMs = [];
  for (let run = 0; run < runs; run++) ingestMs.push(ingest(db, runDir(root, run), run));

  const server = await startServe(db);
  try {
    const { url } = server;
    const latencies = [];
    let rows = 0;
    for (let i = 0; i < requests + 10; i++) {
      const start = process.hrtime.bigint();
      const res = await fetch(`${url}/api/v1/benchmarks?model=model${i % MODELS}`);
      const body = await res.json();
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (res.status !== 200) throw new Error(`GET /api/v1/benchmarks: ${res.status}`);
      if (i >= 10) latencies.push(ms); // the first requests warm the server up
      rows = body.length;
    }
    latencies.sort((a, b) => a - b);
    const sortedIngest = [...ingestMs].sort((a, b) => a - b);
    return {
      points: runs * PER_RUN,
      pointsPerRun: PER_RUN,
      ingestMedianMs: sortedIngest[Math.floor(runs / 2)],
      ingestLastMs: ingestMs.at(-1),
      rowsPerResponse: rows,
      benchmarksP50Ms: latencies[Math.floor(latencies.length * 0.5)],
      benchmarksP95Ms: latencies[Math.floor(latencies.length * 0.95)],
    };
  } finally {
    server.stop();
    rmSync(root, { recursive: true, force: true }); // 20 run directories and a 220 MB store
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await storePerf()));
