import { describe, expect, it } from 'vitest';
import { LOCAL_PROFILE } from '../../src/clusters/index.js';
import type { ClusterProfile } from '../../src/clusters/index.js';
import { simulationVariables } from '../../src/launch/inferencex/point.js';
import { planLaunch, planRun, runVariationOf } from '../../src/plan/index.js';
import type { LaunchPlan, PlannedLaunch } from '../../src/plan/index.js';
import { launchSeed } from '../../src/sim/index.js';
import { simCluster, singleRow } from '../launch/fixtures.js';

/** The plan decides a launch's run-to-run variation once, as data: the cluster's CV and the launch's seed. */

const deploymentOf = (launch: PlannedLaunch, cluster: ClusterProfile) => {
  const plan: LaunchPlan = planLaunch(launch, { cluster, frontierCommand: ['frontier'] });
  if (plan.kind === 'cannot-run') throw new Error(plan.reasons.join('; '));
  return plan.deployment;
};

const varying = (seed = 5, runVariation = 0.03): ClusterProfile => simCluster({ sim: { runVariation, seed } });

describe('the plan’s run-to-run variation', () => {
  const launches = planRun([singleRow({ conc: 1 }), singleRow({ tp: 2, conc: 1 })], 'test');

  it('is absent unless the cluster sets a CV: the deployment has no such field (the dry-run goldens stay as they were)', () => {
    for (const cluster of [simCluster(), varying(5, 0), simCluster({ sim: { runVariation: 0, seed: 0 } })]) {
      const d = deploymentOf(launches[0]!, cluster);
      expect('runVariation' in d).toBe(false);
      expect(runVariationOf(launches[0]!, cluster)).toBeUndefined();
    }
  });

  it('carries the CV and a seed hashed from the cluster’s seed and the launch’s id', () => {
    const [a, b] = launches.map((l) => deploymentOf(l, varying()).runVariation);
    expect(a).toEqual({ cv: 0.03, seed: launchSeed(5, launches[0]!.id) });
    expect(b).toEqual({ cv: 0.03, seed: launchSeed(5, launches[1]!.id) });
    expect(a!.seed).not.toBe(b!.seed);
  });

  it('the same run planned again draws the same; another cluster seed or launch id (a repeat, g0#r2) draws apart', () => {
    const first = deploymentOf(launches[0]!, varying()).runVariation!;
    const [again] = planRun([singleRow({ conc: 1 })], 'test');
    expect(deploymentOf(again!, varying()).runVariation).toEqual(first);
    expect(deploymentOf(launches[0]!, varying(6)).runVariation!.seed).not.toBe(first.seed);
    expect(deploymentOf({ ...launches[0]!, id: `${launches[0]!.id}#r2` }, varying()).runVariation!.seed).not.toBe(first.seed);
  });

  it('is only for engines that are the simulated one: a real engine on a real cluster has none', () => {
    const real: ClusterProfile = { ...LOCAL_PROFILE, sim: { runVariation: 0.03, seed: 5 } };
    const [vllm] = planRun([singleRow({ framework: 'vllm', conc: 1 })], 'test');
    expect(deploymentOf(vllm!, real).runVariation).toBeUndefined();
    // The sim row on that cluster is still the sim: it varies.
    expect(deploymentOf(launches[0]!, real).runVariation).toEqual({ cv: 0.03, seed: launchSeed(5, launches[0]!.id) });
  });

  it('reaches the stand-ins as variables only when it is there', () => {
    const row = { model: 'meta-llama/Llama-3.1-8B-Instruct' };
    const exact = simulationVariables(simCluster(), row, 'h100');
    expect(Object.keys(exact).filter((k) => k.startsWith('FRONTIER_SIM_RUN_'))).toEqual([]);
    expect(simulationVariables(simCluster(), row, 'h100', { cv: 0, seed: 3 })).toEqual(exact);
    expect(simulationVariables(simCluster(), row, 'h100', { cv: 0.03, seed: 3 })).toEqual({
      ...exact,
      FRONTIER_SIM_RUN_VARIATION: '0.03',
      FRONTIER_SIM_RUN_SEED: '3',
    });
  });
});
