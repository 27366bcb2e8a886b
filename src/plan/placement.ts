import type { Layout, Placement } from '../engines/index.js';
import { AllocationError, allocateEndpoints, resourceMath } from '../recipes/index.js';
import { UserError } from '../util/user-error.js';

/**
 * Where a deployment's workers go on a cluster's nodes: srtctl's allocation (prefill workers,
 * then decode workers from a fresh node, partial-node workers packed), so a plan here is the
 * placement srtctl would make. `hosts` are the nodes' addresses (or shell expressions in a job).
 */

export class PlacementError extends UserError {}

/** Nodes a layout needs on nodes of `gpusPerNode` GPUs. */
export function nodesNeeded(layout: Layout, gpusPerNode: number): number {
  const endpoints = allocate(layout, gpusPerNode, Number.MAX_SAFE_INTEGER);
  return Math.max(...endpoints.flatMap((e) => e.nodes)) + 1;
}

function allocate(layout: Layout, gpusPerNode: number, nodeCount: number): ReturnType<typeof allocateEndpoints> {
  const g = (w: { tp: number; pp: number; pcp: number }): number => w.tp * w.pp * w.pcp;
  const math =
    layout.kind === 'aggregated'
      ? resourceMath({ gpus_per_node: gpusPerNode, agg_workers: 1, gpus_per_agg: g(layout.worker) })
      : resourceMath({
          gpus_per_node: gpusPerNode,
          prefill_nodes: 0,
          decode_nodes: 0,
          prefill_workers: layout.prefill.workers,
          decode_workers: layout.decode.workers,
          gpus_per_prefill: g(layout.prefill),
          gpus_per_decode: g(layout.decode),
        });
  return allocateEndpoints(math, nodeCount);
}

export function placeWorkers(layout: Layout, gpusPerNode: number, hosts: readonly string[]): Placement {
  let endpoints;
  try {
    endpoints = allocate(layout, gpusPerNode, hosts.length);
  } catch (e) {
    if (e instanceof AllocationError)
      throw new PlacementError(
        `${e.message} (${gpusPerNode} GPUs per node; the deployment needs ${nodesNeeded(layout, gpusPerNode)} nodes)`,
      );
    throw e;
  }
  return {
    head: hosts[0]!,
    workers: endpoints.map((e) => ({
      role: e.mode === 'agg' ? 'aggregated' : e.mode,
      index: e.index,
      hosts: e.nodes.map((n) => hosts[n]!),
      gpus: e.gpus,
    })),
  };
}

/** The name a plan gives node `index` of its allocation. */
export const nodeName = (index: number): string => `node${index}`;

const NODE_NAME = /^node(\d+)$/;

/** A plan's placement on an executor's addresses: node `i` (`node<i>`) becomes `address(i)`; each worker keeps its `nodes`. */
export function onHosts(placement: Placement, address: (node: number) => string): Placement {
  const index = (host: string): number => {
    const m = NODE_NAME.exec(host);
    if (!m) throw new Error(`placement host ${host} is not a node name of the plan (node<i>)`);
    return Number(m[1]);
  };
  const bind = (host: string): string => address(index(host));
  // The node indices stay with the workers: addresses need not tell nodes apart (a local run's are one).
  return {
    head: bind(placement.head),
    workers: placement.workers.map((w) => ({ ...w, hosts: w.hosts.map(bind), nodes: w.hosts.map(index) })),
  };
}
