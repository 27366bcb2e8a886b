import { describe, expect, it } from 'vitest';
import { simServeArgs, runVariationFlags, standInNode } from '../../src/engines/standin/engine.js';
import type { Launch } from '../../src/engines/index.js';
import { onHosts, planLaunch, planRun } from '../../src/plan/index.js';
import type { AdapterPlan, PlannedLaunch } from '../../src/plan/index.js';
import { launchSeed, nodeSeed } from '../../src/sim/index.js';
import { disaggRow, simCluster } from '../launch/fixtures.js';

/**
 * The sim adapter's servers each draw their run-variation factor from a seed of the launch and
 * the worker's node; the stand-ins of InferenceX scripts and recipes mix their node into the
 * launch's seed the same way.
 */

const CLUSTER = simCluster({ nodes: 4, gpusPerNode: 8, sim: { runVariation: 0.03, seed: 11 } });

const w = (tp: number, n: number) => ({ 'num-worker': n, tp, ep: 1, 'dp-attn': false, pp: 1, 'dcp-size': 1, 'pcp-size': 1 });
/** Two TP4 prefill workers (both on node0), two TP8 decode workers (node1, node2). */
const ROW = disaggRow({ prefill: w(4, 2), decode: w(8, 2) });

const planOf = (launch: PlannedLaunch, cluster = CLUSTER): AdapterPlan => {
  const plan = planLaunch(launch, { cluster, frontierCommand: ['frontier'] });
  if (plan.kind !== 'adapter') throw new Error(`expected an adapter plan, got ${plan.kind}`);
  return plan;
};

/** Each process's `--run-seed` (undefined without one), by name. */
function seedsOf(launch: Launch): Record<string, number | undefined> {
  return Object.fromEntries(
    launch.processes.map((p) => {
      const i = p.command.indexOf('--run-seed');
      return [p.name, i < 0 ? undefined : Number(p.command[i + 1])];
    }),
  );
}

/** The plan's launch rendered as an executor does: nodes bound to `address` (or left as the plan names them). */
function render(plan: AdapterPlan, address?: (node: number) => string): Launch {
  let port = 8000;
  return plan.adapter.launch(plan.deployment, address ? onHosts(plan.placement, address) : plan.placement, {
    next: () => port++,
  });
}

describe('the sim adapter with run-to-run variation', () => {
  const [launch] = planRun([ROW], CLUSTER.name);
  const plan = planOf(launch!);
  const seed = launchSeed(11, launch!.id);

  it('gives each server the seed of its node: workers on different nodes apart, on one node alike; the router none', () => {
    expect(plan.placement.workers.map((x) => [x.role, x.index, x.hosts])).toEqual([
      ['prefill', 0, ['node0']],
      ['prefill', 1, ['node0']],
      ['decode', 0, ['node1']],
      ['decode', 1, ['node2']],
    ]);
    const launched = render(plan, () => '127.0.0.1');
    expect(seedsOf(launched)).toEqual({
      'prefill-0': nodeSeed(seed, 'node0'),
      'prefill-1': nodeSeed(seed, 'node0'),
      'decode-0': nodeSeed(seed, 'node1'),
      'decode-1': nodeSeed(seed, 'node2'),
      router: undefined,
    });
    expect(new Set(Object.values(seedsOf(launched)).filter((s) => s !== undefined)).size).toBe(3);
    for (const p of launched.processes.filter((x) => x.role !== 'router')) {
      const i = p.command.indexOf('--run-variation');
      expect(p.command[i + 1]).toBe('0.03');
    }
    expect(launched.processes.find((x) => x.role === 'router')!.command).not.toContain('--run-variation');
  });

  it('the same seeds whatever the executor binds the nodes to, and whenever the launch is planned again', () => {
    const local = seedsOf(render(plan, () => '127.0.0.1'));
    expect(seedsOf(render(plan, (n) => `\${NODES[${n}]}`))).toEqual(local);
    expect(seedsOf(render(plan))).toEqual(local);
    const [again] = planRun([ROW], CLUSTER.name);
    expect(seedsOf(render(planOf(again!), () => '127.0.0.1'))).toEqual(local);
  });

  it('another launch id (a repeat of the same configuration) or cluster seed draws other seeds', () => {
    const local = seedsOf(render(plan, () => '127.0.0.1'));
    const repeat = seedsOf(render(planOf({ ...launch!, id: `${launch!.id}#r2` }), () => '127.0.0.1'));
    const reseeded = seedsOf(
      render(planOf(launch!, simCluster({ ...CLUSTER, sim: { runVariation: 0.03, seed: 12 } })), () => '127.0.0.1'),
    );
    for (const other of [repeat, reseeded])
      for (const name of ['prefill-0', 'decode-0', 'decode-1']) expect(other[name]).not.toBe(local[name]);
  });

  it('renders no variation flag when the cluster sets none', () => {
    const exact = planOf(launch!, simCluster({ nodes: 4, gpusPerNode: 8 }));
    for (const p of render(exact, () => '127.0.0.1').processes) {
      expect(p.command).not.toContain('--run-variation');
      expect(p.command).not.toContain('--run-seed');
    }
  });
});

