// `frontier bench` against `frontier sim serve`, both as processes on this machine, for the
// load generator's figures in `npm run perf`:
//   accuracy    per-request TTFT and every inter-token gap, client vs the sim's ground truth
//               (when the sim wrote each token; arrival when it read the request);
//   added       what the client adds to median TTFT and p99 ITL against a server that emits one
//               token per 20 ms per stream;
//   throughput  the streamed tokens/s the client sustains against the sim in fast mode.
// Usage: node perf/bench-client.mjs [accuracy|accuracy-pinned|added|throughput|tcp-floor] …
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = `${repo}dist/frontier.cjs`;

/**
 * Pinning puts the sim and the client on CPUs of their own (taskset), as a server and its client
 * are in a real deployment; unpinned, on a small machine the scheduler moves them between shared
 * cores and its delays land in the timings.
 */
export const canPin = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const command = (pin, args) =>
  pin === undefined ? [process.execPath, args] : ['taskset', ['-c', String(pin), process.execPath, ...args]];

export async function startSim(args, pin) {
  const server = spawn(...command(pin, [cli, 'sim', 'serve', '--port', '0', ...args]), { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`sim serve exited ${code}`)));
  });
  return {
    url,
    stop: () => {
      server.kill('SIGTERM');
      return new Promise((resolve) => server.on('exit', resolve));
    },
  };
}

