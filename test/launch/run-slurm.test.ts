// frontier run on a real Slurm (test/support/slurm.ts: slurmctld and two slurmd on this host, fake GPUs):
// each launch one batch job with an srun step per engine process, the readiness barrier and one
// `frontier bench` per concurrency; simulated engines as the workload.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, slurmExecutor } from '../../src/launch/index.js';
import type { EvalSettings, RunManifest, RunOptions } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { CLI, tempFiles, jobPorts } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { waitFor } from '../support/wait.js';
import {
  agenticRow,
  disaggRow,
  engineServing,
  evalSettings,
  simCluster,
  singleRow,
  smallCorpus,
  pointStatuses,
} from './fixtures.js';

let slurm: LocalSlurm;

beforeAll(async () => {
  slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 8 });
}, 60_000);

afterAll(async () => {
  await slurm?.stop();
});

const cluster = (o: Partial<ClusterProfile> = {}): ClusterProfile =>
  simCluster({
    name: 'test-slurm',
    scheduler: 'slurm',
    nodes: 2,
    partition: slurm.partition,
    timeLimitMinutes: 10,
    healthCheck: { attempts: 150, intervalSeconds: 0.2 },
    ...o,
  });

const nextPort = jobPorts(0);

async function runOnSlurm(
  rows: MatrixRow[],
  c: ClusterProfile,
  signal?: AbortSignal,
  evals?: EvalSettings,
  more: Partial<RunOptions> = {},
) {
  const out = join(tempFiles({}), 'run');
  const executor = slurmExecutor({
    env: { ...process.env, ...slurm.env },
    frontierCommand: [process.execPath, CLI],
    basePort: nextPort(),
    pollMs: 200,
  });
  const text = JSON.stringify(rows);
  return run({
    rows,
    matrix: { file: 'matrix.json', text },
    cluster: c,
    out,
    executor,
    frontierVersion: 'test',
    frontierCommand: [process.execPath, CLI],
    commit: null,
    ...(signal ? { signal } : {}),
    ...(evals ? { evals } : {}),
    ...more,
  });
}

const shell = (command: string, args: string[]): { status: number | null; out: string } => {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
};

