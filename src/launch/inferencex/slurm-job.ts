import { shellQuote as q } from '../../engines/index.js';
import { containerMounts, pyxisImage, sbatchHeader } from '../slurm-script.js';
import type { ClusterProfile } from '../../clusters/index.js';
import type { ScriptPoint } from './point.js';
import { WORKSPACE, scriptCommand } from './workspace.js';

/**
 * The batch job of an InferenceX row under Slurm: one node with the row's GPUs, then each point's
 * benchmark script as its own step, one after the other, with the workspace on /workspace: by
 * pyxis (`srun --container-image … --container-mounts …:/workspace`, as InferenceX's launchers run
 * it) when the cluster's runtime is enroot, else as `scriptCommand` runs it locally. Each step's
 * status goes to `exits.txt`; whatever a script left in the background ends with its step.
 */

/** Stops what the script left running (its engine) when it ends, keeping its status. */
const REAP = 'sh -c \'"$@"; rc=$?; trap "" TERM; kill -TERM 0; exit $rc\' reap';

function stepFor(cluster: ClusterProfile, image: string, script: string, s: ScriptPoint): string {
  const srun = ['srun', '--nodes=1', '--ntasks=1', `--output=${s.logDir}/script.log`];
  const pyxis = cluster.container.runtime === 'enroot';
  if (pyxis)
    srun.push(
      `--container-image=${pyxisImage(cluster, image)}`,
      `--container-mounts=${[`${s.work}:${WORKSPACE}`, ...containerMounts(cluster)].join(',')}`,
      `--container-workdir=${WORKSPACE}`,
      '--no-container-entrypoint',
      '--export=ALL',
    );
  const command = pyxis ? ['bash', script] : scriptCommand(cluster, image, s.work, script, Object.keys(s.contract));
  return [...srun.map(q), 'env', ...Object.entries(s.env).map(([k, v]) => `${k}=${q(v)}`), REAP, ...command.map(q)].join(' ');
}

export function renderScriptJob(
  cluster: ClusterProfile,
  o: { jobName: string; title: string; logDir: string; gpus: number; image: string; script: string; points: ScriptPoint[] },
): string {
  const out = [
    '#!/bin/bash',
    ...sbatchHeader(cluster, { jobName: o.jobName, nodes: 1, logDir: o.logDir, gpus: o.gpus > 0 }),
    `# ${o.title}`,
    `# Rendered by frontier run: InferenceX's ${o.script}, once per concurrency.`,
    'set -uo pipefail',
    `LOG_DIR=${q(o.logDir)}`,
    'mkdir -p "$LOG_DIR"',
    ': >"$LOG_DIR/exits.txt"',
    '',
  ];
  for (const s of o.points) {
    out.push(
      `# conc ${s.point.conc}`,
      `mkdir -p ${q(s.logDir)}`,
      `${stepFor(cluster, o.image, o.script, s)}`,
      `echo ${q(s.point.resultFilename)} "$?" >>"$LOG_DIR/exits.txt"`,
      '',
    );
  }
  return out.join('\n');
}
