// What the eval client adds: a full GSM8K run (1,319 problems, 5-shot, chat) against `frontier sim serve`
// at concurrency 64, the sim answering from GSM8K's answer keys (`frontier eval answer-keys`). The sim's ground truth gives each request's
// time in the server (arrival → last token); with a client that cost nothing, each of the 64 slots
// would send its next problem the moment the last one finished, so the run would take the longest
// slot's sum of server times (problems assigned in order to the first free slot). The figure is how
// much longer the measured run (first arrival → last token) took than that. Target: < 5%.
//
//   node perf/eval-client.mjs [speed=2]
//
// The sim runs on its own CPU and the client on another (taskset, where there are two), at a speed
// where the sim is not CPU-bound: a busy sim reads requests late, which this measure would charge
// to the client.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'dist/frontier.cjs');
const data = join(repo, 'test/fixtures/gsm8k');
const speed = process.argv[2] ?? '2';
const conc = 64;
const pinned = cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

export function evalClientOverhead() {
  const dir = mkdtempSync(join(tmpdir(), 'frontier-perf-eval-'));
  const truth = join(dir, 'truth.jsonl');
  const keys = join(dir, 'keys.jsonl');
  spawnSync(process.execPath, [cli, 'eval', 'answer-keys', '--task', 'gsm8k', '--data', data, '--out', keys], {
    stdio: 'inherit',
  });
  const pin = (cpu) => (pinned ? ['taskset', '-c', String(cpu), process.execPath] : [process.execPath]);
  const [simCmd, ...simPre] = pin(1);
  const sim = spawn(
    simCmd,
    [...simPre, cli, 'sim', 'serve', '--port', '0', '--speed', speed, '--answers', keys, '--ground-truth', truth],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    sim.stdout.on('data', (d) => {
      out += d;
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m || sim.ready) return;
      sim.ready = true;
      const [evalCmd, ...evalPre] = pin(0);
      const r = spawnSync(
        evalCmd,
        [
          ...evalPre,
          cli,
          'eval',
          'gsm8k',
          '--base-url',
          m[1],
          '--data',
          data,
          '--concurrency',
          String(conc),
          '--out',
          dir,
          '--max-tokens',
          '256',
        ],
        {
          encoding: 'utf8',
        },
      );
      setTimeout(() => {
        sim.kill('SIGTERM');
        if (r.status !== 0) return reject(new Error(`eval exited ${r.status}: ${r.stderr}`));
        const rows = readFileSync(truth, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const first = Math.min(...rows.map((x) => x.arrival));
        const last = Math.max(...rows.map((x) => x.token_times.at(-1) ?? x.arrival));
        const slots = new Array(conc).fill(0);
        for (const x of rows.sort((a, b) => a.arrival - b.arrival)) {
          const i = slots.indexOf(Math.min(...slots));
          slots[i] += (x.token_times.at(-1) ?? x.arrival) - x.arrival;
        }
        const ideal = Math.max(...slots);
        rmSync(dir, { recursive: true, force: true });
        resolve({ measured: last - first, ideal, requests: rows.length });
      }, 300);
    });
    sim.on('exit', (code) => {
      if (!sim.ready) reject(new Error(`sim exited ${code}`));
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { measured, ideal, requests } = await evalClientOverhead();
  const added = (measured / ideal - 1) * 100;
  console.log(
    `eval gsm8k vs sim --speed ${speed}, conc ${conc}, ${requests} requests: ${(measured / 1000).toFixed(2)} s measured, ${(ideal / 1000).toFixed(2)} s in the server: client adds ${added.toFixed(1)}% (target < 5%: ${added < 5 ? 'met' : 'MISSED'})`,
  );
}
