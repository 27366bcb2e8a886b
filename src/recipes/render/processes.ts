import { AllocationError, allocateEndpoints, colocates, resourceMath } from '../topology.js';
import type { PackingOptions, ResourceMath, Resources, WorkerMode } from '../topology.js';
import { RenderError } from './python.js';

/**
 * srtctl's job layout: the Slurm allocation (cli/submit.py), which node is head/infra
 * (core/runtime.py Nodes.from_slurm), worker endpoints (core/topology.py) and their processes
 * with the ports srtctl's NodePortAllocator hands out (core/topology.py, backends/vllm.py).
 */

export const PORTS = {
  etcd: 2379,
  nats: 4222,
  frontendPublic: 8000,
  frontendInternal: 8180,
  kvEvents: 5200,
  httpBase: 6100,
  httpStride: 32,
  bootstrap: 7200,
  sglangDistInit: 8300,
  sglangNccl: 17500,
  mooncakeMaster: 8700,
  mooncakeMetadata: 8701,
  vllmNixl: 5400,
  vllmDpRpc: 8400,
  vllmPortBase: 20000,
  vllmPortStride: 50,
  dynSystem: 7500,
  kvbmZmq: 5600,
} as const;

export const host = (node: number): string => `{host:${node}}`;
export const ip = (node: number): string => `{ip:${node}}`;

export interface Nodes {
  /** Nodes in the allocation (Slurm's nodelist). */
  total: number;
  head: number;
  infra: number;
  worker: number[];
}

export interface Process {
  node: number;
  gpus: number[];
  sysPort: number;
  httpPort: number;
  mode: WorkerMode;
  index: number;
  /** Rank within the endpoint; a DP rank (per-GPU) or DP start rank (per-node) for vLLM DP. */
  nodeRank: number;
  bootstrapPort: number | null;
  kvEventsPort: number | null;
  nixlPort: number | null;
  dpRpcPort: number | null;
}

export interface Flags {
  [key: string]: unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** `SrtConfig.total_nodes` plus dedicated infra/frontend/client nodes, and the roles' placement. */
export function jobNodes(recipe: Obj, math: ResourceMath, vllmColocation: boolean, colocationAcrossNodes: boolean): Nodes {
  const options = { colocation: vllmColocation, colocationAcrossNodes };
  let total = math.resourceNodes;
  if (colocates(math, options)) {
    const gpus = math.prefill.workers * math.prefill.gpusPerWorker + math.decode.workers * math.decode.gpusPerWorker;
    total = Math.ceil((gpus + math.agg.workers * math.agg.gpusPerWorker) / math.gpusPerNode);
  }
  const infraDedicated = obj(recipe.infra).etcd_nats_dedicated_node === true;
  const frontendDedicated = obj(recipe.frontend).dedicated_node === true;
  const clientDedicated = obj(recipe.benchmark).client_dedicated_node === true;
  const colocate = obj(recipe.benchmark).colocate_with_frontend !== false;
  const roles = [infraDedicated && 'infra', frontendDedicated && 'frontend', clientDedicated && 'client'].filter(
    (r): r is string => typeof r === 'string',
  );
  if (roles.length > 0) total += colocate ? 1 : roles.length;
  const all = Array.from({ length: total }, (_, i) => i);
  if (roles.length === 0) return { total, head: 0, infra: 0, worker: all };
  const reserved = colocate ? 1 : roles.length;
  if (total <= reserved) throw new RenderError(`dedicated node(s) for ${roles.join('+')} require at least ${reserved + 1} nodes`);
  const placed = new Map<string, number>();
  let worker: number[];
  if (colocate) {
    const shared = clientDedicated ? total - 1 : 0;
    worker = clientDedicated ? all.slice(0, -1) : all.slice(1);
    for (const r of roles) placed.set(r, shared);
  } else {
    const front = roles.filter((r) => r !== 'client');
    front.forEach((r, i) => placed.set(r, i));
    if (clientDedicated) placed.set('client', total - 1);
    worker = all.slice(front.length, clientDedicated ? -1 : undefined);
  }
  const head = placed.get('frontend') ?? worker[0]!;
  return { total, head, infra: placed.get('infra') ?? head, worker };
}

class PortAllocator {
  private http = new Map<number, number>();
  private bootstrap = new Map<number, number>();
  private dpRpc = new Map<number, number>();
  private kv = PORTS.kvEvents;
  private nixl = PORTS.vllmNixl;

