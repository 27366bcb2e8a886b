// `frontier run` on real single-node rows of the InferenceX fixture sweep (vLLM, SGLang,
// TensorRT-LLM, AMD's ATOM): each point runs the checkout's own benchmark script, whose engine and
// client become the sim and `frontier bench` through the stand-ins; locally and on the test Slurm
// cluster (slurmctld and two slurmd on this host). The run directory ingests.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTree, planLaunch, planRun, planScript } from '../../src/plan/index.js';
import { recordPoint } from '../../src/launch/inferencex/index.js';
import { run, localExecutor, slurmExecutor } from '../../src/launch/index.js';
import type { LaunchExecutor, RunOptions } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { SingleNodeRow } from '../../src/matrix/index.js';
import { resultFilenameOf } from '../../src/results/index.js';
import { CLI, tempFiles, jobPorts } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { FIXTURE_TREE, evalSettings, fixtureSweep, pointStatuses, simCluster, singleRow, strays, ingested } from './fixtures.js';

const nextPort = jobPorts(2);

const TREE = FIXTURE_TREE;
const FRONTIER = [process.execPath, CLI];

let rows: SingleNodeRow[];
let slurm: LocalSlurm;

/** The lowest-concurrency row of each kind: one engine per framework, an AMD one among them. */
const KINDS: [string, string, string][] = [
  ['h200', 'sglang', 'deepseek-ai/DeepSeek-R1-0528'],
  ['b200', 'trt', 'nvidia/DeepSeek-R1-0528-FP4-V2'],
  ['mi355x', 'atom', 'amd/DeepSeek-R1-0528-MXFP4-Preview'],
  ['cluster:b200-dgxc', 'vllm', 'deepseek-ai/DeepSeek-V4-Pro'],
];
/** The script each kind's launcher runs. */
const SCRIPTS = [
  'benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh',
  'benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_trt.sh',
  'benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x_atom.sh',
  'benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_vllm.sh',
];

beforeAll(async () => {
  const all = await fixtureSweep();
  rows = KINDS.map(([runner, framework, model]) => {
    const matching = all.filter(
      (r): r is SingleNodeRow =>
        !('prefill' in r) && r.runner === runner && r.framework === framework && r.model === model && !r['run-eval'],
    );
    return matching.sort((a, b) => a.conc - b.conc)[0]!;
  });
  slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 8 });
}, 120_000);

afterAll(async () => {
  await slurm?.stop();
});

// The sim has no DeepSeek-V4 model: it stands in with R1 for the pipeline check (`stand-in-model`).
const cluster = (o: Partial<ClusterProfile> = {}): ClusterProfile =>
  simCluster({
    nodes: 1,
    gpusPerNode: 8,
    timeLimitMinutes: 10,
    engines: { sim: { speed: 20, 'stand-in-model': 'deepseek-r1' } },
    ...o,
  });

async function runRows(c: ClusterProfile, executor: LaunchExecutor, picked: SingleNodeRow[], o: Partial<RunOptions> = {}) {
  const out = join(tempFiles({}), 'run');
  const text = JSON.stringify(picked);
  const result = await run({
    ...o,
    rows: picked,
    matrix: { file: 'matrix.json', text },
    cluster: c,
    out,
    executor,
    frontierVersion: 'test',
    frontierCommand: FRONTIER,
    commit: null,
    inferencex: openTree(TREE),
  });
  return { ...result, out };
}

// A faster sim for the eval runs: a run-eval row's benchmark is 320 requests before its eval.
const FAST: Partial<ClusterProfile> = { engines: { sim: { speed: 100, 'stand-in-model': 'deepseek-r1' } } };

/** The fixture sweep's H200 SGLang DeepSeek-R1 row with run-eval. */
const evalRow = async (): Promise<SingleNodeRow> =>
  (await fixtureSweep()).find(
    (r): r is SingleNodeRow =>
      !('prefill' in r) &&
      r.runner === 'h200' &&
      r.framework === 'sglang' &&
      r.model === 'deepseek-ai/DeepSeek-R1-0528' &&
      r['run-eval'] === true,
  )!;

/**
 * Run the eval row and an eval-only copy of it at another concurrency (one launch): each eval
 * passed, run by the script's own run_lm_eval (its lm-eval call's stand-in: frontier eval run);
 * InferenceX's validate_scores.py accepts each eval's folder; the store holds their scores. The
 * RUN_EVAL row's script benchmarked, then evaluated; the eval-only one only evaluated (EVAL_ONLY).
 */
