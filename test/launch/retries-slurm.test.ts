// Retries of flaky launches on a real Slurm (test/support/slurm.ts: slurmctld and two slurmd, n1 and
// n2, on this host): a launch whose first node is bad (its simulated engine crashes at start-up on
// n1, as a broken node's would) is retried on the other node, away from n1 (sbatch --exclude), and
// succeeds; run.json and the store keep both attempts with their nodes and reasons.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, slurmExecutor } from '../../src/launch/index.js';
import type { RunOptions } from '../../src/launch/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { failingNodes, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import { CLI, tempFiles, jobPorts } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { simCluster, singleRow, pointStatuses } from './fixtures.js';

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
    retries: 1,
    ...o,
  });

const nextPort = jobPorts(1);

function runOnSlurm(rows: MatrixRow[], c: ClusterProfile, more: Partial<RunOptions> = {}) {
  return run({
    rows,
    matrix: { file: 'matrix.json', text: JSON.stringify(rows) },
    cluster: c,
    out: join(tempFiles({}), 'run'),
    executor: slurmExecutor({
      env: { ...process.env, ...slurm.env },
      frontierCommand: [process.execPath, CLI],
      basePort: nextPort(),
      pollMs: 200,
    }),
    frontierVersion: 'test',
    frontierCommand: [process.execPath, CLI],
    commit: null,
    ...more,
  });
}

const scontrol = (job: string): string =>
  spawnSync('scontrol', ['show', 'job', job, '-o'], { env: { ...process.env, ...slurm.env }, encoding: 'utf8' }).stdout;

/** The node a step's log says it ran on (slurm-script.ts writes it first). */
const stepNode = (log: string): string | undefined => /^frontier: \S+ on node (\S+)/.exec(readFileSync(log, 'utf8'))?.[1];

describe('retries on Slurm', () => {
  it('a launch whose first node is bad is retried on the other node and succeeds; run.json and the store keep both attempts', async () => {
    const bad = cluster({ engines: { sim: { speed: 4, 'extra-args': '--fault-start-crash-on n1' } } });
    const { manifest, dir } = await runOnSlurm([singleRow({ conc: 1 }), singleRow({ conc: 2 })], bad);
    expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
    expect(manifest.status).toBe('completed');
    const launch = manifest.launches[0]!;
    expect(launch.status).toBe('done');
    const [first, second] = launch.attempts!;
    expect(launch.attempts).toHaveLength(2);

    // The first attempt: its job ran on n1, where the engine crashed before it was ready.
    expect(first).toMatchObject({ attempt: 1, nodes: ['n1'], outcome: 'infrastructure', concs: [1, 2] });
    expect(first!.excluded).toBeUndefined();
    expect(first!.job).toMatch(/^\d+$/);
    expect(first!.reason).toMatch(
      new RegExp(
        `^conc 1: job ${first!.job} ended FAILED without a result for conc 1: server exited \\(exit code 1\\) before the benchmark … frontier sim: crashed at start-up \\(--fault-start-crash-on: node n1\\)$`,
      ),
    );
    const firstLogs = join(dir.root, first!.logs!);
    expect(first!.logs).toBe(`${launch.logs}/attempt-1`);
    expect(stepNode(join(firstLogs, 'server.log'))).toBe('n1');
    expect(readFileSync(join(firstLogs, `slurm-${first!.job}.out`), 'utf8')).toContain('the engine did not become ready');

    // The retry: a new job, told to keep off n1, ran on n2 and measured both points.
    expect(second).toMatchObject({ attempt: 2, nodes: ['n2'], excluded: ['n1'], outcome: 'ok', concs: [1, 2] });
    expect(second!.job).toMatch(/^\d+$/);
    expect(second!.job).not.toBe(first!.job);
    expect(launch.job).toBe(second!.job);
    expect(scontrol(second!.job!)).toMatch(/ExcNodeList=n1\b/);
    expect(stepNode(join(dir.root, launch.logs!, 'server.log'))).toBe('n2');
    // run_stats.json counts matrix rows as InferenceX does, not attempts.
    expect(JSON.parse(readFileSync(join(dir.root, 'run_stats.json'), 'utf8'))).toEqual({
      'test-slurm': { n_success: 2, total: 2 },
    });

    // The store keeps both attempts, and names n1 as the node that failed.
    const store = await openStore(join(mkdtempSync(join(tmpdir(), 'frontier-store-')), 'frontier.db'));
    try {
      const s = await ingestBatch(store, readArtifacts(dir.root, {}));
      expect(s.attempts).toEqual({ total: 2, infrastructure: 1 });
      const rows = await store.db.selectFrom('launch_attempts').selectAll().orderBy('attempt').execute();
      expect(rows.map((r) => [r.attempt, JSON.parse(r.nodes), r.outcome, r.job])).toEqual([
        [1, ['n1'], 'infrastructure', first!.job],
        [2, ['n2'], 'ok', second!.job],
      ]);
      expect(rows[0]!.reason).toBe(first!.reason);
      expect(rows.every((r) => r.cluster === 'test-slurm' && r.launch === launch.id)).toBe(true);
      expect(await failingNodes(store, { minFailures: 1 })).toEqual([
        {
          cluster: 'test-slurm',
          node: 'n1',
          failures: 1,
          attempts: 1,
          last_failure_reason: first!.reason,
          last_failure_at: first!.ended,
          last_failure_run: s.run_id,
          last_failure_launch: launch.label,
          last_failure_job: first!.job,
        },
      ]);
    } finally {
      await store.close();
    }
  }, 180_000);

  it('the profile’s exclude-nodes keep every attempt off those nodes (sbatch --exclude)', async () => {
    const { manifest } = await runOnSlurm([singleRow({ conc: 1 })], cluster({ excludeNodes: ['n1'] }));
    expect(manifest.points.map((p) => p.status)).toEqual(['ok']);
    const [only] = manifest.launches[0]!.attempts!;
    expect(only).toMatchObject({ attempt: 1, nodes: ['n2'], excluded: ['n1'], outcome: 'ok' });
    expect(scontrol(only!.job!)).toMatch(/ExcNodeList=n1\b/);
  }, 120_000);
});
