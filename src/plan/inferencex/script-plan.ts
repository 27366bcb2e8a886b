import type { SingleNodeRow } from '../../matrix/index.js';
import { gpuFor } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import { runnerFor, scriptFor } from './launchers.js';
import type { LauncherRule } from './launchers.js';
import type { InferencexTree } from './tree.js';

/** How a single-node row of an InferenceX catalog runs: the checkout's script for it, on a runner's launcher. */
export interface ScriptPlan {
  tree: InferencexTree;
  /** Relative to the checkout, as the launcher names it. */
  script: string;
  /** The runner the row stands on (RUNNER_NAME) and its launcher. */
  runnerName: string;
  launcher: string;
  rule: LauncherRule;
  /** The cluster simulates: the script's engines and GPU tools are stand-ins that drive the sim. */
  simulated: boolean;
  /** The GPU the engines run on (the one the sim models, on a simulating cluster). */
  hardware: string;
  /** The benchmark client the script calls: frontier bench (a stand-in on its PATH) or InferenceX's own. */
  client: 'frontier' | 'inferencex';
  /** `--profile`: the script runs its points under the engine's profiler (PROFILE=1). */
  profile?: boolean | undefined;
}

export function planScript(tree: InferencexTree, row: SingleNodeRow, cluster: ClusterProfile): ScriptPlan | { problem: string } {
  const runnerName = runnerFor(tree, row.runner, cluster.inferencexRunner);
  if (!runnerName)
    return {
      problem: `runner label ${row.runner} is neither in the checkout's configs/runners.yaml nor the name of a launcher in runners/: name the runner the cluster stands for with inferencex-runner in its profile`,
    };
  const choice = scriptFor(tree, row, runnerName);
  if ('problem' in choice) return choice;
  const simulated = cluster.simulate === true;
  const client = cluster.inferencexClient ?? (simulated ? 'frontier' : 'inferencex');
  const hardware = gpuFor(cluster, row.runner);
  return { tree, script: choice.script, runnerName, launcher: choice.launcher, rule: choice.rule, simulated, hardware, client };
}