async function expectScriptEvals(c: ClusterProfile, executor: LaunchExecutor) {
  const row = await evalRow();
  const evalOnly: SingleNodeRow = { ...row, conc: 4, 'eval-only': true };
  const evals = await evalSettings(20);
  const { manifest, dir, out } = await runRows(c, executor, [row, evalOnly], { evals });
  expect(pointStatuses(manifest)).toEqual([`${row.conc}:ok`]);
  expect(manifest.evals.map((e) => `${e.concs.join(',')}:${e.status} ${e.error ?? ''}`.trim())).toEqual([
    `${row.conc}:passed`,
    '4:passed',
  ]);
  const started = [row, evalOnly].map((r) => {
    const logs = dir.serverLogs(resultFilenameOf(r, c.name));
    return (JSON.parse(readFileSync(join(logs, 'processes.json'), 'utf8')) as { processes: { kind: string; argv: string[] }[] })
      .processes;
  });
  for (const [i, e] of manifest.evals.entries()) {
    expect(e.scores![0]!.score).toBeGreaterThan(0.8);
    const lmEval = started[i]!.find((p) => p.kind === 'eval')!.argv;
    expect(lmEval.slice(0, 5)).toEqual(['python3', '-m', 'lm_eval', '--model', 'local-chat-completions']);
    expect(lmEval).toEqual(expect.arrayContaining(['--limit', '20', '--log_samples']));
    const folder = join(dir.root, e.dir);
    expect(readdirSync(folder).sort()).toEqual([
      'meta_env.json',
      expect.stringMatching(/^results_.*\.json$/),
      'row.json',
      expect.stringMatching(/^samples_gsm8k_.*\.jsonl$/),
    ]);
    const validate = spawnSync('python3', [join(TREE, 'utils/evals/validate_scores.py')], { cwd: folder, encoding: 'utf8' });
    expect(validate.status, validate.stdout + validate.stderr).toBe(0);
  }
  // run_benchmark_serving ran the client for the RUN_EVAL row only.
  expect(started.map((p) => p.some((x) => x.kind === 'client'))).toEqual([true, false]);
  expect(strays(out)).toEqual([]);
  // The store holds the evals' scores (a row per metric).
  expect(await ingested(out, `eval-${c.name}`)).toMatch(/\n {2}evals: [1-9]\d* \([1-9]\d* new/);
}

async function expectScriptRun(
  c: ClusterProfile,
  executor: LaunchExecutor,
  runId: string,
  picked: SingleNodeRow[] = rows,
): Promise<void> {
  const { manifest, dir, out } = await runRows(c, executor, picked);
  expect(manifest.points.map((p) => `${p.resultFilename}: ${p.status} ${p.error ?? ''}`.trim())).toEqual(
    manifest.points.map((p) => `${p.resultFilename}: ok`),
  );
  expect(manifest.launches.map((g) => g.engine)).toEqual(picked.map((r) => `${SCRIPTS[rows.indexOf(r)]} (stand-ins: sim)`));
  for (const [i, p] of manifest.points.entries()) {
    const row = picked[i]!;
    const raw = JSON.parse(readFileSync(dir.rawFile(p.resultFilename), 'utf8')) as Record<string, unknown>;
    // The script's own client command line reached `frontier bench`: its concurrency and prompt count.
    expect(raw.max_concurrency).toBe(row.conc);
    expect(raw.completed).toBe(10 * row.conc);
    expect(existsSync(dir.aggFile(p.resultFilename))).toBe(true);
    // What the script started is kept with its logs: the engine's command line as the dry run
    // shows it (the port aside: a shared host gets a free one), and the benchmark client.
    const logs = dir.serverLogs(p.resultFilename);
    expect(readdirSync(logs)).toEqual(expect.arrayContaining(['script.log', 'server.log', 'processes.json']));
    const started = JSON.parse(readFileSync(join(logs, 'processes.json'), 'utf8')) as {
      processes: { kind: string; argv: string[]; env: Record<string, string> }[];
    };
    const plan = planScript(openTree(TREE), row, c);
    if ('problem' in plan) throw new Error(plan.problem);
    const dry = await recordPoint(plan, row, p.resultFilename, c, join(tempFiles({}), 'w'), FRONTIER);
    const port = started.processes.find((x) => x.kind === 'engine' || x.kind === 'launcher')!.env.PORT!;
    const engine = started.processes.filter((x) => x.kind === 'engine' || x.kind === 'launcher')[0]!;
    expect(engine.argv.join(' ')).toBe(dry.processes[0]!.argv.join(' ').replaceAll('8888', port));
    expect(started.processes.some((x) => x.kind === 'client' && x.argv.join(' ').includes('benchmark_serving.py'))).toBe(true);
    // The script's own GPU monitor (start_gpu_monitor: the simulated engine's nvidia-smi or
    // amd-smi through the stand-in) sampled the point; its power step integrated the window.
    expect(readdirSync(logs)).toContain('gpu_metrics.csv');
    expect(p.power, p.resultFilename).toEqual({ valid: true, reasons: [] });
  }
  expect(strays(out)).toEqual([]);
  expect(await ingested(out, runId)).toContain(`points: ${picked.length} (${picked.length} new)`);
}

describe('frontier run on InferenceX single-node rows, through the checkout’s scripts', () => {
  it(
    'locally: each engine’s script runs on the sim through the stand-ins and the run ingests',
    { timeout: 300_000 },
    async () => {
      await expectScriptRun(cluster(), localExecutor, 'ix-local');
    },
  );

  it(
    'with --repeats 2: the script runs once per launch, each with its own seeded factor, logs and raw result',
    { timeout: 300_000 },
    async () => {
      const c = cluster({ sim: { runVariation: 0.05, seed: 7 } });
      const { manifest, dir } = await runRows(c, localExecutor, [rows[0]!], { repeats: { count: 2, scope: 'launch' } });
      expect(manifest.points.map((p) => `${p.repeat}:${p.status}`)).toEqual(['1:ok', '2:ok']);
      const rf = manifest.points[0]!.resultFilename;
      const raws = [1, 2].map((k) => JSON.parse(readFileSync(dir.rawFile(rf, k), 'utf8')) as { output_throughput: number });
      // Two launches, two performance factors: the same script measures two different throughputs.
      expect(raws[0]!.output_throughput).not.toBe(raws[1]!.output_throughput);
      // Each launch keeps its own logs; the second's sim banner says which factor it drew.
      const logs = manifest.launches.map((g) => join(dir.root, g.logs!));
      expect(new Set(logs).size).toBe(2);
      for (const l of logs)
        expect(readFileSync(join(l, 'server.log'), 'utf8')).toMatch(/run variation: CV 5%, this launch's factor \d\.\d{3}/);
      const agg = JSON.parse(readFileSync(dir.aggFile(rf), 'utf8')) as {
        repeats: { n: number; metrics: Record<string, { values: number[] }> };
      };
      expect(agg.repeats.n).toBe(2);
    },
  );

  it(
    '--profile: the script profiles its point as profile.yml runs it, and the run keeps the engine profiler’s trace',
    { timeout: 300_000 },
    async () => {
      const { manifest, dir } = await runRows(cluster(), localExecutor, [rows[0]!], { profile: true });
      const point = manifest.points[0]!;
      expect(`${point.status} ${point.error ?? ''}`.trim()).toBe('ok');
      const rf = point.resultFilename;
      // benchmark_lib.sh's run_benchmark_serving: --profile to the client, one prompt per slot.
      const raw = JSON.parse(readFileSync(dir.rawFile(rf), 'utf8')) as { completed: number };
      expect(raw.completed).toBe(rows[0]!.conc);
      const started = JSON.parse(readFileSync(join(dir.serverLogs(rf), 'processes.json'), 'utf8')) as {
        processes: { kind: string; argv: string[]; env: Record<string, string> }[];
      };
      expect(started.processes.find((x) => x.kind === 'client')!.argv).toContain('--profile');
      // The sim's profiler wrote a Chrome trace; move_profile_trace_for_relay gzipped it for the relay; the run named it.
      expect(point.profile).toBe(`server_logs_${rf}/profile_${rf}.trace.json.gz`);
      const trace = JSON.parse(gunzipSync(readFileSync(join(dir.root, point.profile!))).toString('utf8')) as {
        traceEvents: { name: string; dur: number }[];
      };
      expect(trace.traceEvents.find((e) => e.name === 'frontier-sim profile')!.dur).toBeGreaterThan(0);
    },
  );

  it(
    'evals inside the script: a RUN_EVAL row evaluates after its benchmark, an eval-only row instead of it, served by frontier eval run; InferenceX’s score validation passes',
    { timeout: 300_000 },
    async () => {
      await expectScriptEvals(cluster(FAST), localExecutor);
    },
  );

  it('evals inside the script on Slurm: each run is a step of the row’s job', { timeout: 300_000 }, async () => {
    const executor = slurmExecutor({
      env: { ...process.env, ...slurm.env },
      frontierCommand: FRONTIER,
      basePort: nextPort(),
      pollMs: 200,
    });
    await expectScriptEvals(
      cluster({ ...FAST, name: 'test-slurm', scheduler: 'slurm', partition: slurm.partition, nodes: 2 }),
      executor,
    );
  });

  it('--profile on a launch that is not an InferenceX script says why it cannot run', () => {
    const launch = planRun([singleRow()], 'test-sim')[0]!;
    const plan = planLaunch(launch, { cluster: simCluster(), frontierCommand: FRONTIER, profile: true });
    expect(plan.kind === 'cannot-run' && plan.reasons[0]).toMatch(
      /^--profile runs the engine's profiler through an InferenceX single-node script .*this launch runs as Frontier's engine adapter/,
    );
  });

  // Slurm changes where a script runs, not what it does: an NVIDIA and an AMD row.
  it('on Slurm: each script is a step of the row’s job, and the run ingests', { timeout: 300_000 }, async () => {
    const executor = slurmExecutor({
      env: { ...process.env, ...slurm.env },
      frontierCommand: FRONTIER,
      basePort: nextPort(),
      pollMs: 200,
    });
    await expectScriptRun(
      cluster({ name: 'test-slurm', scheduler: 'slurm', partition: slurm.partition, nodes: 2 }),
      executor,
      'ix-slurm',
      [rows[0]!, rows[2]!],
    );
  });
});

describe('a real cluster whose client is frontier bench (inferencex-client: frontier)', () => {
  it(
    'runs the script’s real engine and InferenceX’s client command line through frontier bench',
    { timeout: 120_000 },
    async () => {
      // The "real" engine: a Python package named sglang on PYTHONPATH, whose launch_server serves
      // the sim on the port it is given (no stand-in involved: the script's python3 is the real one).
      const site = tempFiles({
        'sglang/__init__.py': '',
        'sglang/launch_server.py': [
          'import os, sys',
          'args = sys.argv[1:]',
          'port = args[args.index("--port") + 1]',
          `os.execv(${JSON.stringify(process.execPath)}, [${JSON.stringify(process.execPath)}, ${JSON.stringify(CLI)}, "sim", "serve", "--model", "deepseek-r1", "--hardware", "h200", "--tp", "8", "--served-model-name", os.environ["MODEL"], "--speed", "20", "--host", "127.0.0.1", "--port", port])`,
          '',
        ].join('\n'),
      });
      const previous = process.env.PYTHONPATH;
      process.env.PYTHONPATH = site;
      try {
        const sglangRow = rows[0]!;
        const out = join(tempFiles({}), 'run');
        const c = cluster({ simulate: false, inferencexClient: 'frontier' });
        const { manifest, dir } = await run({
          rows: [sglangRow],
          matrix: { file: 'matrix.json', text: JSON.stringify([sglangRow]) },
          cluster: c,
          out,
          executor: localExecutor,
          frontierVersion: 'test',
          frontierCommand: FRONTIER,
          commit: null,
          inferencex: openTree(TREE),
        });
        expect(manifest.points.map((p) => `${p.status} ${p.error ?? ''}`.trim())).toEqual(['ok']);
        const rf = manifest.points[0]!.resultFilename;
        const raw = JSON.parse(readFileSync(dir.rawFile(rf), 'utf8')) as { max_concurrency: number; frontier?: unknown };
        expect(raw.max_concurrency).toBe(sglangRow.conc);
        // frontier bench wrote it (its own section), InferenceX's command line drove it.
        expect(raw.frontier).toBeDefined();
        const started = JSON.parse(readFileSync(join(dir.serverLogs(rf), 'processes.json'), 'utf8')) as {
          processes: { kind: string; argv: string[] }[];
        };
        expect(started.processes.map((p) => p.kind)).toEqual(expect.arrayContaining(['engine', 'client']));
        expect(strays(out)).toEqual([]);
      } finally {
        if (previous === undefined) delete process.env.PYTHONPATH;
        else process.env.PYTHONPATH = previous;
      }
    },
  );
});
