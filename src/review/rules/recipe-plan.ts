import type { Rule } from '../rule.js';
import { planFindings } from './shared.js';

/** A topology rule: one kind of finding of the recipe's dry-run plan (`frontier recipe plan`). */
const topology = (id: string, severity: Rule['severity'], description: string, explanation: string): Rule => ({
  id,
  severity,
  scope: 'tree',
  description,
  explanation,
  check: (context) => planFindings(context, id),
});

export const colocationDoesNotFit = topology(
  'recipe/colocation-does-not-fit',
  'error',
  'with decode_nodes: 0, prefill and decode workers fit on the prefill nodes',
  'decode_nodes: 0 (with vLLM, allow_prefill_decode_colocation: true) puts decode workers on the prefill nodes. If prefill + decode GPUs exceed those nodes (8×TP1 + 2×DEP8 on one 8-GPU node), srtctl runs out of GPUs after the allocation has started. Give decode its own nodes or shrink the workers.',
);
export const workersDoNotFit = topology(
  'recipe/workers-do-not-fit',
  'error',
  'the workers fit on the nodes the recipe requests',
  'srtctl packs workers greedily onto the nodes it asked Slurm for; when they do not fit, the job fails inside the allocation. Raise the node counts or reduce workers or GPUs per worker.',
);
export const gpuOverlap = topology(
  'recipe/gpu-overlap',
  'error',
  'no two workers are placed on the same GPU',
  "srtctl's allocator places a whole-node worker at its cursor without skipping a partly used node, so two workers can share GPUs. Give each role whole nodes.",
);
export const engineGpusMismatch = topology(
  'recipe/engine-gpus-mismatch',
  'error',
  "each worker's GPUs equal its engine's TP × DP × PP (srtctl does not check this)",
  'srtctl gives each worker (nodes × gpus_per_node) // workers GPUs, or gpus_per_<role>, and passes the engine flags through unchecked. When the engine needs more GPUs it fails to start; when it needs fewer, GPUs idle while the results are labelled with the bigger topology.',
);
export const workerDoesNotTileNode = topology(
  'recipe/worker-does-not-tile-node',
  'warning',
  'worker sizes divide (or are multiples of) the GPUs per node',
  'A worker of 3 GPUs on 8-GPU nodes leaves GPUs idle on every node; one of 12 holds 16. Choose worker sizes that tile the node.',
);
