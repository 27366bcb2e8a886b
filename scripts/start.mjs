// npm start: the main job on embedded defaults. The example catalog's full sweep (agentic rows on a
// small synthetic corpus), run by `frontier run` on the local-sim cluster profile
// (examples/clusters/local-sim.yaml): every GPU row on the simulated engine, the llama.cpp row on a
// real llama-server serving a tiny model. Then the run is ingested into runs/frontier.db
// ($FRONTIER_DB) and the dashboard serves it ($PORT, default 8080) until Ctrl-C.
//
// llama-server is built once from source (scripts/llama-server.mjs, a few minutes on 2 cores,
// cached per user). On a machine that has not built it yet, the build runs in the background at
// low priority while the simulated rows run: the llama.cpp row is deferred (`frontier run
// --defer`), the dashboard comes up with the simulated points and says the row is coming, and when
// the build is done the same run is resumed for that row and ingested again. Where it cannot be
// built (no cmake or g++), the row stays deferred and the run and the dashboard say why.
//
// Then (after the llama.cpp row, if it waited for its build) a few simulated rows (llama3.1-8b,
// 1024/64, conc 1–8) are measured again, three times each on fresh launches with the simulated
// engine's launch-to-launch spread (`--repeats 3 --run-variation 0.02`), into
// runs/<date>-<time>-repeats, and ingested as a later official run: the dashboard then draws
// those points with their 95% intervals, and the rest of the curve without (docs/verdicts.md).
//
// `npm start -- --filter FIELD=GLOB …` runs only the matching rows of the example catalog (as
// `frontier run --filter`), and then no repeated rows: a quicker look at one engine or model.
//
// Every path here is relative to the repository root, where npm runs scripts; `frontier -C
// examples` reads the example catalog, and the paths given to it stay the repository's.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { ensureLlamaServerAndModel, isBuilt, REPO } from './llama-server.mjs';

const FRONTIER = join(REPO, 'dist', 'frontier.cjs');
const LLAMA_SERVER_SCRIPT = join(REPO, 'scripts', 'llama-server.mjs');
const LLAMA_ROWS = 'framework=llama.cpp';
const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
const out = join('runs', stamp);
const db = process.env.FRONTIER_DB ?? join('runs', 'frontier.db');
// The agentic rows replay a small synthetic corpus for 30 simulated seconds each (a real point runs
// an hour), its pauses short enough (human pauses ~5 s, none over 15 s) that a one-lane point
// cannot sit out the whole window in one.
const corpus = join(out, 'traces', 'small.jsonl');
const BUILD_LOG = join('runs', 'llama-server-build.log');

/** `--filter FIELD=GLOB`, repeatable: the rows of the example catalog to run (all when none). */
function startFilters(argv) {
  const filters = [];
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] !== '--filter' || argv[i + 1] === undefined) {
      process.stderr.write(`npm start: unknown argument ${argv[i]}; usage: npm start [-- --filter FIELD=GLOB …]\n`);
      process.exit(2);
    }
    filters.push('--filter', argv[i + 1]);
  }
  return filters;
}
const FILTERS = startFilters(process.argv.slice(2));

/** Children to stop when npm start is stopped: each takes SIGTERM, then this waits for them. */
const children = new Set();
let stopping = false;

function frontier(args, options = {}) {
  const child = spawn(process.execPath, [FRONTIER, ...args], { stdio: 'inherit', ...options });
  children.add(child);
  const exited = once(child, 'exit').then(([code, signal]) => {
    children.delete(child);
    return code ?? (signal ? 128 : 1);
  });
  return { child, exited };
}

/** `frontier <args>` to its end; its exit status. */
const frontierStatus = (args, options) => frontier(args, options).exited;

