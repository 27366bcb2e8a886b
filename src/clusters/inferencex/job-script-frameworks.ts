import type { MultiNodeRow } from '../../matrix/index.js';

/**
 * The frameworks each InferenceX launcher runs multi-node with a script of the checkout that
 * submits its own Slurm job instead of an srt-slurm recipe (its IS_MULTINODE branch for them):
 * their rows are routed to that script, never to an srt-slurm clone. How each launcher runs the
 * script is src/launch's (JOB_SCRIPT_LAUNCHERS in launch/inferencex/launchers.ts).
 */
export const JOB_SCRIPT_FRAMEWORKS_OF = {
  // runners/launch_mi355x-amds.sh: amd_utils/submit.sh.
  'mi355x-amds': ['sglang-disagg', 'vllm-disagg', 'atom-disagg'],
  // runners/launch_gb200-nv.sh: the llm-d wrapper.
  'gb200-nv': ['llmd-vllm'],
  // runners/launch_b200-dgxc.sh (launch_b200-dgxc-slurm.sh links to it): tilert_utils/submit.sh.
  'b200-dgxc': ['tilert'],
  'b200-dgxc-slurm': ['tilert'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** A launcher that runs some frameworks with a job script. */
export type JobScriptLauncher = keyof typeof JOB_SCRIPT_FRAMEWORKS_OF;

/** The frameworks InferenceX runs with a job script (on some launcher). */
export const JOB_SCRIPT_FRAMEWORKS: ReadonlySet<string> = new Set(Object.values(JOB_SCRIPT_FRAMEWORKS_OF).flat());

export const runsJobScript = (row: MultiNodeRow): boolean => JOB_SCRIPT_FRAMEWORKS.has(row.framework);
