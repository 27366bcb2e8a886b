// llm-d rows (framework llmd-vllm, runners/launch_gb200-nv.sh) end to end on the test Slurm
// cluster: the launcher's squash import, then the checkout's llm-d wrapper, its submit.sh and
// job.slurm (pyxis: srun --container-image, one container per node), server.sh in each: vLLM
// prefill and decode servers, the P/D sidecar, the EPP and Envoy, the benchmark client, all under
// the stand-ins on the simulated engine. The cluster is shaped as GB200's (four nodes of four GPUs),
// for this test only.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTree } from '../../src/plan/index.js';
import { run, slurmExecutor } from '../../src/launch/index.js';
import type { RunManifest } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MultiNodeRow } from '../../src/matrix/index.js';
import { CLI, runCliAsync, tempFiles } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { FIXTURE_TREE, fixtureSweep, simCluster, strays } from './fixtures.js';

const execFileAsync = promisify(execFile);
const FRONTIER = [process.execPath, CLI];

const setting = (row: MultiNodeRow, name: string): string | undefined =>
  [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])]
    .find((s) => s.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** Processes still running whose environment points into `dir` (what the job's stand-ins start). */
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

interface Started {
  node: string;
  kind: string;
  argv: string[];
  env: Record<string, string>;
}

/**
 * What server.sh writes in its container's /tmp and the mount points of its config files (/etc/epp…):
 * the container's own, never this host's.
 */
const HOST_PATHS = ['/tmp/endpoints.yaml', '/tmp/epp-config-from-recipe.yaml', '/etc/epp', '/etc/envoy', '/etc/llmd-recipes'];

describe('frontier run on llm-d rows, on the test Slurm cluster', () => {
  let slurm: LocalSlurm;
  let rows: MultiNodeRow[];
  beforeAll(async () => {
    // GB200's shape: the rows' 2 prefill and 2 decode nodes of 4 GPUs each.
    slurm = await startSlurm({ nodes: 4, cpusPerNode: 2, gpusPerNode: 4 });
    rows = (await fixtureSweep()).filter((r): r is MultiNodeRow => 'prefill' in r && r.framework === 'llmd-vllm');
  }, 120_000);
  afterAll(async () => {
    await slurm?.stop();
  });

  /** Run the row of the key whose recipe is `configFile` at concurrency `conc`; check what every run must do. */
  async function runKey(
    configFile: string,
    conc: number,
  ): Promise<{ manifest: RunManifest; logs: string; processes: Started[]; raw: { max_concurrency: number; completed: number } }> {
    const row = rows.find((r) => setting(r, 'CONFIG_FILE') === configFile);
    expect(row, `the fixture sweep has the llm-d row of ${configFile}`).toBeDefined();
    expect([setting(row!, 'PREFILL_NODES'), setting(row!, 'DECODE_NODES'), setting(row!, 'GPUS_PER_NODE')]).toEqual([
      '2',
      '2',
      '4',
    ]);
    const picked: MultiNodeRow = { ...row!, conc: [conc], 'run-eval': false };
    const cluster: ClusterProfile = simCluster({
      name: 'test-slurm',
      scheduler: 'slurm',
      partition: slurm.partition,
      nodes: 4,
      gpusPerNode: 4,
      timeLimitMinutes: 10,
      // The sim has no DeepSeek-V4: it stands in with R1.
      engines: { sim: { speed: 50, 'stand-in-model': 'deepseek-r1' } },
    });
    const onHost = HOST_PATHS.filter((f) => existsSync(f));
    const out = join(tempFiles({}), 'run');
    const env = { ...process.env, ...slurm.env };
    const { manifest, dir } = await run({
      rows: [picked],
      matrix: { file: 'matrix.json', text: JSON.stringify([picked]) },
      cluster,
      out,
      executor: slurmExecutor({ env, frontierCommand: FRONTIER, pollMs: 200 }),
      frontierVersion: 'test',
      frontierCommand: FRONTIER,
      commit: null,
      inferencex: openTree(FIXTURE_TREE),
    });
    expect(manifest.points.map((p) => `${p.status} ${p.error ?? ''}`.trim())).toEqual(['ok']);
    const [g] = manifest.launches;
    const [p] = manifest.points;
    const raw = JSON.parse(readFileSync(dir.rawFile(p!.resultFilename), 'utf8')) as {
      max_concurrency: number;
      completed: number;
    };
    const logs = join(out, g!.logs!);
    // server.sh's result (<RESULT_FILENAME>_c<conc>_gpus_16_ctx_8_gen_8.json: 2 + 2 nodes of 4 GPUs),
    // every node's vLLM log, the coordinator's EPP and Envoy logs, job.slurm's per-rank logs.
    expect(readdirSync(join(logs, 'benchmark_logs'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`_c${conc}_gpus_16_ctx_8_gen_8\\.json$`)),
        'epp.log',
        'envoy.log',
        'sidecar_rank2.log',
        ...[0, 1, 2, 3].map((r) => `vllm_rank${r}.log`),
        ...[0, 1, 2, 3].map((r) => expect.stringMatching(new RegExp(`^slurm_job-\\d+_rank_${r}\\.log$`))),
      ]),
    );
    const { processes } = JSON.parse(readFileSync(join(logs, 'processes.json'), 'utf8')) as { processes: Started[] };

    // The job is over (job.slurm's watcher cancels it once the coordinator is done), nothing is left.
    const { stdout } = await execFileAsync('scontrol', ['show', 'job', g!.job!, '-o'], { env });
    expect(/JobState=(\S+)/.exec(stdout)?.[1]).toMatch(/^(COMPLETED|CANCELLED)$/);
    const { stdout: queue } = await execFileAsync('squeue', ['-h', '-o', '%i'], { env });
    expect(queue.trim()).toBe('');
    expect(leftovers(out)).toEqual([]);
    expect(strays(out)).toEqual([]);
    expect(HOST_PATHS.filter((f) => existsSync(f))).toEqual(onHost);
    // The workspace (the checkout's copy the job ran in) is gone once its logs are kept.
    expect(existsSync(join(out, 'work', g!.id))).toBe(false);

    const db = join(tempFiles({}), 'store.db');
    const ingest = await runCliAsync(['ingest', out, '--run-id', `ix-llmd-${conc}`, '--db', db]);
    expect(ingest.stderr).toBe('');
    expect(ingest.stdout).toContain('points: 1 (1 new)');
    return { manifest, logs, processes, raw };
  }

  const where = (processes: Started[], kind: string, match: RegExp): string[] =>
    processes
      .filter((x) => x.kind === kind && match.test(x.argv.join(' ')))
      .map((x) => x.node)
      .sort();

  it(
    'the low-latency key: job.slurm runs server.sh on every node, vLLM, the sidecar, EPP, Envoy and the client where server.sh puts them; the point ingests',
    { timeout: 120_000 },
    async () => {
      const { logs, processes, raw } = await runKey('dsv4-fp4-gb200-low-latency.yaml', 1);
      // The client's command line drove frontier bench through Envoy and the EPP: concurrency 1,
      // ten prompts per but at least 16.
      expect([raw.max_concurrency, raw.completed]).toEqual([1, 16]);
      const at = (kind: string, match: RegExp) => where(processes, kind, match);
      // The wrapper's submission, from the runner; job.slurm's pyxis step, from the batch host.
      expect(at('job', /^sbatch .*-N 4 .*--gres=gpu:4 .*job\.slurm$/)).toEqual(['submit host']);
      expect(at('container', /^srun .*--container-image=.*\.sqsh .*--container-mounts=/)).toEqual(['n1']);
      // Prefill: one DEP8 engine over n1 and n2 (hybrid LB, a vLLM per node); decode: one pure-TP8
      // engine, its leader on n3 and a headless follower on n4.
      expect(at('engine', /^vllm serve \/models .*kv_producer.*--data-parallel-size 8 .*--data-parallel-hybrid-lb/)).toEqual([
        'n1',
        'n2',
      ]);
      expect(at('engine', /^vllm serve \/models .*--tensor-parallel-size 8 .*kv_consumer.*--node-rank 0/)).toEqual(['n3']);
      expect(at('engine', /^vllm serve \/models .*kv_consumer.*--node-rank 1 --headless/)).toEqual(['n4']);
      expect(Object.fromEntries(processes.filter((x) => x.kind === 'engine').map((x) => [x.node, x.env.NODE_RANK]))).toEqual({
        n1: '0',
        n2: '1',
        n3: '2',
        n4: '3',
      });
      // The decode leader is the coordinator: sidecar (the pure-TP decode's leader only), EPP,
      // Envoy and the client.
      expect(at('proxy', /^pd-sidecar --port=8000 --vllm-port=8200 --kv-connector=nixlv2/)).toEqual(['n3']);
      expect(at('frontend', /^epp .*--pool-namespace=inferencex --config-file=\/tmp\/epp-config-from-recipe\.yaml/)).toEqual([
        'n3',
      ]);
      expect(at('proxy', /^envoy -c \/etc\/envoy\/envoy\.yaml$/)).toEqual(['n3']);
      expect(
        at('client', /benchmark_serving\.py .*--base-url http:\/\/0\.0\.0\.0:8080 .*--num-prompts 16 --max-concurrency 1 /),
      ).toEqual(['n3']);
      expect(processes.map((x) => x.kind).sort()).toEqual(
        ['client', 'container', 'engine', 'engine', 'engine', 'engine', 'frontend', 'job', 'proxy', 'proxy'].sort(),
      );
      // The sim served each engine whole where it starts: the prefill DEP8 on n1 (n2's vLLM a proxy
      // to it), the decode TP8 on n3; the EPP routed over the endpoints server.sh wrote.
      const log = (f: string) => readFileSync(join(logs, 'benchmark_logs', f), 'utf8');
      expect(log('vllm_rank0.log')).toContain('DEP8, prefill role');
      expect(log('vllm_rank1.log')).toContain('a proxy on http://127.0.0.2:8200 to http://127.0.0.1:8200');
      expect(log('vllm_rank2.log')).toContain('TP8, decode role');
      expect(log('vllm_rank3.log')).toContain('is rank 1 of a server whose rank 0 serves it');
      expect(log('epp.log')).toContain(
        'prefill on one of http://127.0.0.1:8200, http://127.0.0.2:8200, then decode on one of http://127.0.0.3:8000',
      );
    },
  );

  it('the mid-curve key: DEP8 decode too, a sidecar on each decode node, both behind the EPP', { timeout: 120_000 }, async () => {
    // The key's own concurrencies are 256 to 1024: a small one keeps the test short.
    const { logs, processes, raw } = await runKey('dsv4-fp4-gb200-mid-curve-megamoe.yaml', 4);
    expect([raw.max_concurrency, raw.completed]).toEqual([4, 40]);
    const at = (kind: string, match: RegExp) => where(processes, kind, match);
    expect(at('engine', /^vllm serve .*kv_producer.*--data-parallel-size 8 .*--data-parallel-hybrid-lb/)).toEqual(['n1', 'n2']);
    expect(at('engine', /^vllm serve .*kv_consumer.*--data-parallel-size 8 .*--data-parallel-hybrid-lb/)).toEqual(['n3', 'n4']);
    expect(at('proxy', /^pd-sidecar /)).toEqual(['n3', 'n4']);
    expect(at('frontend', /^epp /)).toEqual(['n3']);
    expect(at('client', /benchmark_serving\.py .*--num-prompts 40 --max-concurrency 4 /)).toEqual(['n3']);
    const log = (f: string) => readFileSync(join(logs, 'benchmark_logs', f), 'utf8');
    expect(log('vllm_rank2.log')).toContain('DEP8, decode role');
    expect(log('vllm_rank3.log')).toContain('a proxy on http://127.0.0.4:8200 to http://127.0.0.3:8200');
    expect(log('epp.log')).toContain('then decode on one of http://127.0.0.3:8000, http://127.0.0.4:8000');
  });
});
