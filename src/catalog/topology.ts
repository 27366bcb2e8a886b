import type { AgenticSearchSpaceEntry, WorkerConfig } from './schema.js';
import { UserError } from '../util/user-error.js';

/** A topology that does not fit the runner's nodes; `field` is the offending path suffix. */
export class TopologyError extends UserError {
  constructor(
    message: string,
    readonly field: string[],
  ) {
    super(message);
    this.name = 'TopologyError';
  }
}

/** GPUs one single-node server uses: tp × pp × pcp. */
export function singleNodeGpus(entry: { tp: number; pp?: number | undefined; 'pcp-size'?: number | undefined }): number {
  return entry.tp * (entry.pp ?? 1) * (entry['pcp-size'] ?? 1);
}

/**
 * GPUs one worker replica occupies on one node. A replica bigger than a node must fill whole
 * nodes; a smaller one must divide the node evenly so replicas tile it without overlap.
 */
export function workerGpusPerNode(worker: WorkerConfig, gpusPerNode: number): number {
  const perReplica = singleNodeGpus(worker);
  if (perReplica > gpusPerNode) {
    if (perReplica % gpusPerNode !== 0) {
      throw new TopologyError(
        `worker tp*pp*pcp-size=${perReplica} spans multiple nodes but is not a multiple of gpus-per-node=${gpusPerNode}`,
        ['tp'],
      );
    }
    return gpusPerNode;
  }
  if (gpusPerNode % perReplica !== 0) {
    throw new TopologyError(`worker tp*pp*pcp-size=${perReplica} does not divide gpus-per-node=${gpusPerNode} evenly`, ['tp']);
  }
  return perReplica;
}

/**
 * GPUs of one agentic server node that its DRAM offload budget is proportional to: the
 * single-node topology (which must fit one node) or the prefill worker's per-node footprint.
 */
export function agenticDramGpus(entry: AgenticSearchSpaceEntry, gpusPerNode: number, runner: string): number {
  if (entry.prefill) {
    try {
      return workerGpusPerNode(entry.prefill, gpusPerNode);
    } catch (e) {
      if (e instanceof TopologyError) throw new TopologyError(e.message, ['prefill', ...e.field]);
      throw e;
    }
  }
  const gpus = singleNodeGpus(entry as { tp: number });
  if (gpus > gpusPerNode) {
    throw new TopologyError(
      `tp=${entry.tp} with pp=${entry.pp ?? 1} and pcp-size=${entry['pcp-size'] ?? 1} requires ${gpus} GPUs and exceeds gpus-per-node=${gpusPerNode} for runner '${runner}'`,
      ['tp'],
    );
  }
  return gpus;
}