  nextHttp(node: number): number {
    const port = this.http.get(node) ?? PORTS.httpBase;
    this.http.set(node, port + PORTS.httpStride);
    return port;
  }
  nextBootstrap(node: number): number {
    const port = this.bootstrap.get(node) ?? PORTS.bootstrap;
    this.bootstrap.set(node, port + 1);
    return port;
  }
  nextDpRpc(node: number): number {
    const port = this.dpRpc.get(node) ?? PORTS.vllmDpRpc;
    this.dpRpc.set(node, port + 1);
    return port;
  }
  nextKv(size = 1): number {
    const port = this.kv;
    this.kv += size;
    return port;
  }
  nextNixl(size = 1): number {
    const port = this.nixl;
    this.nixl += size;
    return port;
  }
}

export interface Endpoint {
  mode: WorkerMode;
  index: number;
  nodes: number[];
  gpus: number[];
}

/** srtctl's allocate_endpoints over the worker nodes (every backend uses the same one here). */
export function endpoints(math: ResourceMath, nodes: Nodes, resources: Resources, packing: PackingOptions): Endpoint[] {
  try {
    return allocateEndpoints(math, nodes.worker.length, packing, resources.spread_workers === true).map((e) => ({
      mode: e.mode,
      index: e.index,
      nodes: e.nodes.map((n) => nodes.worker[n]!),
      gpus: e.gpus[0]!,
    }));
  } catch (e) {
    if (e instanceof AllocationError) throw new RenderError(e.message);
    throw e;
  }
}

/** srtctl's generic endpoints_to_processes: one process per node of each endpoint. */
function standard(endpoint: Endpoint, ports: PortAllocator, sysPort: number): Process[] {
  const bootstrap = endpoint.mode === 'prefill' ? ports.nextBootstrap(endpoint.nodes[0]!) : null;
  return endpoint.nodes.map((node, rank) => ({
    node,
    gpus: endpoint.gpus,
    sysPort: sysPort + rank,
    httpPort: rank === 0 ? ports.nextHttp(node) : 0,
    mode: endpoint.mode,
    index: endpoint.index,
    nodeRank: rank,
    bootstrapPort: bootstrap,
    kvEventsPort: ports.nextKv(),
    nixlPort: ports.nextNixl(),
    dpRpcPort: null,
  }));
}

export interface VllmLayout {
  /** data-parallel-size per mode when the recipe sets it (vLLM's DP mode). */
  dpSize: (mode: WorkerMode) => number | undefined;
  replicaSize: (mode: WorkerMode) => number;
  launch: 'per_node' | 'per_gpu';
}

export function processes(eps: Endpoint[], vllm?: VllmLayout): Process[] {
  const ports = new PortAllocator();
  const out: Process[] = [];
  const push = (ps: Process[]): void => void out.push(...ps);
  const sys = (): number => PORTS.dynSystem + out.length;
  const anyDp = vllm !== undefined && eps.some((e) => vllm.dpSize(e.mode) !== undefined);
  for (const ep of eps) {
    if (!vllm || !anyDp || vllm.dpSize(ep.mode) === undefined) {
      if (vllm && anyDp && vllm.launch === 'per_gpu') push(perGpuStandard(ep, ports, sys()));
      else push(standard(ep, ports, sys()));
    } else if (vllm.launch === 'per_node') push(perNode(ep, ports, sys(), vllm));
    else push(perGpu(ep, ports, sys(), vllm));
  }
  return out;
}

/** vLLM per-GPU layout, for an endpoint without DP (bootstrap port on the leader only). */
function perGpuStandard(ep: Endpoint, ports: PortAllocator, sysPort: number): Process[] {
  return ep.nodes.map((node, rank) => ({
    node,
    gpus: ep.gpus,
    sysPort: sysPort + rank,
    httpPort: rank === 0 ? ports.nextHttp(node) : 0,
    mode: ep.mode,
    index: ep.index,
    nodeRank: rank,
    bootstrapPort: ep.mode === 'prefill' && rank === 0 ? ports.nextBootstrap(node) : null,
    kvEventsPort: ports.nextKv(),
    nixlPort: ports.nextNixl(),
    dpRpcPort: null,
  }));
}

function perGpu(ep: Endpoint, ports: PortAllocator, sysPort: number, vllm: VllmLayout): Process[] {
  const dpRpc = ports.nextDpRpc(ep.nodes[0]!);
  const nixl = ports.nextNixl(vllm.dpSize(ep.mode) || ep.gpus.length);
  const out: Process[] = [];
  for (const node of ep.nodes) {
    for (const gpu of ep.gpus) {
      const rank = out.length;
      out.push({
        node,
        gpus: [gpu],
        sysPort: sysPort + rank,
        httpPort: rank === 0 ? ports.nextHttp(node) : 0,
        mode: ep.mode,
        index: ep.index,
        nodeRank: rank,
        bootstrapPort: ep.mode === 'prefill' && rank === 0 ? ports.nextBootstrap(node) : null,
        kvEventsPort: ports.nextKv(),
        nixlPort: nixl,
        dpRpcPort: dpRpc,
      });
    }
  }
  return out;
}

function perNode(ep: Endpoint, ports: PortAllocator, sysPort: number, vllm: VllmLayout): Process[] {
  const replica = vllm.replicaSize(ep.mode);
  const totalGpus = ep.nodes.length * ep.gpus.length;
  const dp = vllm.dpSize(ep.mode) || Math.floor(totalGpus / replica);
  if (dp * replica !== totalGpus) {
    throw new RenderError(
      `${ep.mode} data-parallel-size=${dp} with a TP x PP replica of ${replica} needs ${dp * replica} GPUs, but the endpoint has ${totalGpus}`,
    );
  }
  const local = ep.gpus.length;
  if (replica > local) {
    if (ep.nodes.length < 2) throw new RenderError('cross-node per_node DP requires a multi-node endpoint');
    if (replica % local !== 0)
      throw new RenderError(`${ep.mode} TP x PP replica size ${replica} does not divide evenly across nodes`);
    if (ep.nodes.length !== dp * (replica / local))
      throw new RenderError(`${ep.mode} requires ${replica / local} nodes per DP rank, but the endpoint has ${ep.nodes.length}`);
    return standard(ep, ports, sysPort);
  }
  if (local % replica !== 0)
    throw new RenderError(`${ep.mode} TP x PP replica size ${replica} does not divide the node's ${local} allocated GPUs`);
  const localDp = local / replica;
  const dpRpc = ports.nextDpRpc(ep.nodes[0]!);
  const nixl = ports.nextNixl(dp);
  return ep.nodes.map((node, i) => ({
    node,
    gpus: ep.gpus,
    sysPort: sysPort + i,
    httpPort: ports.nextHttp(node),
    mode: ep.mode,
    index: ep.index,
    nodeRank: i * localDp,
    bootstrapPort: ep.mode === 'prefill' ? ports.nextBootstrap(node) : null,
    kvEventsPort: ports.nextKv(localDp),
    nixlPort: nixl,
    dpRpcPort: dpRpc,
  }));
}

export { resourceMath };
