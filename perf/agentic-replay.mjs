// The agentic trace replay's own overhead (npm run perf prints it; asserts nothing): `frontier
// bench --trace` at 256 lanes against `frontier sim serve`, each profiled request's client-observed
// TTFT and mean ITL next to the sim's ground truth for the same response (when it read the
// request, when it wrote each token). The difference is what the replay client adds.
// Usage: [THINK=s] node perf/agentic-replay.mjs [lanes] [seconds]   (build first: npm run build)
// THINK: the recorded think time between turns (default 0.5 s; 0 keeps every connection busy).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { canPin, startSim } from './bench-client.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.cjs`;
const lanes = Number(process.argv[2] ?? 256);
const seconds = Number(process.argv[3] ?? 20);
// Sim and client on CPUs of their own where the machine allows (as bench-client.mjs does).
const cpus = canPin ? [0, availableParallelism() - 1] : [];

/**
 * A synthetic Weka corpus: contexts of 16-token blocks growing a block every other turn, short think
 * times, a subagent now and then. Contexts stay short: the sim tokenizes every prompt on its event
 * loop (tens of ms for long ones), which would delay its reads and writes and land in the figure.
 */
function corpus(traces, turns) {
  const lines = [];
  for (let i = 0; i < traces; i++) {
    const requests = [];
    let blocks = 2 + (i % 8);
    let t = 0;
    for (let k = 0; k < turns; k++) {
      blocks += k % 2;
      const hashIds = Array.from({ length: blocks }, (_, j) => j);
      requests.push({
        type: 'n',
        t,
        in: blocks * 16,
        out: 24 + (k % 5) * 8,
        hash_ids: hashIds,
        ...(k > 0 ? { think_time: 2 } : {}),
      });
      t += 4;
      if (k % 10 === 5)
        requests.push({
          type: 'subagent',
          t,
          agent_id: `sa${k}`,
          subagent_type: 'Explore',
          duration_ms: 3000,
          requests: [{ type: 'n', t, in: 160, out: 32, hash_ids: Array.from({ length: 10 }, (_, j) => 1000 + j) }],
        });
    }
    lines.push(JSON.stringify({ id: `perf-${i}`, block_size: 16, hash_id_scope: 'local', requests }));
  }
  return `${lines.join('\n')}\n`;
}

const sorted = (xs) => Float64Array.from(xs).sort();
const q = (xs, p) => {
  const s = sorted(xs);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

const dir = mkdtempSync(`${tmpdir()}/frontier-replay-perf-`);
writeFileSync(`${dir}/traces.jsonl`, corpus(Math.max(lanes * 2, 64), 40));
// A tiny model whose every step takes 20 ms, in real time: one token per 20 ms per stream, prefill
// of a whole batch in a step, so the sim is not what is measured.
const sim = await startSim(
  [
    '--model',
    'qwen3-0.6b',
    '--max-num-seqs',
    String(lanes * 2),
    '--max-num-batched-tokens',
    String(lanes * 4096),
    '--efficiency',
    'stepOverheadMs=20',
    '--efficiency',
    'layerOverheadUs=0',
    '--ground-truth',
    `${dir}/truth.jsonl`,
  ],
  cpus[1],
);
const started = process.hrtime.bigint();
const client = [
  cli,
  'bench',
  '--trace',
  `${dir}/traces.jsonl`,
  '--url',
  sim.url,
  '--concurrency',
  String(lanes),
  '--benchmark-duration',
  String(seconds),
  '--warmup-requests-per-lane',
  '1',
  '--no-server-metrics',
  '--output-artifact-dir',
  `${dir}/aiperf_artifacts`,
];
const bench = spawnSync(
  cpus.length ? 'taskset' : process.execPath,
  cpus.length ? ['-c', String(cpus[0]), process.execPath, ...client] : client,
  { encoding: 'utf8', maxBuffer: 64 << 20 },
);
const wallS = Number(process.hrtime.bigint() - started) / 1e9;
await sim.stop();
if (bench.status !== 0) throw new Error(`frontier bench --trace failed:\n${bench.stdout}${bench.stderr}`);
process.stdout.write(bench.stdout);

const truth = new Map(
  readFileSync(`${dir}/truth.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((t) => [t.id, t]),
);
const ttftAdded = [];
const itlAdded = [];
let profiled = 0;
for (const line of readFileSync(`${dir}/aiperf_artifacts/profile_export.jsonl`, 'utf8').trim().split('\n')) {
  const r = JSON.parse(line);
  if (r.error || r.metadata.benchmark_phase !== 'profiling') continue;
  profiled++;
  const t = truth.get(r.metadata.response_id);
  if (!t || t.token_times.length === 0) continue;
  ttftAdded.push(r.metrics.time_to_first_token.value - (t.token_times[0] - t.arrival));
  const n = t.token_times.length;
  if (n > 1 && r.metrics.inter_token_latency)
    itlAdded.push(r.metrics.inter_token_latency.value - (t.token_times[n - 1] - t.token_times[0]) / (n - 1));
}
const f = (x) => `${x.toFixed(2)} ms`;
console.log(
  `\nagentic replay overhead: ${lanes} lanes, ${seconds} s profiled (${wallS.toFixed(0)} s wall), ${profiled} profiled requests, ${ttftAdded.length} matched`,
);
console.log(`  TTFT added by the client: median ${f(q(ttftAdded, 50))}, p99 ${f(q(ttftAdded, 99))}`);
console.log(`  mean ITL added by the client: median ${f(q(itlAdded, 50))}, p99 ${f(q(itlAdded, 99))}`);
