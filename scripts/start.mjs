// npm start [-- RUN_DIR]: the main job on embedded defaults. The example catalog's full sweep (agentic rows on a small synthetic corpus), run by `frontier run` on the
// local-sim cluster profile (examples/clusters/local-sim.yaml): every GPU row on the simulated engine, the llama.cpp
// row on a real llama-server serving a tiny model. Prints where the run directory is and its summary table, then
// ingests the run into runs/frontier.db ($FRONTIER_DB) and serves the dashboard over it ($PORT, default 8080)
// until Ctrl-C.
//
// llama-server is built once from source (scripts/llama-server.mjs, ~8 min on 2 cores, cached in .cache/); where it
// cannot be built (no cmake/g++), the llama.cpp row is left out with the reason and the rest runs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ensureLlamaServerAndModel, REPO } from './llama-server.mjs';

const FRONTIER = join(REPO, 'dist', 'frontier.mjs');
const frontier = (args) => [FRONTIER, '-C', join(REPO, 'examples'), ...args];

const matrix = spawnSync(process.execPath, frontier(['matrix', 'full-sweep', '--config-files', 'configs/example-master.yaml']), {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
  maxBuffer: 64 * 1024 * 1024,
});
if (matrix.status !== 0) process.exit(matrix.status ?? 1);
let rows = JSON.parse(matrix.stdout);

const env = { ...process.env };
try {
  const { binary, model } = await ensureLlamaServerAndModel();
  env.PATH = `${dirname(binary)}:${env.PATH ?? ''}`;
  env.FRONTIER_TINY_MODEL = model;
} catch (e) {
  const skipped = rows.filter((r) => r.framework === 'llama.cpp').length;
  rows = rows.filter((r) => r.framework !== 'llama.cpp');
  process.stderr.write(`llama-server is not available (${e.message}): leaving out the ${skipped} llama.cpp rows\n`);
}

const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
// Paths as the user would type them from where they started (runs/<date>-<time> from the repository).
const here = (path) => relative(process.cwd(), path) || '.';
const out = process.argv[2] ? resolve(process.argv[2]) : here(join(REPO, 'runs', stamp));
// The agentic rows replay a small synthetic corpus for 30 simulated seconds each (a real point
// runs an hour), its pauses short enough (human pauses ~5 s, none over 15 s) that a one-lane point
// cannot sit out the whole window in one.
const corpus = join(out, 'traces', 'small.jsonl');
const synthArgs = ['traces', 'synth', '--scale', '0.05', '--traces', '24', '--human-gap', '5', '--max-gap', '15', '-o', corpus];
const synth = spawnSync(process.execPath, [FRONTIER, ...synthArgs], { stdio: ['ignore', 'ignore', 'inherit'] });
if (synth.status !== 0) process.exit(synth.status ?? 1);
const agentic = ['--traces', corpus, '--agentic-duration', '30'];
const child = spawn(process.execPath, frontier(['run', '--matrix', '-', '--cluster', 'local-sim', '--out', out, ...agentic]), {
  env,
  stdio: ['pipe', 'inherit', 'inherit'],
});
child.stdin.end(JSON.stringify(rows));
// Ctrl-C reaches the run too (same process group): it stops its engines and exits; wait for it.
let interrupted = false;
process.on('SIGINT', () => (interrupted = true));
process.on('SIGTERM', () => {
  interrupted = true;
  child.kill('SIGTERM');
});
child.on('exit', (code, signal) => {
  if (interrupted || signal) process.exit(code ?? 130);
  serveDashboard(code ?? 1);
});

/**
 * The run's results into the demo store (runs/frontier.db, one more official run each time), then
 * the dashboard over it until Ctrl-C.
 */
function serveDashboard(runStatus) {
  const db = process.env.FRONTIER_DB ?? here(join(REPO, 'runs', 'frontier.db'));
  mkdirSync(dirname(resolve(db)), { recursive: true });
  const ingest = spawnSync(process.execPath, [FRONTIER, 'ingest', out, '--official', '--db', db], { stdio: 'inherit' });
  if (ingest.status !== 0) process.exit(ingest.status ?? 1);
  const port = process.env.PORT ?? '8080';
  const server = spawn(process.execPath, [FRONTIER, 'serve', '--db', db, '--port', port], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  server.stdout.on('data', (d) => {
    const m = / on (http:\/\/\S+) /.exec(String(d));
    process.stdout.write(m ? `\ndashboard: ${m[1]}/inference (Ctrl-C stops it)\n` : String(d));
  });
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.kill('SIGTERM'));
  server.on('exit', (code) => process.exit(runStatus !== 0 ? runStatus : code === 0 || code === null ? 0 : code));
}
