// Multi-node rows whose launcher runs a job script of the checkout: AMD's sglang-disagg and
// atom-disagg (launch_mi355x-amds.sh runs benchmarks/multi_node/<model>_<precision>_mi355x_<fw>.sh,
// which submits its own Slurm job: amd_utils/submit.sh → sbatch job.slurm), llm-d on GB200 (the
// same, through llm-d/submit.sh) and TileRT on B200 (tilert_utils/submit.sh allocates its nodes
// with salloc and runs its steps itself). The dry run records the submission for every such row of
// the fixture sweep; `frontier run` runs the AMD rows
// and the TileRT row end to end on the test Slurm cluster (slurmctld and two slurmd on this host;
// the llm-d row's run, on four nodes of four GPUs, is inferencex-llmd.test.ts):
// the checkout's job.slurm starts a container per node (the docker stand-in), TileRT's script one
// per role (srun with pyxis's options, a stand-in too), then the prefill and decode servers, the
// router and the benchmark in them (the sim and frontier bench), and the run ingests.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTree, planLaunch, planRun } from '../../src/plan/index.js';
import { run, slurmExecutor } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MultiNodeRow } from '../../src/matrix/index.js';
import { CLI, runCliAsync, tempFiles } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { FIXTURE_TREE, fixtureSweep, simCluster } from './fixtures.js';

const TREE = FIXTURE_TREE;
const execFileAsync = promisify(execFile);
const FRONTIER = [process.execPath, CLI];
const AMD = ['sglang-disagg', 'atom-disagg'];
const FRAMEWORKS = [...AMD, 'llmd-vllm', 'tilert'];

let rows: MultiNodeRow[];

beforeAll(async () => {
  const all = await fixtureSweep();
  rows = all.filter(
    (r): r is MultiNodeRow =>
      'prefill' in r && FRAMEWORKS.includes(r.framework) && (r as { 'scenario-type'?: string })['scenario-type'] === undefined,
  );
}, 60_000);

const setting = (row: MultiNodeRow, name: string): string | undefined =>
  [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])]
    .find((s) => s.startsWith(`${name}=`))
    ?.slice(name.length + 1);

// The sim has no DeepSeek-V4 or GLM-5.1 model: it stands in with R1 (`stand-in-model`).
const PROFILE = `description: Simulated nodes under Slurm
scheduler: slurm
simulate: true
runners: [mi355x-disagg, gb200, b200-multinode]
nodes: 8
gpus-per-node: 8
gpu: mi355x
partition: batch
time-limit: 120
engines:
  sim: { speed: 50, stand-in-model: deepseek-r1 }
`;

/** The script each framework's launcher runs for a row. */
function scriptOf(row: MultiNodeRow): string {
  const base = `benchmarks/multi_node/${row['model-prefix']}_${row.precision}`;
  if (row.framework === 'llmd-vllm') return `${base}_gb200_llmd-vllm-disagg.sh`;
  if (row.framework === 'tilert') return `${base}_b200_tilert-disagg.sh`;
  return `${base}_mi355x_${row.framework}.sh`;
}

interface DryRunLaunch {
  status: string;
  reasons?: string[];
  nodes: number;
  jobScript: { path: string; jobs: { argv: string[]; env: Record<string, string> }[]; problem?: string };
}

