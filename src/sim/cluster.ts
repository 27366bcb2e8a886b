import type { CacheOptions, PromptSources, SchedulerLimits, Sequence, SimRequest } from './instance.js';
import { Instance } from './instance.js';
import type { EngineSpec } from './perf.js';
import { gpusOf, sequenceKvBytes } from './perf.js';

/**
 * A deployment in virtual time: one pool of aggregated workers, or prefill and decode pools
 * with a router and KV-cache transfers between them. Driven by `advance(until)`, which runs
 * every step and transfer that ends by then and reports tokens as they are produced. Pure.
 */

export interface PoolSpec {
  engine: EngineSpec;
  limits: SchedulerLimits;
  workers: number;
  /** Prefix caching and the DRAM tier, per instance (default: prefix caching, no DRAM). */
  cache?: CacheOptions | undefined;
}

export type Topology = { kind: 'aggregated'; pool: PoolSpec } | { kind: 'disaggregated'; prefill: PoolSpec; decode: PoolSpec };

/** Tokens a request received at `time` (virtual ms). */
export interface TokenEvent {
  id: number;
  tokens: number;
  time: number;
  finished: boolean;
}

interface Transfer {
  at: number;
  request: SimRequest;
  target: Instance;
  /** Prefilled elsewhere (`submitPrefilled`): the target counts the first token as its own. */
  remote: boolean;
}

/** One-way latency of starting a KV transfer (connection setup, RDMA registration). */
export const TRANSFER_LATENCY_MS = 0.5;

/**
 * Milliseconds to move a prompt's KV cache between instances: a fixed latency, plus the prompt's
 * KV bytes (as `spec` holds them, over all its GPUs) over `lanes` GPU links, scale-up within one
 * domain, else the scale-out NIC. Pure.
 */
export function kvTransferMs(spec: EngineSpec, promptTokens: number, link: { lanes: number; sameDomain: boolean }): number {
  const bytes = sequenceKvBytes(spec, promptTokens) * gpusOf(spec.parallelism);
  const eff = spec.efficiency;
  const perGpu = (link.sameDomain ? spec.hardware.scaleUpBandwidthGBps : eff.scaleOutBandwidthGBps) * eff.network;
  return TRANSFER_LATENCY_MS + (bytes / (perGpu * 1e9 * link.lanes)) * 1e3;
}

export class Cluster {
  now = 0;
  readonly prefill: Instance[];
  readonly decode: Instance[];
  private readonly transfers: Transfer[] = [];
  /** Where each live request is. */
  private readonly where = new Map<number, { instance: Instance; sequence: Sequence } | Transfer>();

  constructor(readonly topology: Topology) {
    const make = (pool: PoolSpec, role: 'agg' | 'prefill' | 'decode'): Instance[] =>
      Array.from({ length: pool.workers }, () => new Instance(pool.engine, pool.limits, role, pool.cache));
    if (topology.kind === 'aggregated') {
      this.prefill = make(topology.pool, 'agg');
      this.decode = this.prefill;
    } else {
      this.prefill = make(topology.prefill, 'prefill');
      this.decode = make(topology.decode, 'decode');
    }
  }

  get instances(): Instance[] {
    return this.prefill === this.decode ? this.prefill : [...this.prefill, ...this.decode];
  }

  /** GPUs of the whole deployment. */
  get gpus(): number {
    const t = this.topology;
    if (t.kind === 'aggregated') return t.pool.workers * gpusOf(t.pool.engine.parallelism);
    return t.prefill.workers * gpusOf(t.prefill.engine.parallelism) + t.decode.workers * gpusOf(t.decode.engine.parallelism);
  }

  /** Most tokens (prompt + output) one request can hold in the decode workers' KV cache. */
  get maxSequenceTokens(): number {
    return Math.min(...this.decode.map((i) => i.maxSequenceTokens), ...this.prefill.map((i) => i.maxSequenceTokens));
  }

  /** Requests queued or running anywhere. */
  get inFlight(): number {
    return this.where.size;
  }