/** Stop what is still running, wait for it, and exit. */
async function exit(status) {
  for (const child of children) child.kill('SIGTERM');
  while (children.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  process.exit(status);
}

async function must(status, what) {
  if (status === 0 || stopping) return;
  process.stderr.write(`npm start: ${what} failed (exit ${status})\n`);
  await exit(status);
}

const matrix = spawnSync(
  process.execPath,
  [FRONTIER, '-C', 'examples', 'matrix', 'full-sweep', '--config-files', 'examples/configs/example-master.yaml'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
);
await must(matrix.status ?? 1, 'frontier matrix');
const synth = ['traces', 'synth', '--scale', '0.05', '--traces', '24', '--human-gap', '5', '--max-gap', '15', '-o', corpus];
await must(await frontierStatus(synth, { stdio: ['ignore', 'ignore', 'inherit'] }), 'frontier traces synth');

/** One pass of the sweep over the same matrix and run directory: the first, or a --resume. */
async function sweep({ env, resume = false, defer }) {
  const args = ['-C', 'examples', 'run', '--matrix', '-', '--cluster', 'local-sim', '--out', out, ...FILTERS];
  args.push('--traces', corpus, '--agentic-duration', '30');
  if (resume) args.push('--resume');
  if (defer) args.push('--defer', LLAMA_ROWS, '--defer-reason', defer);
  const run = frontier(args, { env, stdio: ['pipe', 'inherit', 'inherit'] });
  run.child.stdin.end(matrix.stdout);
  return run.exited;
}

/** The run (as far as it got) into the demo store: one more official run, or the same one again after a resume. */
const ingest = (dir = out) => frontierStatus(['ingest', dir, '--official', '--db', db]);

/** The rows measured again, three times each, so that the dashboard has intervals to draw. */
const REPEATED_ROWS = ['model-prefix=llama3.1-8b', 'framework=sim', 'isl=1024', 'conc=?'];
const repeatsOut = `${out}-repeats`;

/** The repeated rows into their own run directory and the store; whether it worked. */
async function repeatSweep() {
  const args = ['-C', 'examples', 'run', '--matrix', '-', '--cluster', 'local-sim', '--out', repeatsOut];
  args.push('--repeats', '3', '--run-variation', '0.02', ...REPEATED_ROWS.flatMap((f) => ['--filter', f]));
  const run = frontier(args, { stdio: ['pipe', 'ignore', 'inherit'] });
  run.child.stdin.end(matrix.stdout);
  const status = await run.exited;
  if (stopping) return false;
  if (status !== 0) {
    process.stderr.write(`npm start: the repeated rows did not complete (exit ${status}); see ${repeatsOut}/run.json\n`);
    return false;
  }
  return (await ingest(repeatsOut)) === 0;
}

/** The environment that puts the built llama-server and its tiny model where the local-sim profile looks. */
const llamaEnv = ({ binary, model }) => ({
  ...process.env,
  PATH: `${dirname(binary)}:${process.env.PATH ?? ''}`,
  FRONTIER_TINY_MODEL: model,
});

/** The llama-server build in the background, at the lowest CPU priority, its output in a log. */
function buildInBackground() {
  mkdirSync(dirname(BUILD_LOG), { recursive: true });
  const logStream = createWriteStream(BUILD_LOG);
  const build = spawn('nice', ['-n', '19', process.execPath, LLAMA_SERVER_SCRIPT, 'build'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(build);
  let tail = '';
  build.stderr.on('data', (d) => (tail = (tail + d).slice(-2000)));
  build.stderr.pipe(logStream);
  return once(build, 'exit').then(async ([code, signal]) => {
    children.delete(build);
    const said = tail.trim().split('\n').at(-1);
    if (code !== 0) throw new Error(signal ? `stopped by ${signal}` : (said ?? `exit ${code}`));
    return ensureLlamaServerAndModel();
  });
}

function serveDashboard() {
  const port = process.env.PORT ?? '8080';
  const server = frontier(['serve', '--db', db, '--port', port], { stdio: ['ignore', 'pipe', 'inherit'] });
  server.child.stdout.on('data', (d) => {
    const m = / on (http:\/\/\S+) /.exec(String(d));
    process.stdout.write(m ? `\ndashboard: ${m[1]}/inference (Ctrl-C stops it)\n` : String(d));
  });
  return server.exited;
}

// Ctrl-C reaches the children too (same process group); SIGTERM is passed on. Either way this
// waits for them to end, so nothing is left running.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopping = true;
    if (signal === 'SIGTERM') for (const child of children) child.kill('SIGTERM');
  });

mkdirSync(dirname(db), { recursive: true });
let llama;
let later;
if (isBuilt()) {
  llama = llamaEnv(await ensureLlamaServerAndModel());
} else {
  process.stderr.write(
    `llama-server is not built on this machine yet: building it in the background (one time, 4–20 min on 2 cores; log: ${BUILD_LOG}).\n` +
      'The simulated rows run now; the llama.cpp row joins this run when llama-server is ready.\n',
  );
  later = buildInBackground();
  later.catch(() => {}); // handled below, once the dashboard is up
}

const first = await sweep(
  llama ? { env: llama } : { env: process.env, defer: 'llama-server is building (one time); this row runs when it is ready' },
);
if (stopping) await exit(first);
await must(await ingest(), 'frontier ingest');
const served = serveDashboard();
// A dashboard that cannot start (its port is taken) ends npm start now, not after the build.
void served.then((status) => !stopping && exit(status));

if (later) {
  const built = await later.catch((error) => error);
  if (!stopping) {
    let resumed;
    if (built instanceof Error) {
      const reason = `llama-server could not be built: ${built.message.split('\n')[0]} (see ${BUILD_LOG})`;
      process.stderr.write(`\n${reason}\n`);
      resumed = await sweep({ env: process.env, resume: true, defer: reason });
    } else {
      process.stderr.write('\nllama-server is built: running the llama.cpp row of this run\n');
      resumed = await sweep({ env: llamaEnv(built), resume: true });
    }
    if (!stopping) await must(await ingest(), 'frontier ingest');
    if (!stopping && resumed === 0 && !(built instanceof Error))
      process.stdout.write('\nthe llama.cpp points are in: reload the dashboard\n');
  }
}

// After the llama-server build, not beside it: a build hogging the cores would be measured as noise.
if (!stopping && FILTERS.length === 0) {
  process.stderr.write(
    '\nmeasuring llama3.1-8b 1024/64 at conc 1–8 three more times (fresh launches) for the dashboard’s error bars\n',
  );
  if (await repeatSweep()) process.stdout.write('\nthe repeated points are in: reload the dashboard for their error bars\n');
}

const serverStatus = await served;
await exit(first !== 0 ? first : serverStatus === 0 || stopping ? 0 : serverStatus);
