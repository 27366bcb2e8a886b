// Performance figures (npm run perf). Prints; asserts nothing: timings belong here, not in tests.
//
// Start-up: `frontier --version`, which loads no command (target < 150 ms), and `matrix
// full-sweep` over both InferenceX master configs (208 keys, 1,820 rows + evals), as a user runs
// it, mostly start-up. Beside it, the two alternating run by run so that both see the same
// machine, the reference Python generator on the same files: InferenceX's
// utils/matrix_logic/generate_sweep_configs.py in the checkout $FRONTIER_REFERENCE_INFERENCEX
// names (python3 with pydantic and PyYAML; the fixtures' goldens say which commit). Targets:
// < 300 ms, and at most 0.2× the reference's time (~0.88 s on the 2-core CI machine).
import { spawnSync } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { baselineBuild } from './baseline.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
// The reference fixtures: $FRONTIER_REFERENCE_FIXTURES when set (as the tests read them), else the bundled copy.
const fixtures = process.env.FRONTIER_REFERENCE_FIXTURES || `${repo}test/fixtures/inferencex`;
const cli = `${repo}dist/frontier.cjs`;
const runs = Number(process.env.PERF_RUNS ?? 11);

/** Wall time of one run of `command` (argv); `status` is the exit status it is expected to end with. */
function time(command, cwd, status = 0) {
  const devNull = openSync('/dev/null', 'w');
  const start = process.hrtime.bigint();
  const result = spawnSync(command[0], command.slice(1), { cwd, stdio: ['ignore', devNull, 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== status) throw new Error(`${command.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const frontier = (args) => [process.execPath, cli, ...args];
const baseline = baselineBuild(repo);

/**
 * `report` for this build and the baseline build, alternating run by run so that both see the
 * same machine, with the ratio (below 1: this build is faster).
 */
function sideBySide(name, args, cwd, target, count = runs) {
  if (!baseline) return report(name, args, cwd, target, 0, count);
  const builds = [cli, baseline.cli].map((c) => (a) => [process.execPath, c, ...a]);
  for (const b of builds) time(b(args), cwd); // warm the OS file cache
  const samples = [[], []];
  for (let i = 0; i < count; i++) builds.forEach((b, k) => samples[k].push(time(b(args), cwd)));
  const ours = summary(name, samples[0], target);
  const before = summary(`  the build before (${baseline.label})`, samples[1]);
  console.log(`${'  this build / the build before'.padEnd(40)} ${(ours / before).toFixed(2).padStart(11)}×`);
}

/** Prints the median, min and max of `samples` (ms), and whether the median met `target`; returns the median. */
function summary(name, samples, target) {
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  const verdict = target ? (median < target ? `  (target < ${target} ms: met)` : `  (target < ${target} ms: MISSED)`) : '';
  console.log(
    `${name.padEnd(40)} median ${median.toFixed(0).padStart(4)} ms  min ${samples[0].toFixed(0)}  max ${samples.at(-1).toFixed(0)}  (${samples.length} runs)${verdict}`,
  );
  return median;
}

function report(name, args, cwd, target, status = 0, count = runs) {
  time(frontier(args), cwd, status); // warm the OS file cache
  summary(
    name,
    Array.from({ length: count }, () => time(frontier(args), cwd, status)),
    target,
  );
}

console.log(`node ${process.version}, fixtures: ${fixtures}`);
report('frontier --version (start-up)', ['--version'], repo, 150);
{
  const sweep = ['full-sweep', '--config-files', 'configs/nvidia-master.yaml', 'configs/amd-master.yaml'];
  const checkout = process.env.FRONTIER_REFERENCE_INFERENCEX;
  const commands = [frontier(['matrix', ...sweep])];
  if (checkout) commands.push(['python3', `${checkout}/utils/matrix_logic/generate_sweep_configs.py`, ...sweep]);
  for (const command of commands) time(command, fixtures); // warm the OS file cache
  const samples = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach((command, c) => samples[c].push(time(command, fixtures)));
  const ours = summary('matrix full-sweep (both masters)', samples[0], 300);
  if (checkout) {
    const reference = summary('  the reference generator (Python)', samples[1]);
    const ratio = ours / reference;
    console.log(
      `${'  matrix full-sweep / the reference'.padEnd(40)} ${ratio.toFixed(2).padStart(11)}×       (target ≤ 0.2×: ${ratio <= 0.2 ? 'met' : 'MISSED'})`,
    );
  } else {
    console.log('  (no reference: FRONTIER_REFERENCE_INFERENCEX names an InferenceX checkout to time it beside)');
  }
}
report('validate (InferenceX checkout)', ['validate'], fixtures);

/**
 * The InferenceX tree (configs, perf-changelog.yaml, recipes under
 * benchmarks/multi_node/srt-slurm-recipes) in `dir`, from the reference fixtures.
 */
async function writeTree(dir) {
  const { cpSync, mkdirSync: mkdir, readFileSync: read, writeFileSync: write } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { gunzipSync } = await import('node:zlib');
  const recipes = `${dir}/benchmarks/multi_node/srt-slurm-recipes`;
  cpSync(`${fixtures}/configs`, `${dir}/configs`, { recursive: true });
  // The launch material the launcher, power and pairing rules read (launchers, scripts, the library).
  for (const sub of ['runners', 'benchmarks'])
    cpSync(`${repo}test/fixtures/inferencex/tree/${sub}`, `${dir}/${sub}`, { recursive: true });
  if (existsSync(`${fixtures}/srt-slurm-recipes`)) {
    cpSync(`${fixtures}/perf-changelog.yaml`, `${dir}/perf-changelog.yaml`);
    cpSync(`${fixtures}/srt-slurm-recipes`, recipes, { recursive: true });
    return;
  }
  const corpus = JSON.parse(gunzipSync(read(`${repo}test/fixtures/inferencex/yaml-corpus.json.gz`)).toString('utf8'));
  for (const [path, text] of Object.entries(corpus)) {
    const target = path.startsWith('srt-slurm-recipes/') ? `${dir}/benchmarks/multi_node/${path}` : `${dir}/${path}`;
    mkdir(dirname(target), { recursive: true });
    write(target, text);
  }
}

// The changelog gate on the real 6,380-line changelog against a one-entry append: every rule,
// including the sweep of the added entry and pairing over both master configs. Target: < 1 s.
//
// The review of a change against the full tree (208 keys, 469 recipes, both revisions loaded,
// every rule, the change's sweep): a config key and its recipe edited together, with an entry.
// Target: < 2 s.
{
  const { mkdtempSync, appendFileSync, readFileSync: read, writeFileSync: write } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const work = mkdtempSync(`${tmpdir()}/frontier-perf-review-`);
  await writeTree(`${work}/base`);
  await writeTree(`${work}/head`);
  appendFileSync(
    `${work}/head/perf-changelog.yaml`,
    '\n- config-keys:\n    - dsv4-fp4-b200-dynamo-sglang-mtp\n  description:\n    - "Add concurrency 2 to the low-latency point"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/9999\n',
  );
  const edit = (path, key, from, to) => {
    const text = read(path, 'utf8');
    const at = text.indexOf(from, text.indexOf(key));
    write(path, text.slice(0, at) + to + text.slice(at + from.length));
  };
  edit(`${work}/head/configs/nvidia-master.yaml`, 'dsv4-fp4-b200-dynamo-sglang-mtp:', 'conc-list: [1]', 'conc-list: [1, 2]');
  edit(
    `${work}/head/benchmarks/multi_node/srt-slurm-recipes/sglang/deepseek-v4/8k1k/disagg-b200-low-latency-1p1d-tp8-tp8-mtp.yaml`,
    '',
    'concurrencies: "1"',
    'concurrencies: "1x2"',
  );
  const lines = read(`${work}/base/perf-changelog.yaml`, 'utf8').split('\n').length - 1;
  const sides = ['--base-dir', `${work}/base`, '--head-dir', `${work}/head`];
  sideBySide(`changelog check (${lines} lines, +1 entry)`, ['changelog', 'check', ...sides], repo, 1000);
  report('changelog matrix (same change)', ['changelog', 'matrix', ...sides], repo);
  sideBySide('review (full tree, key + recipe + entry)', ['review', ...sides, '--pr', '9999'], repo, 2000, 5);
  report('lint (full tree, every tree rule)', ['lint', `${work}/base`], repo, undefined, 1);

  // review --each over 20 commits of a git history on the full tree, each a pull request that
  // changes a config's image and appends its entry. Target: < 40 s.
  const { execFileSync } = await import('node:child_process');
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=perf', '-c', 'user.email=perf@example.com', ...args], { cwd: `${work}/base` });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'the fixture tree');
  const master = `${work}/base/configs/nvidia-master.yaml`;
  const image = 'image: lmsysorg/sglang:nightly-dev-cu13-20260628-da802ddc';
  for (let i = 1; i <= 20; i++) {
    const text = read(master, 'utf8');
    write(master, text.replace(i === 1 ? image : `${image}-step${i - 1}`, `${image}-step${i}`));
    appendFileSync(
      `${work}/base/perf-changelog.yaml`,
      `\n- config-keys:\n    - dsv4-fp4-b200-sglang\n  description:\n    - "step ${i}"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/${9000 + i}\n`,
    );
    git('commit', '-q', '-am', `step ${i} (#${9000 + i})`);
  }
  for (const build of [{ label: 'this build', cli }, ...(baseline ? [baseline] : [])]) {
    const start = process.hrtime.bigint();
    const each = spawnSync(process.execPath, [build.cli, 'review', '--repo', `${work}/base`, '--last', '20'], {
      encoding: 'utf8',
    });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (each.status !== 0) throw new Error(`review --each failed: ${each.stdout}${each.stderr}`);
    console.log(
      `${`review --last 20 (${build.label})`.padEnd(40)} ${(ms / 1000).toFixed(1).padStart(6)} s   (${(ms / 20000).toFixed(2)} s per commit)  (target < 40 s: ${ms < 40000 ? 'met' : 'MISSED'})`,
    );
  }
}

// Scaling: the catalog repeated k times under new key names. Time per config key should stay
// flat as the catalog grows (loading is linear, not quadratic, in the number of keys).
const { mkdtempSync, readFileSync, writeFileSync, mkdirSync, copyFileSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const masters = ['configs/nvidia-master.yaml', 'configs/amd-master.yaml'].map((f) => readFileSync(`${fixtures}/${f}`, 'utf8'));
for (const copies of [1, 4, 16]) {
  const dir = mkdtempSync(`${tmpdir()}/frontier-perf-`);
  mkdirSync(`${dir}/configs`);
  copyFileSync(`${fixtures}/configs/runners.yaml`, `${dir}/configs/runners.yaml`);
  const text = Array.from({ length: copies }, (_, i) =>
    masters.map((m) => m.replace(/^([^\s#][^:\n]*):/gm, `$1-copy${i}:`)).join('\n'),
  ).join('\n');
  writeFileSync(`${dir}/configs/scaled-master.yaml`, text);
  const keys = 208 * copies;
  const devNull = openSync('/dev/null', 'w');
  const samples = [];
  for (let r = 0; r < 5; r++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [cli, 'matrix', 'full-sweep', '--config-files', 'configs/scaled-master.yaml'], {
      cwd: dir,
      stdio: ['ignore', devNull, 'pipe'],
    });
    if (result.status !== 0) throw new Error(`scaled sweep failed: ${result.stderr}`);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const median = samples.sort((a, b) => a - b)[2];
  console.log(
    `${`matrix full-sweep, ${keys} keys`.padEnd(40)} median ${median.toFixed(0).padStart(4)} ms  (${(median / keys).toFixed(2)} ms per key)`,
  );
  rmSync(dir, { recursive: true, force: true });
}

// GSM8K scoring: both filters (strict-match, flexible-extract) and exact_match, as lm-eval does
// them, for the 1,319 test problems; each response is the problem's question and reference
// solution (~530 characters). In process, the generic task scoring (src/evals/scoring.ts, with
// InferenceX's gsm8k.yaml read by src/evals/task-file.ts) bundled here. Target: < 200 ms.
{
  const { build } = await import('esbuild');
  const { mkdtempSync, readFileSync: read, rmSync: remove } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { pathToFileURL } = await import('node:url');
  const { gunzipSync } = await import('node:zlib');
  const work = mkdtempSync(`${tmpdir()}/frontier-perf-score-`);
  await build({
    entryPoints: [`${repo}src/evals/index.ts`],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: `${work}/score.cjs`,
    logLevel: 'warning',
    define: { 'import.meta.url': '__moduleUrl' },
    banner: { js: "const __moduleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  const { readTaskFile, scoreDoc } = (await import(pathToFileURL(`${work}/score.cjs`).href)).default;
  const task = readTaskFile(`${repo}src/evals/tasks/gsm8k.yaml`);
  remove(work, { recursive: true, force: true });
  const text = gunzipSync(read(`${repo}test/fixtures/gsm8k/test.jsonl.gz`)).toString('utf8');
  const docs = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .map((d) => ({ response: `${d.question}\n${d.answer}`, answer: d.answer }));
  const scoreAll = () => {
    let correct = 0;
    for (const d of docs) correct += scoreDoc(task, [d.response], d.answer).scores['exact_match,strict-match'];
    return correct;
  };
  scoreAll(); // warm up (JIT)
  const samples = [];
  let correct = 0;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    correct = scoreAll();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  console.log(
    `${`scoring ${docs.length.toLocaleString('en-US')} GSM8K responses`.padEnd(40)} median ${median.toFixed(1).padStart(4)} ms  min ${samples[0].toFixed(1)}  max ${samples.at(-1).toFixed(1)}  (${runs} runs, ${correct} strict-correct)  (target < 200 ms: ${median < 200 ? 'met' : 'MISSED'})`,
  );
}

// The simulator's server under load: 2,048 concurrent closed-loop streams against
// `frontier sim serve --speed 1000` (8 workers of 512 sequences, so all 2,048 run at once), the
// client in its own process. Targets: ≥ 2,048 concurrent streams, ≥ 200,000 streamed tokens/s.
{
  const { startSim } = await import('./bench-client.mjs');
  const server = await startSim(['--speed', '1000', '--workers', '8', '--max-num-seqs', '512']);
  const client = spawnSync(process.execPath, [`${repo}perf/sim-client.mjs`, server.url, '2048', '10', '256'], {
    encoding: 'utf8',
  });
  await server.stop();
  if (client.status !== 0) throw new Error(`sim client failed: ${client.stderr}`);
  const r = JSON.parse(client.stdout);
  const met = (ok) => (ok ? 'met' : 'MISSED');
  console.log(
    `${'sim serve: concurrent streams'.padEnd(40)} ${String(r.peakConcurrent).padStart(11)}        (target ≥ 2048: ${met(r.peakConcurrent >= 2048)}; ${r.failed} failed)`,
  );
  console.log(
    `${'sim serve: streamed tokens/s'.padEnd(40)} ${r.tokensPerS.toFixed(0).padStart(11)}        (target ≥ 200000: ${met(r.tokensPerS >= 200000)})`,
  );
}

// The load generator (`frontier bench`) against `frontier sim serve`, each in its own process
// (perf/bench-client.mjs). Targets: per-request TTFT and ITL within 0.5 ms (median absolute
// error) of the sim's ground truth at concurrency 256; under 20 ms added to median TTFT and 2 ms
// to p99 ITL at concurrency 1,024 against one token per 20 ms per stream; at least 600,000
// streamed tokens/s (3× the reference client's ~200,000) at concurrency 1,024 and 4,096.
{
  const { accuracy, added, canPin, throughput, tcpFloor } = await import('./bench-client.mjs');
  const row = (name, value, note) => console.log(`${name.padEnd(40)} ${value.padStart(11)}        ${note}`);
  const floor = await tcpFloor(256);
  row(
    'floor: bare TCP write→read, 256 sockets',
    `${floor.medianWriteToReadMs.toFixed(2)} ms`,
    '(median, stamped per read; what one event loop per side costs at 256 streams, before any HTTP)',
  );
  row(
    'floor: the same, stamped per poll phase',
    `${floor.medianWriteToPollMs.toFixed(2)} ms`,
    '(median; how frontier bench stamps reads)',
  );
  // The target holds for the client on a CPU of its own (pinned); sharing every core with the
  // sim shows what the scheduler adds on a small machine.
  for (const pinned of canPin ? [true, false] : [false]) {
    const a = await accuracy(256, { pinned });
    const how = pinned ? 'own CPUs' : 'shared CPUs';
    const target = (x) => (pinned ? `target ≤ 0.5 ms: ${x <= 0.5 ? 'met' : 'MISSED'}` : 'for comparison');
    row(
      `bench: TTFT error, conc 256, ${how}`,
      `${a.ttftMedianAbsErrorMs.toFixed(2)} ms`,
      `(median abs; ${target(a.ttftMedianAbsErrorMs)})`,
    );
    row(
      `bench: ITL error, conc 256, ${how}`,
      `${a.itlMedianAbsErrorMs.toFixed(2)} ms`,
      `(median abs; ${target(a.itlMedianAbsErrorMs)})`,
    );
  }
  // A p99 over one run moves with whatever else the 2 cores did: the median of three runs.
  const runs = [await added(1024), await added(1024), await added(1024)];
  const middle = (key) => runs.map((r) => r[key]).sort((x, y) => x - y)[1];
  const spread = (key) => `runs ${runs.map((r) => r[key].toFixed(1)).join(', ')}`;
  const ttft = middle('medianTtftAddedMs');
  const itl = middle('p99ItlAddedMs');
  row(
    'bench: added median TTFT, conc 1024',
    `${ttft.toFixed(1)} ms`,
    `(20 ms/token server, median of 3 ${spread('medianTtftAddedMs')}; target < 20 ms: ${ttft < 20 ? 'met' : 'MISSED'})`,
  );
  row(
    'bench: added p99 ITL, conc 1024',
    `${itl.toFixed(1)} ms`,
    `(median of 3 ${spread('p99ItlAddedMs')}; target < 2 ms: ${itl < 2 ? 'met' : 'MISSED'})`,
  );
  for (const c of [1024, 4096]) {
    const t = await throughput(c);
    row(
      `bench: streamed tokens/s, conc ${c}`,
      t.outputTokensPerS.toFixed(0),
      `(client at ${(t.clientCpu * 100).toFixed(0)}% of a core; target ≥ 600000: ${t.outputTokensPerS >= 600000 ? 'met' : 'MISSED'})`,
    );
  }
}

// What the eval client adds to a full GSM8K run against the sim at concurrency 64 (perf/eval-client.mjs).
{
  const { evalClientOverhead } = await import('./eval-client.mjs');
  const { measured, ideal, requests } = await evalClientOverhead();
  const added = (measured / ideal - 1) * 100;
  console.log(
    `${'eval gsm8k: client time over the sim’s, conc 64'.padEnd(40)} ${added.toFixed(1)}%  (${requests} requests: ${(measured / 1000).toFixed(2)} s measured, ${(ideal / 1000).toFixed(2)} s in the server; target < 5%: ${added < 5 ? 'met' : 'MISSED'})`,
  );
}

// The store and API (perf/store.mjs): `frontier ingest` of 10,000-point runs into SQLite until
// 200,000 points are stored, then `/api/v1/benchmarks` for one model over HTTP from `frontier serve`.
// Targets: ingest of 10,000 rows < 2 s; p95 of the benchmarks request < 50 ms.
{
  const { storePerf } = await import('./store.mjs');
  const s = await storePerf();
  console.log(
    `${'ingest: 10,000 points (frontier ingest)'.padEnd(40)} ${s.ingestMedianMs.toFixed(0).padStart(4)} ms  (median of ${s.points / s.pointsPerRun} runs, the last into a store of ${s.points - s.pointsPerRun} points: ${s.ingestLastMs.toFixed(0)} ms; target < 2000 ms: ${s.ingestMedianMs < 2000 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `${'api: /api/v1/benchmarks?model=, p95'.padEnd(40)} ${s.benchmarksP95Ms.toFixed(1).padStart(4)} ms  (${s.points} points stored, ${s.rowsPerResponse} in each answer; p50 ${s.benchmarksP50Ms.toFixed(1)} ms; target < 50 ms: ${s.benchmarksP95Ms < 50 ? 'met' : 'MISSED'})`,
  );
}

// The store's dump and restore (perf/store-dump.mjs): `frontier store dump` and `restore` of a
// 200,000-point store, on SQLite and (when installed) PostgreSQL. Budgets: dump < 30 s, restore < 60 s.
{
  const { printStoreDump, storeDumpPerf } = await import('./store-dump.mjs');
  printStoreDump(await storeDumpPerf());
}

// The dashboard (perf/dashboard.mjs): the inference page with 10,000 points in view, in headless
// Chromium, from navigation to drawn and answering input; and the size of its JS. Targets: < 1.5 s; < 1 MB gzip.
{
  const { dashboardPerf } = await import('./dashboard.mjs');
  const d = await dashboardPerf();
  console.log(
    `${'dashboard: 10,000 points, interactive'.padEnd(40)} ${d.interactiveMedianMs.toFixed(0).padStart(4)} ms  (median of 5 loads, max ${d.interactiveMaxMs.toFixed(0)} ms; ${d.points} points drawn; target < 1500 ms: ${d.interactiveMedianMs < 1500 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `${'dashboard: JS bundle, gzip'.padEnd(40)} ${(d.bundleGzipBytes / 1024).toFixed(0).padStart(4)} KiB  (target < 1024 KiB: ${d.bundleGzipBytes < 1024 * 1024 ? 'met' : 'MISSED'})`,
  );
}

// The agentic trace replay's own overhead (perf/agentic-replay.mjs): `frontier bench --trace` at 256
// lanes against the sim, client-observed TTFT and ITL next to the sim's ground truth.
{
  const r = spawnSync(process.execPath, [`${repo}perf/agentic-replay.mjs`, '256', '15'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`perf/agentic-replay.mjs exited ${r.status}`);
}

// The simulator's accuracy against the shipped calibration set (25 published InferenceX points):
// `frontier sim accuracy --cross-validate`, as a user runs it. Targets (docs/simulator.md): median
// error ≤ 10% on throughput per GPU and ≤ 20% on TTFT, no slice worse than 25%, and fitted on half
// the points the other half within 15% median.
{
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, 'sim', 'accuracy', '--cross-validate'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`frontier sim accuracy exited ${r.status}: ${r.stderr}`);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const lines = r.stdout.split('\n');
  const overall = lines.filter((l) => /^\s+all\s/.test(l));
  console.log(
    `${'sim accuracy (calibration set)'.padEnd(40)} ${overall[0]?.trim()}  (tput/GPU, intvty, TTFT; ${seconds.toFixed(0)} s)`,
  );
  if (overall[1]) console.log(`${'sim accuracy (cross-validated)'.padEnd(40)} ${overall[1].trim()}`);
  for (const l of lines.slice(lines.indexOf('targets:') + 1)) if (l.trim()) console.log(`${''.padEnd(40)} ${l.trim()}`);
}

// `npm start` on a fresh clone (perf/first-start.mjs): until the dashboard has every simulated
// row's points (target < 3 min), until the llama.cpp points are in (llama-server built in the
// background), and a second start with the build cached. About ten minutes; PERF_FIRST_START=0 skips it.
if (process.env.PERF_FIRST_START !== '0') {
  const { firstStartPerf } = await import('./first-start.mjs');
  await firstStartPerf();
}