describe('the dry run of every job-script row of the fixture sweep', () => {
  it(
    'runs each row’s script against the stand-ins and shows the job it submits, as submit.sh derives it from the row',
    { timeout: 240_000 },
    async () => {
      expect(FRAMEWORKS.map((f) => rows.filter((r) => r.framework === f).length > 0)).toEqual(FRAMEWORKS.map(() => true));
      const dir = tempFiles({ 'clusters/mi355x.yaml': PROFILE, 'matrix.json': JSON.stringify(rows) });
      const dry = await runCliAsync(
        [
          'run',
          '--dry-run',
          '--format',
          'json',
          '--matrix',
          join(dir, 'matrix.json'),
          '--clusters',
          join(dir, 'clusters'),
          '--cluster',
          'mi355x',
          '--inferencex',
          TREE,
        ],
        { cwd: dir },
      );
      expect(dry.stderr).toBe('');
      const launches = (JSON.parse(dry.stdout) as { launches: DryRunLaunch[] }).launches;
      expect(launches).toHaveLength(rows.length);
      launches.forEach((launch, i) => {
        const row = rows[i]!;
        const where = `${row.framework} ${row['model-prefix']} ${row.precision} ${row.conc.join(',')}`;
        expect(launch.status, `${where}: ${launch.reasons?.join('; ')}`).toBe('ready');
        expect(launch.jobScript.path).toBe(scriptOf(row));
        expect(launch.jobScript.problem, where).toBeUndefined();
        expect(launch.jobScript.jobs, where).toHaveLength(1);
        const [job] = launch.jobScript.jobs;
        const nodes = Number(setting(row, 'PREFILL_NODES')) + Number(setting(row, 'DECODE_NODES'));
        const flag = (name: string): string | undefined => {
          const at = job!.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
          return job!.argv[at] === name ? job!.argv[at + 1] : job!.argv[at]?.slice(name.length + 1);
        };
        expect(launch.nodes).toBe(nodes);
        if (row.framework === 'tilert') {
          // TileRT allocates its nodes and runs its steps itself: the dry run stops at the allocation.
          expect([job!.argv[0], flag('--nodes'), flag('--partition')]).toEqual(['salloc', String(nodes), 'batch']);
          expect(job!.argv).toContain('--no-shell');
          return;
        }
        expect([job!.argv[0], flag('-N'), flag('--partition')]).toEqual(['sbatch', String(nodes), 'batch']);
        expect(job!.argv.at(-1)).toMatch(/job\.slurm$/);
        expect(job!.env, where).toMatchObject({
          BENCH_INPUT_LEN: String(row.isl),
          BENCH_OUTPUT_LEN: String(row.osl),
          BENCH_MAX_CONCURRENCY: row.conc.join('x'),
          IS_MULTINODE: 'true',
          RUN_EVAL: 'false',
        });
        if (row.framework === 'llmd-vllm') {
          expect(job!.env.CONFIG_FILE).toBe(setting(row, 'CONFIG_FILE'));
          return;
        }
        // What AMD's job gets is submit.sh's reading of the workflow's variables for this row.
        const w = (role: MultiNodeRow['prefill'], n: string) => ({
          tp: String((Number(n) * role.tp) / role['num-worker']),
          ep: String(role.ep > 1),
          dp: String(role['dp-attn']),
        });
        const prefill = w(row.prefill, setting(row, 'PREFILL_NODES')!);
        const decode = w(row.decode, setting(row, 'DECODE_NODES')!);
        expect(job!.env, where).toMatchObject({
          ENGINE: row.framework,
          DOCKER_IMAGE_NAME: row.image,
          MODEL_NAME: row.model.split('/').pop(),
          xP: String(row.prefill['num-worker']),
          yD: String(row.decode['num-worker']),
          PREFILL_TP_SIZE: prefill.tp,
          PREFILL_ENABLE_EP: prefill.ep,
          PREFILL_ENABLE_DP: prefill.dp,
          DECODE_TP_SIZE: decode.tp,
          DECODE_ENABLE_EP: decode.ep,
          DECODE_ENABLE_DP: decode.dp,
          NUM_NODES: String(nodes),
        });
        if (setting(row, 'DECODE_MTP_SIZE') !== undefined) expect(job!.env.DECODE_MTP_SIZE).toBe(setting(row, 'DECODE_MTP_SIZE'));
      });
    },
  );

  it('a cluster without Slurm cannot run them: a reason, not a stack trace', () => {
    const local = simCluster({ nodes: 4, gpusPerNode: 8 });
    const [g] = planRun([rows[0]!], local.name);
    const plan = planLaunch(g!, { cluster: local, frontierCommand: FRONTIER, tree: openTree(TREE) });
    if (plan.kind !== 'cannot-run') throw new Error(`planned as ${plan.kind}`);
    expect(plan.reasons.join('\n')).toContain('submits its own Slurm job (sbatch): it runs on a Slurm cluster');
  });
});

/** Processes still running whose environment points into `dir` (what a run's stand-ins start). */
function leftovers(dir: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d)))
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`=${dir}/`)) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  return pids;
}

