// The sbatch scripts `frontier run` submits for GPU engines, on the example Slurm profile (enroot
// containers, partition, account, routing): goldens, bash -n and shellcheck.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunDir, jobFor } from '../../src/launch/index.js';
import { planLaunch, planRun } from '../../src/plan/index.js';
import { loadClusterProfile } from '../../src/clusters/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { REPO } from '../helpers.js';
import { disaggRow, singleRow } from './fixtures.js';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const GOLDEN = join(REPO, 'test/launch/golden');
const TMP = mkdtempSync(join(tmpdir(), 'frontier-sbatch-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
// The profile keeps DeepSeek-V4 under ${SCRATCH}.
beforeAll(() => vi.stubEnv('SCRATCH', '/scratch'));
afterAll(() => vi.unstubAllEnvs());

const CASES: { name: string; row: MatrixRow }[] = [
  {
    name: 'vllm-tp8',
    row: singleRow({
      framework: 'vllm',
      model: 'deepseek-ai/DeepSeek-R1-0528',
      'model-prefix': 'dsr1',
      runner: 'b300',
      tp: 8,
      conc: 64,
      image: 'vllm/vllm-openai:v0.25.0',
    }),
  },
  {
    name: 'dynamo-sglang-1p1d',
    row: disaggRow({
      runner: 'b300',
      model: 'deepseek-ai/DeepSeek-V4-Pro',
      'model-prefix': 'dsv4',
      'exp-name': 'dsv4_1k32',
      precision: 'fp4',
      prefill: { ...disaggRow().prefill, 'additional-settings': ['CONFIG_FILE=recipes/sglang/deepseek-v4/1p1d.yaml'] },
    }),
  },
];

describe('sbatch scripts for GPU engines', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: golden, bash -n, shellcheck', async (name, c) => {
    const cluster = await loadClusterProfile(join(REPO, 'examples/clusters/example-slurm.yaml'));
    const [g] = planRun([c.row], cluster.name);
    const plan = planLaunch(g!, { cluster, frontierCommand: ['frontier'] });
    expect(plan.kind === 'cannot-run' ? plan.reasons : []).toEqual([]);
    if (plan.kind !== 'adapter') throw new Error(`planned as ${plan.kind}`);
    // With the GPU power monitor a run gives its jobs (a fixed clock anchor: the golden stays put).
    const power = { clockAnchorMs: 1_767_225_600_000, intervalMs: 1000 };
    const { script } = jobFor(plan, g!.points, new RunDir('/runs/example'), cluster, {
      frontier: ['frontier'],
      basePort: 8000,
      power,
    });
    const golden = join(GOLDEN, `${name}.sbatch`);
    if (UPDATE) writeFileSync(golden, script);
    expect(existsSync(golden), `run UPDATE_GOLDEN=1 npx vitest run ${__filename}`).toBe(true);
    expect(script).toBe(readFileSync(golden, 'utf8'));
    const file = join(TMP, `${name}.sbatch`);
    writeFileSync(file, script);
    expect(spawnSync('bash', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
    const lint = spawnSync('shellcheck', ['-s', 'bash', file], { encoding: 'utf8' });
    expect(lint.stdout).toBe('');
  });
});
