/**
 * Node and GPU math exactly as srtctl computes it (core/schema.py ResourceConfig and
 * SrtConfig.total_nodes, core/topology.py allocate_endpoints, cli/submit.py
 * planned_total_nodes), so a plan here is the job srtctl would submit.
 */
import { UserError } from '../util/user-error.js';

export type WorkerMode = 'prefill' | 'decode' | 'agg';

export interface Resources {
  gpus_per_node?: number | undefined;
  prefill_nodes?: number | undefined;
  decode_nodes?: number | undefined;
  prefill_workers?: number | undefined;
  decode_workers?: number | undefined;
  agg_nodes?: number | undefined;
  agg_workers?: number | undefined;
  gpus_per_prefill?: number | undefined;
  gpus_per_decode?: number | undefined;
  gpus_per_agg?: number | undefined;
  spread_workers?: boolean | undefined;
  het_jobs?: boolean | null | undefined;
}

export interface RoleShape {
  workers: number;
  gpusPerWorker: number;
}

export interface ResourceMath {
  gpusPerNode: number;
  disaggregated: boolean;
  prefill: RoleShape;
  decode: RoleShape;
  agg: RoleShape;
  /** `ResourceConfig.total_nodes`: prefill + decode nodes, or agg nodes. */
  resourceNodes: number;
}

/** srtctl treats 0 as "not set" in these tests (Python truthiness). */
const set = (n: number | undefined): n is number => n !== undefined && n !== 0;

export function resourceMath(r: Resources): ResourceMath {
  const gpn = r.gpus_per_node ?? 4;
  const disaggregated = r.prefill_nodes !== undefined || r.decode_nodes !== undefined;
  const gpusPerPrefill =
    r.gpus_per_prefill ??
    (set(r.prefill_nodes) && set(r.prefill_workers) ? Math.floor((r.prefill_nodes * gpn) / r.prefill_workers) : gpn);
  let gpusPerDecode: number;
  if (r.gpus_per_decode !== undefined) gpusPerDecode = r.gpus_per_decode;
  else if (set(r.decode_nodes) && set(r.decode_workers)) gpusPerDecode = Math.floor((r.decode_nodes * gpn) / r.decode_workers);
  else if (r.decode_nodes === 0 && set(r.decode_workers)) gpusPerDecode = gpusPerPrefill;
  else gpusPerDecode = gpn;
  const gpusPerAgg =
    r.gpus_per_agg ?? (set(r.agg_nodes) && set(r.agg_workers) ? Math.floor((r.agg_nodes * gpn) / r.agg_workers) : gpn);
  return {
    gpusPerNode: gpn,
    disaggregated,
    prefill: { workers: r.prefill_workers ?? 0, gpusPerWorker: gpusPerPrefill },
    decode: { workers: r.decode_workers ?? 0, gpusPerWorker: gpusPerDecode },
    agg: { workers: r.agg_workers ?? 0, gpusPerWorker: gpusPerAgg },
    resourceNodes: disaggregated ? (r.prefill_nodes ?? 0) + (r.decode_nodes ?? 0) : r.agg_nodes || 1,
  };
}

export interface PackingOptions {
  /** vLLM `allow_prefill_decode_colocation` (and `_across_nodes`). */
  colocation?: boolean;
  colocationAcrossNodes?: boolean;
  /** TRT-LLM's MPI packing: workers fill GPUs contiguously and may span partly used nodes. */
  packMultinodeWorkers?: boolean;
}

/** vLLM's `should_colocate_prefill_decode`. */
export function colocates(math: ResourceMath, options: PackingOptions): boolean {
  if (!options.colocation || math.prefill.workers <= 0 || math.decode.workers <= 0 || math.gpusPerNode <= 0) return false;
  return totalWorkerGpus(math) <= math.gpusPerNode || Boolean(options.colocationAcrossNodes);
}