/** `frontier bench` against a fresh sim; returns the bench's result JSON (and the ground truth by response id). */
async function run(simArgs, benchArgs, { truth = true, pinned = false } = {}) {
  const dir = mkdtempSync(`${tmpdir()}/frontier-bench-perf-`);
  const cpus = pinned ? [0, availableParallelism() - 1] : [];
  const sim = await startSim([...simArgs, ...(truth ? ['--ground-truth', `${dir}/truth.jsonl`] : [])], cpus[1]);
  const bench = spawnSync(
    ...command(cpus[0], [
      cli,
      'bench',
      '--base-url',
      sim.url,
      '--tokenizer',
      'gpt2',
      '--ignore-eos',
      '--result-file',
      `${dir}/result.json`,
      ...(truth ? ['--save-detailed'] : []),
      ...benchArgs,
    ]),
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  await sim.stop();
  // Exit 1 is an invalid run (its result is still written, with the reasons): reported, not fatal.
  if (bench.status !== 0 && bench.status !== 1) throw new Error(`frontier bench failed:\n${bench.stdout}${bench.stderr}`);
  const result = JSON.parse(readFileSync(`${dir}/result.json`, 'utf8'));
  if (!truth) return { result };
  const lines = readFileSync(`${dir}/truth.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { result, truth: new Map(lines.map((t) => [t.id, t])) };
}

const sorted = (xs) => Float64Array.from(xs).sort();
const quantile = (xs, p) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))];
};

/** Per request: client TTFT and gaps next to the truth's (ms). */
function pairs({ result, truth }) {
  const out = [];
  result.frontier.response_ids.forEach((id, i) => {
    const t = truth.get(id);
    if (!t) throw new Error(`no ground truth for response ${id}`);
    const gaps = t.token_times.slice(1).map((x, k) => x - t.token_times[k]);
    out.push({
      ttft: result.ttfts[i] * 1000,
      truthTtft: t.token_times[0] - t.arrival,
      itl: result.itls[i].map((s) => s * 1000),
      truthItl: gaps,
    });
  });
  return out;
}

export async function accuracy(concurrency = 256, { pinned = false } = {}) {
  const r = await run(
    ['--max-num-seqs', '1024'],
    [
      '--max-concurrency',
      String(concurrency),
      '--num-prompts',
      String(concurrency * 10),
      '--num-warmups',
      String(concurrency * 2),
      '--random-input-len',
      '256',
      '--random-output-len',
      '64',
    ],
    { pinned },
  );
  const ttftErr = [];
  const itlErr = [];
  for (const p of pairs(r)) {
    ttftErr.push(Math.abs(p.ttft - p.truthTtft));
    if (p.itl.length === p.truthItl.length) p.itl.forEach((g, k) => itlErr.push(Math.abs(g - p.truthItl[k])));
  }
  return {
    concurrency,
    pinned,
    requests: ttftErr.length,
    ttftMedianAbsErrorMs: quantile(ttftErr, 0.5),
    itlMedianAbsErrorMs: quantile(itlErr, 0.5),
    valid: r.result.frontier.valid,
  };
}

export async function added(concurrency = 1024) {
  // A tiny model whose every step takes 20 ms: one token per 20 ms per stream.
  const sim = [
    '--model',
    'qwen3-0.6b',
    '--max-num-seqs',
    String(concurrency),
    '--max-num-batched-tokens',
    String(concurrency * 256),
    '--efficiency',
    'stepOverheadMs=20',
    '--efficiency',
    'layerOverheadUs=0',
  ];
  const r = await run(sim, [
    '--max-concurrency',
    String(concurrency),
    '--num-prompts',
    String(concurrency * 10),
    '--num-warmups',
    String(concurrency),
    '--random-input-len',
    '64',
    '--random-output-len',
    '100',
    '--percentile-metrics',
    'ttft,itl',
    '--metric-percentiles',
    '99',
  ]);
  const all = pairs(r);
  const clientTtft = quantile(
    all.map((p) => p.ttft),
    0.5,
  );
  const truthTtft = quantile(
    all.map((p) => p.truthTtft),
    0.5,
  );
  const clientItl = quantile(
    all.flatMap((p) => p.itl),
    0.99,
  );
  const truthItl = quantile(
    all.flatMap((p) => p.truthItl),
    0.99,
  );
  return {
    concurrency,
    medianTtftAddedMs: clientTtft - truthTtft,
    p99ItlAddedMs: clientItl - truthItl,
    clientCpu: r.result.frontier.client.cpu,
    valid: r.result.frontier.valid,
    problems: r.result.frontier.problems,
  };
}

export async function throughput(concurrency = 1024) {
  const { result } = await run(
    // One engine instance batching every stream at once: all `concurrency` streams are active, and the sim spends
    // the least CPU per token (more instances behind its router cost more), leaving the machine to the client.
    ['--speed', '1000', '--max-num-seqs', String(concurrency)],
    [
      '--max-concurrency',
      String(concurrency),
      '--num-prompts',
      String(concurrency * 4),
      '--num-warmups',
      String(concurrency),
      '--random-input-len',
      '32',
      '--random-output-len',
      '512',
      '--random-range-ratio',
      '1',
    ],
    { truth: false },
  );
  return {
    concurrency,
    outputTokensPerS: result.output_throughput,
    clientCpu: result.frontier.client.cpu,
    failed: result.num_prompts - result.completed,
  };
}

/**
 * The floor under any client on this machine: a bare TCP fan-out (no HTTP, no parsing) where a
 * server process writes a timestamp to `sockets` connections every 20 ms and this process reads
 * them. Median write → read delay (ms): what one event loop per side costs at that many streams,
 * with each read stamped when its handler runs, and (as `frontier bench` does) with the start of
 * the poll phase that returned it.
 */
export async function tcpFloor(sockets = 256) {
  const { createServer, connect } = await import('node:net');
  const { fork } = await import('node:child_process');
  if (process.env.FRONTIER_TCP_FLOOR_SERVER) {
    const open = [];
    const server = createServer((s) => {
      s.setNoDelay(true);
      open.push(s);
      if (open.length < sockets) return;
      let rounds = 0;
      const timer = setInterval(() => {
        for (const c of open) c.write(`${performance.timeOrigin + performance.now()}\n`);
        if (++rounds === 100) {
          clearInterval(timer);
          for (const c of open) c.end();
          server.close();
        }
      }, 20);
    });
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));
    return undefined;
  }
  const child = fork(fileURLToPath(import.meta.url), ['tcp-floor', String(sockets)], {
    env: { ...process.env, FRONTIER_TCP_FLOOR_SERVER: '1' },
  });
  const port = await new Promise((resolve) => child.once('message', resolve));
  const delays = [];
  const batchDelays = [];
  let batchStart;
  const readTime = () => {
    const now = performance.now();
    if (batchStart === undefined || now - batchStart > 2) {
      if (batchStart === undefined) setImmediate(() => (batchStart = undefined));
      batchStart = now;
    }
    return performance.timeOrigin + batchStart;
  };
  await Promise.all(
    Array.from(
      { length: sockets },
      () =>
        new Promise((resolve) => {
          const s = connect({ port, host: '127.0.0.1', noDelay: true });
          let carry = '';
          s.on('data', (b) => {
            const batch = readTime();
            const now = performance.timeOrigin + performance.now();
            const lines = (carry + b).split('\n');
            carry = lines.pop();
            for (const l of lines) {
              delays.push(now - Number(l));
              batchDelays.push(batch - Number(l));
            }
          });
          s.on('end', resolve);
        }),
    ),
  );
  child.kill();
  return { sockets, medianWriteToReadMs: quantile(delays, 0.5), medianWriteToPollMs: quantile(batchDelays, 0.5) };
}

if (process.env.FRONTIER_TCP_FLOOR_SERVER) {
  await tcpFloor(Number(process.argv[3]));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [what = 'accuracy', arg] = process.argv.slice(2);
  const fn = { accuracy, 'accuracy-pinned': (c) => accuracy(c, { pinned: true }), added, throughput, 'tcp-floor': tcpFloor }[
    what
  ];
  console.log(JSON.stringify(await fn(arg === undefined ? undefined : Number(arg))));
}
