// A disaggregated srt-slurm recipe row on the test Slurm cluster (slurmctld and two slurmd on this
// host), simulating: one srun step per process srtctl would start, each under the stand-ins (the
// workers become the sim in their role, the frontend the sim's router), then a bench per concurrency.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMasterConfigs, loadRunners } from '../../src/catalog/index.js';
import { loadRecipeBook, openTree, recipeOf } from '../../src/plan/index.js';
import { run, slurmExecutor } from '../../src/launch/index.js';
import { generateFullSweep, isAgenticRow, isMultiNodeRow } from '../../src/matrix/index.js';
import type { MultiNodeRow } from '../../src/matrix/index.js';
import { CLI, inferencexTree, runCliAsync, tempFiles, jobPorts } from '../helpers.js';
import { startSlurm } from '../support/slurm.js';
import type { LocalSlurm } from '../support/slurm.js';
import { simCluster, pointStatuses } from './fixtures.js';

const nextPort = jobPorts(3);

const RECIPE = 'recipes/sglang/qwen3.5/gb200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml';

let slurm: LocalSlurm;
let root: string;
let row: MultiNodeRow;

beforeAll(async () => {
  slurm = await startSlurm({ nodes: 2, cpusPerNode: 2, gpusPerNode: 4 });
  root = inferencexTree('checkout');
  mkdirSync(join(root, 'runners'), { recursive: true });
  writeFileSync(join(root, 'benchmarks/benchmark_lib.sh'), '');
  const configs = await loadMasterConfigs([join(root, 'configs/nvidia-master.yaml'), join(root, 'configs/amd-master.yaml')]);
  const runners = await loadRunners(join(root, 'configs/runners.yaml'));
  const rows = generateFullSweep(configs.value.entries, runners.value!, {});
  row = rows.find(
    (r): r is MultiNodeRow => isMultiNodeRow(r) && !isAgenticRow(r) && recipeOf(r) === RECIPE && r.runner === 'gb200',
  )!;
  row = { ...row, conc: [1, 2] };
}, 120_000);

afterAll(async () => {
  await slurm?.stop();
});

describe('a recipe row on Slurm, simulating', () => {
  it(
    'runs every process srtctl would start as a step of one job, under the stand-ins, and the run ingests',
    { timeout: 240_000 },
    async () => {
      const tree = openTree(root);
      const out = join(tempFiles({}), 'run');
      const cluster = simCluster({
        name: 'test-slurm',
        scheduler: 'slurm',
        nodes: 2,
        gpusPerNode: 4,
        partition: slurm.partition,
        timeLimitMinutes: 10,
        healthCheck: { attempts: 300, intervalSeconds: 0.2 },
        engines: { sim: { speed: 100 } },
      });
      const { manifest, dir } = await run({
        rows: [row],
        matrix: { file: 'matrix.json', text: JSON.stringify([row]) },
        cluster,
        out,
        executor: slurmExecutor({
          env: { ...process.env, ...slurm.env },
          frontierCommand: [process.execPath, CLI],
          basePort: nextPort(),
          pollMs: 200,
        }),
        frontierVersion: 'test',
        frontierCommand: [process.execPath, CLI],
        commit: null,
        inferencex: tree,
        recipes: await loadRecipeBook(tree, [row]),
      });
      expect(pointStatuses(manifest)).toEqual(['1:ok', '2:ok']);
      expect(manifest.launches[0]!.job).toMatch(/^\d+$/);
      const logs = join(dir.root, manifest.launches[0]!.logs!);
      // One log per process srtctl starts, as steps of the job.
      expect(readdirSync(logs)).toEqual(
        expect.arrayContaining(['prefill-0.log', 'decode-0.log', 'frontend-0.log', 'job.sbatch']),
      );
      expect(readFileSync(join(logs, 'job.sbatch'), 'utf8')).toMatch(/srun .*prefill-0\.log/);
      const db = join(tempFiles({}), 'frontier.db');
      const ingest = await runCliAsync(['ingest', out, '--run-id', 'recipe-slurm', '--db', db]);
      expect(ingest.stderr).toBe('');
      expect(ingest.stdout).toContain('points: 2 (2 new)');
    },
  );
});
