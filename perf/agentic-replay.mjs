// The agentic trace replay's own overhead (npm run perf prints it; asserts nothing): `frontier
// bench --trace` at 256 lanes against `frontier sim serve`, each profiled request's client-observed
// TTFT and mean ITL next to the sim's ground truth for the same response (when it read the
// request, when it wrote each token). The difference is what the replay client adds.
// Usage: node perf/agentic-replay.mjs [lanes] [seconds]   (build first: npm run build)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSim } from './bench-client.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.mjs`;
const lanes = Number(process.argv[2] ?? 256);
const seconds = Number(process.argv[3] ?? 20);
const speed = 1000;

/** A synthetic Weka corpus: contexts growing a block or two a turn, short think times, a subagent now and then. */
function corpus(traces, turns) {
  const lines = [];
  for (let i = 0; i < traces; i++) {
    const requests = [];
    let blocks = 8 + (i % 16);
    let t = 0;
    for (let k = 0; k < turns; k++) {
      blocks += 1 + (k % 2);
      const hashIds = Array.from({ length: blocks }, (_, j) => j);
      requests.push({
        type: 'n',
        t,
        in: blocks * 64,
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
          requests: [{ type: 'n', t, in: 640, out: 32, hash_ids: Array.from({ length: 10 }, (_, j) => 1000 + j) }],
        });
    }
    lines.push(JSON.stringify({ id: `perf-${i}`, block_size: 64, hash_id_scope: 'local', requests }));
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
const sim = await startSim(['--speed', String(speed), '--max-num-seqs', String(lanes), '--ground-truth', `${dir}/truth.jsonl`]);
const started = process.hrtime.bigint();
const bench = spawnSync(
  process.execPath,
  [
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
    '--time-scale',
    String(speed),
    '--no-server-metrics',
    '--output-artifact-dir',
    `${dir}/aiperf_artifacts`,
  ],
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