export const totalWorkerGpus = (m: ResourceMath): number =>
  m.prefill.workers * m.prefill.gpusPerWorker + m.decode.workers * m.decode.gpusPerWorker + m.agg.workers * m.agg.gpusPerWorker;

/** `SrtConfig.total_nodes`: worker nodes, shrunk when vLLM colocates prefill and decode. */
export function workerNodes(math: ResourceMath, options: PackingOptions): number {
  if (colocates(math, options)) return Math.ceil(totalWorkerGpus(math) / math.gpusPerNode);
  return math.resourceNodes;
}

export interface Endpoint {
  mode: WorkerMode;
  index: number;
  /** Node indices (0-based); the first is the leader. */
  nodes: number[];
  /** GPU indices used on each of `nodes`. */
  gpus: number[][];
}

export class AllocationError extends UserError {
  constructor(
    message: string,
    /** The workers placed before the allocation ran out of nodes. */
    readonly placed: Endpoint[] = [],
  ) {
    super(message);
  }
}

/**
 * `allocate_endpoints`: one cursor (node, GPU offset) through prefill, decode, then agg workers;
 * whole-node workers take consecutive nodes, partial ones pack the current node, and decode
 * starts on a fresh node unless colocation is on or no further node exists.
 */
export function allocateEndpoints(
  math: ResourceMath,
  nodeCount: number,
  options: PackingOptions = {},
  spread = false,
): Endpoint[] {
  const gpn = math.gpusPerNode;
  const endpoints: Endpoint[] = [];
  let node = 0;
  let offset = 0;
  const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);
  const need = (index: number): void => {
    if (index >= nodeCount)
      throw new AllocationError(`not enough nodes: need node ${index + 1}, but only ${nodeCount} available`, endpoints);
  };

  const allocate = (mode: WorkerMode, count: number, g: number): void => {
    const nodesPerWorker = Math.ceil(g / gpn);
    for (let i = 0; i < count; i++) {
      if (options.packMultinodeWorkers) {
        if (g <= 0) throw new AllocationError('GPUs per worker must be positive');
        if (g <= gpn && offset + g > gpn) {
          node++;
          offset = 0;
        }
        const slices: [number, number[]][] = [];
        let remaining = g;
        while (remaining > 0) {
          need(node);
          const take = Math.min(remaining, gpn - offset);
          slices.push([node, range(offset, offset + take)]);
          remaining -= take;
          offset += take;
          if (offset === gpn) {
            node++;
            offset = 0;
          }
        }
        // MPI mappings expect full nodes before a partial tail (a stable sort).
        slices.sort((a, b) => b[1].length - a[1].length);
        endpoints.push({ mode, index: i, nodes: slices.map((s) => s[0]), gpus: slices.map((s) => s[1]) });
        if (spread && offset) {
          node++;
          offset = 0;
        }
      } else if (nodesPerWorker >= 1 && g >= gpn) {
        need(node + nodesPerWorker - 1);
        const nodes = range(node, node + nodesPerWorker);
        node += nodesPerWorker;
        endpoints.push({ mode, index: i, nodes, gpus: nodes.map(() => range(0, gpn)) });
      } else {
        if (offset + g > gpn) {
          node++;
          offset = 0;
        }
        need(node);
        endpoints.push({ mode, index: i, nodes: [node], gpus: [range(offset, offset + g)] });
        offset += g;
        if (offset >= gpn || spread) {
          node++;
          offset = 0;
        }
      }
    }
  };

  if (math.prefill.workers > 0) allocate('prefill', math.prefill.workers, math.prefill.gpusPerWorker);
  if (math.decode.workers > 0) {
    if (!colocates(math, options) && offset > 0 && node + 1 < nodeCount) {
      node++;
      offset = 0;
    }
    allocate('decode', math.decode.workers, math.decode.gpusPerWorker);
  }
  if (math.agg.workers > 0) allocate('agg', math.agg.workers, math.agg.gpusPerWorker);
  return endpoints;
}
