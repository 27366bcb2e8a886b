// Run-to-run variation through `frontier run` on a simulating cluster (`sim: run-variation`):
// every kind of launch that runs the simulated engine hands the plan's variation to it, and each
// sim's banner says the factor its node drew: the sim adapter's servers (flags), an InferenceX
// single-node script's engine and an srt-slurm recipe's workers (the stand-ins, from variables),
// a job script's environment (the same variables).
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRecipeBook, openTree, planLaunch, planRun, recipeOf } from '../../src/plan/index.js';
import type { InferencexTree } from '../../src/plan/index.js';
import { goldenFor, localExecutor, run } from '../../src/launch/index.js';
import { setUpJobScript } from '../../src/launch/inferencex/job-script.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import type { MatrixRow, MultiNodeRow, SingleNodeRow } from '../../src/matrix/index.js';
import { launchSeed, nodeSeed, runFactor } from '../../src/sim/index.js';
import { CLI, inferencexTree, tempFiles } from '../helpers.js';
import { FIXTURE_TREE, fixtureSweep, simCluster, singleRow, strays } from './fixtures.js';

const CV = 0.03;
const SEED = 7;
const FRONTIER = [process.execPath, CLI];

/** The banner line of a sim whose node drew from the seed of `node` in launch `id`. */
const bannerLine = (id: string, node: string): string =>
  `  run variation: CV 3%, this launch's factor ${runFactor(CV, nodeSeed(launchSeed(SEED, id), node)).toFixed(3)}\n`;

let all: MatrixRow[];
let tree: InferencexTree;

beforeAll(async () => {
  all = await fixtureSweep();
  // The fixture checkout with its srt-slurm recipes where InferenceX keeps them.
  const root = inferencexTree('checkout');
  for (const part of ['benchmarks', 'runners']) cpSync(join(FIXTURE_TREE, part), join(root, part), { recursive: true });
  tree = openTree(root);
}, 120_000);

const cluster = (o: Partial<ClusterProfile> = {}): ClusterProfile =>
  simCluster({
    nodes: 4,
    gpusPerNode: 8,
    timeLimitMinutes: 10,
    engines: { sim: { speed: 100 } },
    sim: { runVariation: CV, seed: SEED },
    ...o,
  });

async function runRows(rows: MatrixRow[], c: ClusterProfile, o: { inferencex?: InferencexTree; recipes?: boolean } = {}) {
  const out = join(tempFiles({}), 'run');
  const recipes = o.recipes && o.inferencex ? await loadRecipeBook(o.inferencex, rows, await goldenFor(o.inferencex)) : undefined;
  const result = await run({
    rows,
    matrix: { file: 'matrix.json', text: JSON.stringify(rows) },
    cluster: c,
    out,
    executor: localExecutor,
    frontierVersion: 'test',
    frontierCommand: FRONTIER,
    commit: null,
    ...(o.inferencex ? { inferencex: o.inferencex } : {}),
    ...(recipes ? { recipes } : {}),
  });
  expect(result.manifest.points.map((p) => `${p.conc}:${p.status} ${p.error ?? ''}`.trim())).toEqual(
    result.manifest.points.map((p) => `${p.conc}:ok`),
  );
  expect(strays(out)).toEqual([]);
  return { ...result, logs: join(result.dir.root, result.manifest.launches[0]!.logs!) };
}

describe('frontier run with sim: run-variation', () => {
  it('the sim adapter: its server draws the factor of the launch’s node0', async () => {
    // Llama-3.1-8B steps fast: at the speed of the DeepSeek rows below its tokens would come out together.
    const { manifest, logs } = await runRows([singleRow({ conc: 2 })], cluster({ engines: { sim: { speed: 4 } } }));
    const log = readFileSync(join(logs, 'server.log'), 'utf8');
    expect(log).toContain(bannerLine(manifest.launches[0]!.id, 'node0'));
  }, 120_000);

  it('an InferenceX single-node script: its engine’s stand-in serves the sim with the factor of node0', async () => {
    const row = all
      .filter(
        (r): r is SingleNodeRow =>
          !('prefill' in r) && r.runner === 'h200' && r.framework === 'sglang' && r.model === 'deepseek-ai/DeepSeek-R1-0528',
      )
      .sort((a, b) => a.conc - b.conc)[0]!;
    const { manifest, logs } = await runRows(
      [{ ...row, 'run-eval': false }],
      cluster({ nodes: 1, engines: { sim: { speed: 20 } } }),
      {
        inferencex: tree,
      },
    );
    expect(manifest.launches[0]!.engine).toContain('(stand-ins: sim)');
    expect(readFileSync(join(logs, 'server.log'), 'utf8')).toContain(bannerLine(manifest.launches[0]!.id, 'node0'));
  }, 120_000);

  it('an srt-slurm recipe: each worker’s stand-in draws the factor of its own node', async () => {
    const row = all.find(
      (r): r is MultiNodeRow =>
        'prefill' in r &&
        recipeOf(r) === 'recipes/sglang/qwen3.5/gb200-fp8/8k1k/disagg/mtp/8k1k_mtp_lowlat_0.yaml' &&
        r.runner === 'gb200',
    )!;
    const one: MatrixRow = { ...row, conc: [1] };
    const { manifest, logs } = await runRows([one], cluster(), { inferencex: tree, recipes: true });
    const id = manifest.launches[0]!.id;
    const recipe = JSON.parse(readFileSync(join(logs, 'recipe.json'), 'utf8')) as {
      processes: { name: string; nodes: number[] }[];
    };
    const nodeOf = (name: string): number => recipe.processes.find((p) => p.name === name)!.nodes[0]!;
    expect(nodeOf('prefill-0')).not.toBe(nodeOf('decode-0'));
    for (const worker of ['prefill-0', 'decode-0'])
      expect(readFileSync(join(logs, `${worker}.log`), 'utf8')).toContain(bannerLine(id, `node${nodeOf(worker)}`));
    expect(readFileSync(join(logs, 'frontend-0.log'), 'utf8')).not.toContain('run variation');
  }, 120_000);

  it('a job script: its environment carries the CV and the launch’s seed, which each node’s stand-in mixes with its address', () => {
    const row = all.find((r): r is MultiNodeRow => 'prefill' in r && r.framework === 'sglang-disagg')!;
    const c = cluster({ scheduler: 'slurm', partition: 'batch', gpu: 'mi355x', nodes: 8, timeLimitMinutes: 120 });
    const [launch] = planRun([row], c.name);
    const plan = planLaunch(launch!, { cluster: c, frontierCommand: FRONTIER, tree });
    if (plan.kind !== 'job-script') throw new Error(`expected a job-script plan, got ${plan.kind}`);
    expect(plan.deployment.runVariation).toEqual({ cv: CV, seed: launchSeed(SEED, launch!.id) });
    const work = join(tempFiles({}), 'work');
    const set = setUpJobScript(plan.jobScript, row, c, work, FRONTIER, 'record', plan.deployment.runVariation);
    expect(set.env).toMatchObject({
      FRONTIER_SIM_RUN_VARIATION: String(CV),
      FRONTIER_SIM_RUN_SEED: String(launchSeed(SEED, launch!.id)),
    });
    // Not the node: each node's container names its own (FRONTIER_NODE_ADDR).
    expect(set.env).not.toHaveProperty('FRONTIER_SIM_RUN_NODE');
    const exact = setUpJobScript(plan.jobScript, row, c, join(tempFiles({}), 'work'), FRONTIER, 'record');
    expect(Object.keys(exact.env).filter((k) => k.startsWith('FRONTIER_SIM_RUN_'))).toEqual([]);
  });
});