  submit(request: SimRequest, now: number): void {
    if (this.where.has(request.id)) throw new Error(`request ${request.id} is already in flight`);
    this.now = Math.max(this.now, now);
    const instance = leastLoaded(this.prefill);
    this.where.set(request.id, { instance, sequence: instance.enqueue(request) });
    if (instance.busyUntil === undefined) instance.start(this.now);
  }

  /** The client went away: free whatever the request holds. */
  cancel(id: number): void {
    const at = this.where.get(id);
    if (!at) return;
    this.where.delete(id);
    if ('sequence' in at) at.instance.cancel(at.sequence);
    else this.transfers.splice(this.transfers.indexOf(at), 1);
  }

  /** When the next step or transfer ends, or undefined when idle. */
  nextEventTime(): number | undefined {
    let next: number | undefined;
    for (const i of this.instances) {
      const at = i.busyUntil ?? i.wakeAt;
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    for (const t of this.transfers) if (next === undefined || t.at < next) next = t.at;
    return next;
  }

  /** Run every event that ends by `until`, in time order; tokens go to `emit`. */
  advance(until: number, emit: (event: TokenEvent) => void): void {
    for (;;) {
      const next = this.nextEventTime();
      if (next === undefined || next > until) break;
      this.now = next;
      if (this.transfers.length > 0) for (const t of this.transfers.filter((x) => x.at <= next)) this.land(t, emit);
      for (const instance of this.instances) {
        if (instance.busyUntil !== undefined && instance.busyUntil <= next) this.finishStep(instance, emit);
      }
      for (const instance of this.instances) if (instance.busyUntil === undefined && instance.hasWork) instance.start(this.now);
    }
    this.now = Math.max(this.now, until);
  }

  private finishStep(instance: Instance, emit: (event: TokenEvent) => void): void {
    for (const out of instance.finish()) {
      const id = out.sequence.request.id;
      if (instance.role === 'prefill' && out.prefillDone && out.sequence.request.outputTokens > 1) {
        this.handOff(out.sequence.request, instance);
        continue;
      }
      if (out.finished) this.where.delete(id);
      if (out.tokens > 0 || out.finished) emit({ id, tokens: out.tokens, time: this.now, finished: out.finished });
    }
  }

  /** A prefilled sequence's KV travels to the least-loaded decode worker. */
  private handOff(request: SimRequest, from: Instance): void {
    const target = leastLoaded(this.decode);
    const ms = kvTransferMs(from.spec, request.promptTokens, {
      lanes: Math.min(gpusOf(from.spec.parallelism), gpusOf(target.spec.parallelism)),
      sameDomain: this.gpus <= from.spec.hardware.scaleUpDomain,
    });
    this.transfer(request, target, this.now + ms, false);
  }

  /**
   * A request whose prompt another deployment prefilled (a decode server behind a PD router):
   * its KV cache travels to the least-loaded decode worker first, as `handOff` models it with this
   * engine's spec, then it decodes from there; the first token is emitted when the transfer lands.
   * `sourceGpus` is the prefill instance's GPU count (the lanes the transfer runs on; default:
   * the same as the target's). Returns when the transfer lands (virtual ms).
   */
  submitPrefilled(request: SimRequest, now: number, source: { gpus?: number | undefined } = {}): number {
    if (this.where.has(request.id)) throw new Error(`request ${request.id} is already in flight`);
    this.now = Math.max(this.now, now);
    const target = leastLoaded(this.decode);
    const targetGpus = gpusOf(target.spec.parallelism);
    const sourceGpus = source.gpus ?? targetGpus;
    const ms = kvTransferMs(target.spec, request.promptTokens, {
      lanes: Math.min(sourceGpus, targetGpus),
      sameDomain: this.gpus + sourceGpus <= target.spec.hardware.scaleUpDomain,
    });
    return this.transfer(request, target, this.now + ms, true);
  }

  private transfer(request: SimRequest, target: Instance, at: number, remote: boolean): number {
    const transfer: Transfer = { at, request, target, remote };
    this.transfers.push(transfer);
    this.where.set(request.id, transfer);
    return at;
  }

  /** A transfer lands: the decode worker takes the sequence and streams its first token. */
  private land(transfer: Transfer, emit: (event: TokenEvent) => void): void {
    this.transfers.splice(this.transfers.indexOf(transfer), 1);
    if (transfer.remote) transfer.target.generatedTokens++;
    if (transfer.request.outputTokens <= 1) {
      this.where.delete(transfer.request.id);
      emit({ id: transfer.request.id, tokens: 1, time: this.now, finished: true });
      return;
    }
    const sequence = transfer.target.enqueue(transfer.request, true);
    this.where.set(transfer.request.id, { instance: transfer.target, sequence });
    emit({ id: transfer.request.id, tokens: 1, time: this.now, finished: false });
  }

  /** Counters over every worker, for /metrics. */
  stats(): ClusterStats {
    const all = this.instances;
    const sum = (f: (i: Instance) => number, pool = all): number => pool.reduce((s, i) => s + f(i), 0);
    const capacity = sum((i) => i.capacityBytes);
    const dramBlocks = sum((i) => i.cache?.dramBlocks ?? 0);
    const sources: PromptSources = {
      localCompute: sum((i) => i.promptSources.localCompute),
      localCacheHit: sum((i) => i.promptSources.localCacheHit),
      externalKvTransfer: sum((i) => i.promptSources.externalKvTransfer),
    };
    return {
      running: sum((i) => i.running.length),
      waiting: sum((i) => i.waiting.length) + this.transfers.length,
      kvUsage: capacity > 0 ? sum((i) => i.activeBytes) / capacity : 0,
      preemptions: sum((i) => i.preemptions),
      // vLLM counts every prompt token of a request once, cached or computed.
      promptTokens: sources.localCompute + sources.localCacheHit + sources.externalKvTransfer,
      generatedTokens: sum((i) => i.generatedTokens),
      promptSources: sources,
      prefixCaching: all.some((i) => i.cache !== undefined),
      cacheQueries: sum((i) => i.cacheQueries),
      cacheHits: sum((i) => i.cacheHits),
      dramTier: dramBlocks > 0,
      externalQueries: sum((i) => i.externalQueries),
      externalHits: sum((i) => i.externalHits),
      dramUsage: dramBlocks > 0 ? sum((i) => i.cache?.dramBlocksUsed ?? 0) / dramBlocks : 0,
      offloadBytesGpuToCpu: sum((i) => (i.cache?.offloadedBlocks ?? 0) * i.hostBlockBytes),
      offloadBytesCpuToGpu: sum((i) => (i.cache?.loadedBlocks ?? 0) * i.hostBlockBytes),
      offloadSecondsGpuToCpu: sum((i) => i.offloadMs) / 1e3,
      offloadSecondsCpuToGpu: sum((i) => i.loadMs) / 1e3,
      blockSize: all[0]!.limits.blockSize,
      gpuBlocks: sum((i) => Math.floor(i.capacityBytes / i.blockBytes)),
      cpuBlocks: dramBlocks,
    };
  }
}

/** What /metrics reports, over every worker of the deployment. */
export interface ClusterStats {
  running: number;
  waiting: number;
  /** Share of the KV pool held by running sequences (unused cached blocks count as free, as in vLLM). */
  kvUsage: number;
  preemptions: number;
  /** Prompt tokens of the requests admitted (cached or computed, each request once). */
  promptTokens: number;
  generatedTokens: number;
  promptSources: PromptSources;
  prefixCaching: boolean;
  /** Prefix-cache lookups and HBM hits, in tokens. */
  cacheQueries: number;
  cacheHits: number;
  /** A DRAM tier exists; its lookups and hits (tokens), and its occupancy (0–1). */
  dramTier: boolean;
  externalQueries: number;
  externalHits: number;
  dramUsage: number;
  offloadBytesGpuToCpu: number;
  offloadBytesCpuToGpu: number;
  offloadSecondsGpuToCpu: number;
  offloadSecondsCpuToGpu: number;
  blockSize: number;
  /** KV blocks of HBM and of DRAM, over every worker. */
  gpuBlocks: number;
  cpuBlocks: number;
}

function leastLoaded(pool: Instance[]): Instance {
  let best = pool[0]!;
  for (const i of pool) if (i.load < best.load) best = i;
  return best;
}