describe('frontier run on Slurm', () => {
  it('runs a single-node launch as one job: a step for the engine, a benchmark per concurrency', async () => {
    const { manifest, dir } = await runOnSlurm([singleRow({ conc: 1 }), singleRow({ conc: 2 })], cluster());
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    expect(manifest.launches[0]!.job).toMatch(/^\d+$/);
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    const files = readdirSync(logs).sort();
    expect(readFileSync(join(logs, 'server.log'), 'utf8')).toMatch(/^frontier: server on node n1\n/);
    expect(files).toContain(`slurm-${manifest.launches[0]!.job}.out`);
    const script = readFileSync(join(logs, 'job.sbatch'), 'utf8');
    expect(script).toMatch(/^#SBATCH --nodes=1$/m);
    expect(script).toMatch(/^#SBATCH --gpus-per-node=8$/m);
    expect(script).toMatch(/^#SBATCH --time=10$/m);
    expect(script).toContain(`#SBATCH --partition=${slurm.partition}`);
    expect(shell('bash', ['-n', join(logs, 'job.sbatch')]).status).toBe(0);
    const lint = shell('shellcheck', ['-s', 'bash', join(logs, 'job.sbatch')]);
    expect(lint.out).toBe('');
    const agg = JSON.parse(readFileSync(dir.aggFile(manifest.points[1]!.resultFilename), 'utf8')) as Record<string, unknown>;
    expect(agg).toMatchObject({ conc: 2, tp: 1, hw: 'h100' });
    // Power: the job's GPU monitor step (the simulated engine's nvidia-smi) sampled the node from
    // before the engine until after the last benchmark; every point's window integrates.
    expect(script).toContain('telemetry sample --source nvidia-smi');
    expect(files).toEqual(expect.arrayContaining(['gpu_metrics.csv', 'gpu_metrics_sampler.json', 'telemetry.log']));
    const sampler = JSON.parse(readFileSync(join(logs, 'gpu_metrics_sampler.json'), 'utf8')) as Record<string, unknown>;
    expect(sampler).toMatchObject({ source: 'nvidia-smi', died_before_stop: false });
    // It read the engine's GPU, busy during the benchmarks (not an idle inventory GPU).
    const utilisation = readFileSync(join(logs, 'gpu_metrics.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => parseInt(line.split(', ')[6]!, 10));
    expect(Math.max(...utilisation)).toBeGreaterThan(20);
    for (const p of manifest.points) {
      expect(p.power).toEqual({ valid: true, reasons: [] });
      const a = JSON.parse(readFileSync(dir.aggFile(p.resultFilename), 'utf8')) as Record<string, number>;
      expect(a.power_valid).toBe(1);
      expect(a.joules_per_output_token).toBeGreaterThan(0);
    }
  }, 120_000);

  it('replays an agentic point in its job (frontier bench --trace) and aggregates it from the shared run directory', async () => {
    const agentic = smallCorpus(tempFiles({}));
    const { manifest, dir } = await runOnSlurm([agenticRow({ conc: 2 })], cluster(), undefined, undefined, { agentic });
    expect(pointStatuses(manifest)).toEqual(['2:ok']);
    const rf = manifest.points[0]!.resultFilename;
    const script = readFileSync(join(dir.root, manifest.launches[0]!.logs!, 'job.sbatch'), 'utf8');
    expect(script).toContain(`bench --trace ${agentic.tracesFile} `);
    expect(script).toContain(`--output-artifact-dir ${dir.agenticArtifacts(rf)}`);
    expect(shell('shellcheck', ['-s', 'bash', join(dir.root, manifest.launches[0]!.logs!, 'job.sbatch')]).out).toBe('');
    const agg = JSON.parse(readFileSync(dir.agenticAggFile(rf), 'utf8')) as {
      scenario_type: string;
      num_requests_successful: number;
      server_metrics: { cache: { gpu_cache_hit_rate: number } };
    };
    expect(agg.scenario_type).toBe('agentic-coding');
    expect(agg.num_requests_successful).toBeGreaterThan(0);
    expect(agg.server_metrics.cache.gpu_cache_hit_rate).toBeGreaterThan(0.3);
  }, 120_000);

  it('runs a row’s GSM8K eval in the job after its points, and records it from the eval folder', async () => {
    const evals = await evalSettings(40);
    const { manifest, dir } = await runOnSlurm([singleRow({ conc: 2, 'run-eval': true })], cluster(), undefined, evals);
    expect(pointStatuses(manifest)).toEqual(['2:ok']);
    expect(manifest.points[0]!.power).toEqual({ valid: true, reasons: [] });
    expect(manifest.evals[0]).toMatchObject({ status: 'passed', concs: [2] });
    expect(manifest.evals[0]!.scores![0]!.score).toBeGreaterThan(0.8);
    const script = readFileSync(join(dir.root, manifest.launches[0]!.logs!, 'job.sbatch'), 'utf8');
    expect(script).toMatch(/^# eval gsm8k at conc 2$/m);
    expect(script).toMatch(/ eval run --task \S+\/gsm8k\.yaml --data \S+\/test\/fixtures\/gsm8k /);
    expect(shell('shellcheck', ['-s', 'bash', join(dir.root, manifest.launches[0]!.logs!, 'job.sbatch')]).out).toBe('');
    const folder = readdirSync(join(dir.root, manifest.evals[0]!.dir)).sort();
    expect(folder).toEqual([
      'meta_env.json',
      expect.stringMatching(/^results_/),
      'row.json',
      expect.stringMatching(/^samples_gsm8k_/),
    ]);
    expect(JSON.parse(readFileSync(join(dir.root, 'agg_eval_all.json'), 'utf8'))).toHaveLength(1);
  }, 120_000);

  it('places a 1P1D launch on two nodes: prefill sim, decode sim and the router, in one job', async () => {
    const { manifest, dir } = await runOnSlurm([disaggRow({ conc: [2, 4] })], cluster());
    expect(pointStatuses(manifest)).toEqual(['2:ok', '4:ok']);
    const logs = join(dir.root, manifest.launches[0]!.logs!);
    // Each step's log opens with the node Slurm ran it on: prefill and the router on the first, decode on the second.
    const node = (name: string): string =>
      /^frontier: \S+ on node (\S+)/.exec(readFileSync(join(logs, `${name}.log`), 'utf8'))?.[1] ?? '';
    expect(['prefill-0', 'decode-0', 'router'].map(node)).toEqual(['n1', 'n2', 'n1']);
    const script = readFileSync(join(dir.root, manifest.launches[0]!.logs!, 'job.sbatch'), 'utf8');
    expect(script).toMatch(/^#SBATCH --nodes=2$/m);
  }, 120_000);

  it('a launch that cannot start fails its points with the step’s log; an interrupt cancels the job', async () => {
    const bad = cluster({ engines: { sim: { speed: 4, 'extra-args': '--no-such-flag' } } });
    const failed = await runOnSlurm([singleRow({ conc: 1 })], bad);
    expect(failed.manifest.points[0]!.status).toBe('failed');
    expect(failed.manifest.points[0]!.error).toMatch(
      /job \d+ ended FAILED without a result for conc 1: server exited \(exit code \d+\) before the benchmark; the end of its log:\n.*no-such-flag/s,
    );

    const controller = new AbortController();
    const slow = cluster({ engines: { sim: { speed: 1 } } });
    const out = join(tempFiles({}), 'run');
    const running = runOnSlurm([singleRow({ conc: 1, osl: 4000, 'max-model-len': 4300 })], slow, controller.signal, undefined, {
      out,
    });
    // Cancel once the job runs, its engine serving.
    await engineServing(out, 60_000);
    controller.abort();
    const { manifest } = await running;
    expect(manifest.status).toBe('interrupted');
    const left = spawnSync('squeue', ['-h', '-o', '%i %T'], {
      env: { ...process.env, ...slurm.env },
      encoding: 'utf8',
    }).stdout.trim();
    expect(left).toBe('');
    const shown = spawnSync('scontrol', ['show', 'job', manifest.launches[0]!.job!, '-o'], {
      env: { ...process.env, ...slurm.env },
      encoding: 'utf8',
    }).stdout;
    expect(shown).toMatch(/JobState=CANCELLED/);
  }, 120_000);

  it('--resume cancels the job of a launch that a killed run left running', async () => {
    const rows = [singleRow({ conc: 1 })];
    const { dir } = await runOnSlurm(rows, cluster());
    // What a kill -9 leaves: the manifest says the launch runs, and its job does.
    const env = { ...process.env, ...slurm.env };
    const job = spawnSync(
      'sbatch',
      ['--parsable', `--partition=${slurm.partition}`, '--time=5', `--output=${dir.root}/sleep.out`, '--wrap', 'sleep 300'],
      {
        env,
        encoding: 'utf8',
      },
    ).stdout.trim();
    expect(job).toMatch(/^\d+$/);
    await waitFor(() => squeueOf(job) === 'RUNNING', {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: () => `job ${job} to run (squeue: ${squeueOf(job) || 'not queued'})`,
    });
    const manifest = JSON.parse(readFileSync(dir.manifestFile, 'utf8')) as RunManifest;
    manifest.launches[0] = { ...manifest.launches[0]!, status: 'running', job };
    writeFileSync(dir.manifestFile, JSON.stringify(manifest));

    const notes: string[] = [];
    const resumed = await runOnSlurm(rows, cluster(), undefined, undefined, {
      out: dir.root,
      resume: true,
      reporter: { note: (m) => notes.push(m) },
    });
    expect(notes).toContain(
      `--resume: stopped Slurm job ${job} (${manifest.launches[0]!.label}), left running by the previous run`,
    );
    expect(squeueOf(job)).toBe('');
    expect(resumed.manifest.points.map((p) => p.status)).toEqual(['ok']);
  }, 120_000);
});

const squeueOf = (job: string): string =>
  spawnSync('squeue', ['-h', '-j', job, '-o', '%T'], { env: { ...process.env, ...slurm.env }, encoding: 'utf8' }).stdout.trim();
