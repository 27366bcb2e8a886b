import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MultiNodeRow } from '../../matrix/index.js';
import { JOB_SCRIPT_FRAMEWORKS_OF, gpuFor, launcherOf, modelPath } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import { JOB_SCRIPT_LAUNCHERS, runnerFor } from './launchers.js';
import type { JobScriptRule } from './launchers.js';
import type { InferencexTree } from './tree.js';

/** How a multi-node row runs with its launcher's job script (job-script.ts in launch/inferencex runs it). */
export interface JobScriptPlan {
  tree: InferencexTree;
  /** Relative to the checkout, as the launcher names it. */
  script: string;
  runnerName: string;
  launcher: string;
  rule: JobScriptRule;
  /** The nodes the job asks for: PREFILL_NODES + DECODE_NODES. */
  nodes: number;
  /** The cluster simulates: the job's engines and tools are stand-ins that drive the sim. */
  simulated: boolean;
  /** The GPU the engines run on (the one the sim models, on a simulating cluster). */
  hardware: string;
}

const setting = (row: MultiNodeRow, name: string): string | undefined =>
  [...(row.prefill['additional-settings'] ?? []), ...(row.decode['additional-settings'] ?? [])]
    .find((s) => s.startsWith(`${name}=`))
    ?.slice(name.length + 1);

export function planJobScript(
  tree: InferencexTree,
  row: MultiNodeRow,
  cluster: ClusterProfile,
): JobScriptPlan | { problem: string } {
  const runnerName = runnerFor(tree, row.runner, cluster.inferencexRunner);
  if (!runnerName)
    return {
      problem: `runner label ${row.runner} is neither in the checkout's configs/runners.yaml nor the name of a launcher in runners/: name the runner the cluster stands for with inferencex-runner in its profile`,
    };
  const launcher = launcherOf(runnerName);
  const rule = JOB_SCRIPT_LAUNCHERS[launcher];
  const frameworksOf: Readonly<Record<string, readonly string[]>> = JOB_SCRIPT_FRAMEWORKS_OF;
  if (!rule || !frameworksOf[launcher]?.includes(row.framework))
    return {
      problem: `${row.framework}: runners/launch_${launcher}.sh (runner ${runnerName}) runs no job script for it that frontier knows; InferenceX runs it on ${Object.entries(
        frameworksOf,
      )
        .filter(([, frameworks]) => frameworks.includes(row.framework))
        .map(([l]) => l)
        .join(', ')}`,
    };
  const script = rule.script(row);
  if (!existsSync(join(tree.root, script)))
    return { problem: `runners/launch_${launcher}.sh would run ${script}, which the InferenceX checkout does not have` };
  const nodes = ['PREFILL_NODES', 'DECODE_NODES'].reduce((n, k) => n + Number(setting(row, k) ?? 0), 0);
  if (!(nodes > 0))
    return {
      problem: `${row.framework}: the row sets no PREFILL_NODES and DECODE_NODES (additional-settings), which ${script} needs`,
    };
  return {
    tree,
    script,
    runnerName,
    launcher,
    rule,
    nodes,
    simulated: cluster.simulate === true,
    hardware: gpuFor(cluster, row.runner),
  };
}

/** Problems of a cluster for a job script: a Slurm cluster with the nodes, its partition, the model's folder. */
export function jobScriptProblems(plan: JobScriptPlan, row: MultiNodeRow, cluster: ClusterProfile): string[] {
  const problems: string[] = [];
  if (cluster.scheduler !== 'slurm')
    problems.push(
      `${plan.script} submits its own Slurm job (sbatch): it runs on a Slurm cluster, and ${cluster.name} is ${cluster.scheduler}`,
    );
  if (plan.nodes > cluster.nodes)
    problems.push(`${plan.script} asks for ${plan.nodes} nodes; cluster ${cluster.name} has ${cluster.nodes}`);
  if (!cluster.partition)
    problems.push(
      `cluster ${cluster.name} names no partition, which ${plan.script} submits its job to (partition: in its profile)`,
    );
  if (!cluster.simulate && !modelPath(cluster, row['model-prefix'], row.precision))
    problems.push(
      `cluster ${cluster.name} names no folder for ${row['model-prefix']} ${row.precision}, where ${plan.script} looks for ${row.model.split('/').pop()} (models: in its profile)`,
    );
  return problems;
}