describe('the engine stand-in with run-to-run variation', () => {
  const env = {
    MODEL: 'meta-llama/Llama-3.1-8B-Instruct',
    FRONTIER_SIM_GPU: 'h100',
    PRECISION: 'fp8',
    TP: '1',
    FRONTIER_SIM_RUN_VARIATION: '0.03',
    FRONTIER_SIM_RUN_SEED: '1234',
  };

  it('forwards the CV, with the launch’s seed mixed with its node: nodes apart, one node alike', () => {
    const on = (node: Record<string, string>) => runVariationFlags({ ...env, ...node });
    expect(on({ FRONTIER_NODE_ADDR: '127.0.0.2' })).toEqual([
      '--run-variation',
      '0.03',
      '--run-seed',
      String(nodeSeed(1234, '127.0.0.2')),
    ]);
    expect(on({ FRONTIER_NODE_ADDR: '127.0.0.2' })).toEqual(on({ FRONTIER_NODE_ADDR: '127.0.0.2' }));
    expect(on({ FRONTIER_NODE_ADDR: '127.0.0.2' })[3]).not.toBe(on({ FRONTIER_NODE_ADDR: '127.0.0.3' })[3]);
    // The node the executor names comes first (a recipe's processes share one address locally).
    expect(on({ FRONTIER_SIM_RUN_NODE: 'node1', FRONTIER_NODE_ADDR: '127.0.0.2' })[3]).toBe(String(nodeSeed(1234, 'node1')));
    // Slurm's node name where nothing else names it; the first node where nothing does.
    expect(standInNode({ SLURMD_NODENAME: 'gpu-17' })).toBe('gpu-17');
    expect(standInNode({})).toBe('node0');
  });

  it('puts them on the sim serve command line, and nothing without a CV', () => {
    const serve = { role: 'both' as const, host: '127.0.0.1', port: '8000' };
    const args = simServeArgs(['serve', env.MODEL], serve, env, () => undefined);
    expect(args.slice(args.indexOf('--run-variation'), args.indexOf('--run-variation') + 4)).toEqual([
      '--run-variation',
      '0.03',
      '--run-seed',
      String(nodeSeed(1234, 'node0')),
    ]);
    const exact = simServeArgs(['serve', env.MODEL], serve, { ...env, FRONTIER_SIM_RUN_VARIATION: '' }, () => undefined);
    expect(exact).not.toContain('--run-variation');
    expect(runVariationFlags({ ...env, FRONTIER_SIM_RUN_VARIATION: '0' })).toEqual([]);
    expect(() => runVariationFlags({ ...env, FRONTIER_SIM_RUN_SEED: 'x' })).toThrow(
      /FRONTIER_SIM_RUN_SEED x: expected an integer/,
    );
  });
});
