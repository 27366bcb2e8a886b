// npm start [-- RUN_DIR]: the main job on embedded defaults. The example catalog's full sweep, run by `frontier run` on the
// local-sim cluster profile (examples/clusters/local-sim.yaml): every GPU row on the simulated engine, the llama.cpp
// row on a real llama-server serving a tiny model. Prints where the run directory is and its summary table.
//
// llama-server is built once from source (scripts/llama-server.mjs, ~8 min on 2 cores, cached in .cache/); where it
// cannot be built (no cmake/g++), the llama.cpp row is left out with the reason and the rest runs.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
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
const out = process.argv[2] ? resolve(process.argv[2]) : join(REPO, 'runs', stamp);
const child = spawn(process.execPath, frontier(['run', '--matrix', '-', '--cluster', 'local-sim', '--out', out]), {
  env,
  stdio: ['pipe', 'inherit', 'inherit'],
});
child.stdin.end(JSON.stringify(rows));
// Ctrl-C reaches the run too (same process group): it stops its engines and exits; wait for it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
