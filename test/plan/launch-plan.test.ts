import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterProfile } from '../../src/clusters/index.js';
import { goldenFor } from '../../src/launch/index.js';
import type { MatrixRow } from '../../src/matrix/index.js';
import { loadRecipeBook, openTree, planLaunch, planRun } from '../../src/plan/index.js';
import type { InferencexTree, LaunchKind, LaunchPlan, RecipeBook } from '../../src/plan/index.js';
import type { GoldenFile } from '../../src/specdec/golden.js';
import { inferencexTree } from '../helpers.js';
import { FIXTURE_TREE, fixtureSweep, simCluster } from '../launch/fixtures.js';

/**
 * One launch plan per kind, over the real InferenceX rows of the fixture checkout (its full sweep,
 * its scripts, launchers and srt-slurm recipes), on a simulating local cluster, a simulating Slurm
 * cluster and a real Slurm cluster that runs recipes with srtctl. Each plan is held to a golden
 * (UPDATE_GOLDEN=1 rewrites them): a change to how a row runs shows here as a diff.
 */

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const GOLDEN = join(__dirname, '..', 'fixtures', 'launch-plans');

const ROUTING = [
  {
    match: {},
    toolchain: { repo: 'https://github.com/NVIDIA/srt-slurm.git', commit: 'c1b6b5c97f323baefad577d70c4e8392b6f537d9' },
    flags: [],
  },
];

const CLUSTERS: Record<string, { cluster: ClusterProfile; kinds: LaunchKind[] }> = {
  'local-sim': {
    cluster: simCluster({ name: 'local-sim', nodes: 16, gpusPerNode: 8 }),
    kinds: ['adapter', 'script', 'recipe', 'cannot-run'],
  },
  'slurm-sim': {
    cluster: simCluster({
      name: 'slurm-sim',
      scheduler: 'slurm',
      nodes: 16,
      gpusPerNode: 8,
      partition: 'batch',
      routing: ROUTING,
    }),
    kinds: ['adapter', 'script', 'recipe', 'job-script', 'cannot-run'],
  },
  'slurm-srtctl': {
    cluster: simCluster({
      name: 'slurm-srtctl',
      scheduler: 'slurm',
      simulate: false,
      gpu: 'gb200',
      nodes: 64,
      gpusPerNode: 4,
      partition: 'batch',
      routing: ROUTING,
      srtctl: { root: '/srv/srt-slurm/{commit}', command: ['srtctl'] },
    }),
    kinds: ['adapter', 'script', 'srtctl', 'cannot-run'],
  },
};

let tree: InferencexTree;
let rows: MatrixRow[];
let recipes: RecipeBook;
let golden: GoldenFile[];

beforeAll(async () => {
  // The fixture checkout with its srt-slurm recipes where InferenceX keeps them.
  const root = inferencexTree('checkout');
  for (const part of ['benchmarks', 'runners']) cpSync(join(FIXTURE_TREE, part), join(root, part), { recursive: true });
  tree = openTree(root);
  rows = await fixtureSweep();
  golden = await goldenFor(tree);
  recipes = await loadRecipeBook(tree, rows, golden);
}, 120_000);

/** What a plan decided, without what depends on this machine (paths, core counts). */
function summaryOf(plan: LaunchPlan): Record<string, unknown> {
  const head = { kind: plan.kind, label: plan.launch.label, concs: plan.launch.points.map((p) => p.conc) };
  if (plan.kind === 'cannot-run') return { ...head, reasons: plan.reasons.map((r) => r.replaceAll(tree.root, '<checkout>')) };
  const { frontierCommand: _command, hostCores: _cores, evalAnswers: _answers, ...deployment } = plan.deployment;
  const common = { ...head, engine: plan.engine, gpus: plan.gpus, nodes: plan.nodes, simulated: plan.simulated, deployment };
  switch (plan.kind) {
    case 'adapter':
      return { ...common, framework: plan.adapter.frameworks, placement: plan.placement, notes: plan.notes };
    case 'script': {
      const { tree: _tree, rule: _rule, ...script } = plan.script;
      return { ...common, script };
    }
    case 'recipe':
      return { ...common, recipe: recipeSummary(plan.recipe) };
    case 'srtctl':
      return {
        ...common,
        configFile: plan.configFile,
        root: plan.root,
        submit: plan.submit,
        recipe: plan.recipe && recipeSummary(plan.recipe),
      };
    case 'job-script': {
      const { tree: _tree, rule, ...jobScript } = plan.jobScript;
      return { ...common, jobScript: { ...jobScript, job: rule.job } };
    }
  }
}

const recipeSummary = (r: {
  configFile: string;
  path: string;
  selector?: string | undefined;
  rendered: { name: string; nodes: number };
}) => ({
  configFile: r.configFile,
  path: r.path,
  selector: r.selector,
  name: r.rendered.name,
  nodes: r.rendered.nodes,
});

describe('launch plans of real InferenceX rows', () => {
  it.each(Object.keys(CLUSTERS))('%s: the first launch of each kind, as the golden has it', (name) => {
    const { cluster, kinds } = CLUSTERS[name]!;
    const firsts = new Map<LaunchKind, Record<string, unknown>>();
    for (const launch of planRun(rows, cluster.name)) {
      const plan = planLaunch(launch, { cluster, frontierCommand: ['frontier'], tree, recipes, golden });
      if (!firsts.has(plan.kind)) firsts.set(plan.kind, summaryOf(plan));
    }
    expect([...firsts.keys()].sort()).toEqual([...kinds].sort());
    const text = `${JSON.stringify(Object.fromEntries([...firsts].sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`;
    const file = join(GOLDEN, `${name}.json`);
    if (UPDATE) writeFileSync(file, text);
    expect(existsSync(file), `run UPDATE_GOLDEN=1 npx vitest run ${__filename}`).toBe(true);
    expect(text).toBe(readFileSync(file, 'utf8'));
  });
});
