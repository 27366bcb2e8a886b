import type { Cluster, Topology } from '../cluster.js';

/** What a prefill server returns for a remote decode, shaped as vLLM's NIXL connector returns it. */
export interface KvTransferParams {
  do_remote_prefill: true;
  do_remote_decode: false;
  remote_block_ids: number[];
  remote_engine_id: string;
  remote_request_id: string;
  /** The prompt's length: the decode server does not tokenize it again. */
  remote_num_tokens: number;
  remote_host: string;
  remote_port: number;
  tp_size: number;
}

/**
 * Where a decode server finds a prefill's KV cache: block ids handed out round the cache of the
 * first prefill instance (its blocks are simulated, not held).
 */
export class KvTransferAllocator {
  private readonly blockSize: number;
  private readonly totalBlocks: number;
  private readonly tpSize: number;
  private nextBlock = 0;
  /** The port the server listens on, once it is known. */
  port: number;

  constructor(
    topology: Topology,
    cluster: Cluster,
    private readonly engineId: string,
    private readonly host: string,
    port: number,
  ) {
    const prefillPool = topology.kind === 'aggregated' ? topology.pool : topology.prefill;
    this.blockSize = prefillPool.limits.blockSize;
    this.tpSize = prefillPool.engine.parallelism.tp;
    this.totalBlocks = Math.max(
      1,
      Math.floor(cluster.prefill[0]!.capacityBytes / Math.max(1, cluster.prefill[0]!.bytesFor(this.blockSize))),
    );
    this.port = port;
  }

  paramsFor(requestId: string, promptTokens: number): KvTransferParams {
    const n = Math.ceil(promptTokens / this.blockSize);
    const first = this.nextBlock;
    this.nextBlock = (this.nextBlock + n) % this.totalBlocks;
    return {
      do_remote_prefill: true,
      do_remote_decode: false,
      remote_block_ids: Array.from({ length: n }, (_, i) => (first + i) % this.totalBlocks),
      remote_engine_id: this.engineId,
      remote_request_id: requestId,
      remote_num_tokens: promptTokens,
      remote_host: this.host,
      remote_port: this.port,
      tp_size: this.tpSize,
    };
  }
}