describe('frontier run on job-script rows, on the test Slurm cluster', () => {
  let slurm: LocalSlurm;
  beforeAll(async () => {
    slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 8 });
  }, 120_000);
  afterAll(async () => {
    await slurm?.stop();
  });

  it(
    'each script runs its job, whose containers serve the row on the sim, as the script places them; every point ingests',
    { timeout: 300_000 },
    async () => {
      const one = (framework: string, model: RegExp): MultiNodeRow => {
        const row = rows.find(
          (r) =>
            r.framework === framework &&
            setting(r, 'PREFILL_NODES') === '1' &&
            setting(r, 'DECODE_NODES') === '1' &&
            model.test(r.model),
        )!;
        return { ...row, conc: [Math.min(...row.conc)], 'run-eval': false };
      };
      const picked = [one('sglang-disagg', /R1/), one('atom-disagg', /V4/), one('tilert', /GLM/)];
      const cluster: ClusterProfile = simCluster({
        name: 'test-slurm',
        scheduler: 'slurm',
        partition: slurm.partition,
        nodes: 2,
        gpusPerNode: 8,
        timeLimitMinutes: 10,
        engines: { sim: { speed: 50, 'stand-in-model': 'deepseek-r1' } },
      });
      const out = join(tempFiles({}), 'run');
      const env = { ...process.env, ...slurm.env };
      const { manifest, dir } = await run({
        rows: picked,
        matrix: { file: 'matrix.json', text: JSON.stringify(picked) },
        cluster,
        out,
        executor: slurmExecutor({ env, frontierCommand: FRONTIER, pollMs: 200 }),
        frontierVersion: 'test',
        frontierCommand: FRONTIER,
        commit: null,
        inferencex: openTree(TREE),
      });
      expect(manifest.points.map((p) => `${p.status} ${p.error ?? ''}`.trim())).toEqual(['ok', 'ok', 'ok']);
      // What started where, as each script places it: AMD's job runs a container per node (docker),
      // prefill server, router and benchmark on the first, decode server on the second; TileRT's
      // script allocates the nodes and starts a container per role (pyxis), the decode server on
      // the first node, the prefill server, router and benchmark on the second.
      const amd = {
        job: /^sbatch .*job\.slurm$/,
        containers: [/^docker run /, ['n1', 'n2']],
        prefill: [/kv_producer|--disaggregation-mode prefill/, 'n1'],
        decode: [/kv_consumer|--disaggregation-mode decode/, 'n2'],
        router: 'n1',
        logs: /^benchmark_logs$/,
      } as const;
      const expected = [
        amd,
        amd,
        {
          job: /^salloc .*--no-shell/,
          containers: [/^srun --jobid=\d+ .*--container-image=/, ['submit host', 'submit host']],
          prefill: [/^vllm serve .*kv_producer/, 'n2'],
          decode: [/tilert\.pd_vllm\.decode_server/, 'n1'],
          router: 'n2',
          logs: /^tilert_decode\.log$/,
        },
      ] as const;
      for (const [i, g] of manifest.launches.entries()) {
        const row = picked[i]!;
        const want = expected[i]!;
        const p = manifest.points[i]!;
        const raw = JSON.parse(readFileSync(dir.rawFile(p.resultFilename), 'utf8')) as {
          max_concurrency: number;
          completed: number;
        };
        // The script's client command line drove frontier bench: its concurrency, ten prompts per (at least 16).
        expect(raw.max_concurrency).toBe(row.conc[0]);
        expect(raw.completed).toBe(Math.max(16, 10 * row.conc[0]!));
        const started = JSON.parse(readFileSync(join(out, g.logs!, 'processes.json'), 'utf8')) as {
          processes: { node: string; kind: string; argv: string[] }[];
        };
        const where = (kind: string, match: RegExp) =>
          started.processes.filter((x) => x.kind === kind && match.test(x.argv.join(' '))).map((x) => x.node);
        expect(where('job', want.job), row.framework).toEqual(['submit host']);
        expect(where('container', want.containers[0]).sort(), row.framework).toEqual(want.containers[1]);
        expect(where('engine', want.prefill[0]), row.framework).toEqual([want.prefill[1]]);
        expect(where('engine', want.decode[0]), row.framework).toEqual([want.decode[1]]);
        expect(where('frontend', /./), row.framework).toEqual([want.router]);
        expect(where('client', /benchmark_serving\.py/), row.framework).toEqual([want.router]);
        // The job's logs are kept; its allocation is over (TileRT's script leaves it: it is cancelled).
        expect(readdirSync(join(out, g.logs!)), row.framework).toEqual(
          expect.arrayContaining([expect.stringMatching(want.logs)]),
        );
        const { stdout } = await execFileAsync('scontrol', ['show', 'job', g.job!, '-o'], { env });
        expect(/JobState=(\S+)/.exec(stdout)?.[1], row.framework).toMatch(/^(COMPLETED|CANCELLED)$/);
      }
      expect(leftovers(out)).toEqual([]);
      const db = join(tempFiles({}), 'store.db');
      const ingest = await runCliAsync(['ingest', out, '--run-id', 'ix-job-script', '--db', db]);
      expect(ingest.stderr).toBe('');
      expect(ingest.stdout).toContain('points: 3 (3 new)');
    },
  );
});
