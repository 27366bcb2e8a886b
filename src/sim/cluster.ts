import type { CacheOptions, PromptSources, SchedulerLimits, Sequence, SimRequest } from './instance.js';
import { Instance } from './instance.js';
import type { EngineSpec, RankLoad, StepLoad } from './perf.js';
import { gpusOf, sequenceKvBytes, stepTime, verifyTokens } from './perf.js';
import { emptySpecDecodeCounts } from './speculative.js';
import type { SpecDecodeCounts } from './speculative.js';

/**
 * A deployment in virtual time: one pool of aggregated workers, or prefill and decode pools
 * with a router and KV-cache transfers between them. A request reaches a worker after the
 * engine's fixed request latency (and the router's hop when disaggregated). Driven by
 * `advance(until)`, which runs every arrival, step and transfer that ends by then and reports
 * tokens as they are produced. Pure.
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

/** A request on its way: to the engine (`arrival`), or its KV cache to a decode worker. */
interface Transfer {
  at: number;
  request: SimRequest;
  /** The decode rank a KV transfer lands on; none for an arrival (routed when it lands). */
  target?: Instance | undefined;
  /** Prefilled elsewhere (`submitPrefilled`): the target counts the first token as its own. */
  remote: boolean;
}

/**
 * Milliseconds to move a prompt's KV cache between instances: a fixed latency, plus the prompt's
 * KV bytes (as `spec` holds them, over all its GPUs) over `lanes` GPU links, scale-up within one
 * domain, else the scale-out NIC. Pure.
 */
export function kvTransferMs(spec: EngineSpec, promptTokens: number, link: { lanes: number; sameDomain: boolean }): number {
  const bytes = sequenceKvBytes(spec, promptTokens) * gpusOf(spec.parallelism);
  const eff = spec.efficiency;
  const perGpu = (link.sameDomain ? spec.hardware.scaleUpBandwidthGBps : eff.scaleOutBandwidthGBps) * eff.network;
  return eff.kvTransferLatencyMs + (bytes / (perGpu * 1e9 * link.lanes)) * 1e3;
}

/**
 * One worker: a scheduler, or under data-parallel attention one per rank, stepping together
 * (every rank joins each step's all-to-alls, so the step waits for the busiest rank).
 */
class Worker {
  readonly ranks: Instance[];
  private nextRank = 0;

  /** `nextSeed()`: the seed of each rank's acceptance draws. */
  constructor(
    private readonly pool: PoolSpec,
    role: 'agg' | 'prefill' | 'decode',
    nextSeed: () => number,
  ) {
    const { tp, dpAttn } = pool.engine.parallelism;
    const n = dpAttn ? tp : 1;
    this.ranks = Array.from({ length: n }, () => new Instance(pool.engine, pool.limits, role, pool.cache, n, nextSeed()));
  }

  get load(): number {
    let load = 0;
    for (const r of this.ranks) load += r.load;
    return load;
  }

  get idle(): boolean {
    return this.ranks[0]!.busyUntil === undefined;
  }

  get hasWork(): boolean {
    return this.ranks.some((r) => r.hasWork);
  }

  /** The rank a new request joins: in turn, or the least loaded (the engine's policy). */
  pick(): Instance {
    if (this.ranks.length === 1) return this.ranks[0]!;
    if (this.pool.engine.policy.dpRouting === 'round-robin') return this.ranks[this.nextRank++ % this.ranks.length]!;
    return leastLoaded(this.ranks);
  }

  start(now: number): void {
    if (this.ranks.length === 1) {
      this.ranks[0]!.start(now);
      return;
    }
    const loads = this.ranks.map((r) => r.plan(now));
    if (loads.every((l) => l === undefined)) return;
    const spec = this.pool.engine;
    const verify = verifyTokens(spec);
    const total: StepLoad = { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: 0, decodeContext: 0 };
    const busiest: RankLoad = { tokens: 0, attentionWork: 0, context: 0 };
    const empty = { ...total };
    for (const l of loads) {
      if (!l) continue;
      total.prefillTokens += l.prefillTokens;
      total.prefillAttention += l.prefillAttention;
      total.prefillContext += l.prefillContext;
      total.decodeSeqs += l.decodeSeqs;
      total.decodeContext += l.decodeContext;
      busiest.tokens = Math.max(busiest.tokens, l.prefillTokens + l.decodeSeqs * verify);
      busiest.attentionWork = Math.max(busiest.attentionWork, l.prefillAttention + l.decodeContext * verify);
      busiest.context = Math.max(busiest.context, l.prefillContext + l.decodeContext);
    }
    const time = stepTime(spec, { ...total, busiestRank: busiest });
    this.ranks.forEach((r, i) => r.commit(now, time, loads[i] ?? empty));
  }
}

export class Cluster {
  now = 0;
  /** The schedulers that prefill and that decode (the same ones when aggregated); one per rank under dp-attention. */
  readonly prefill: Instance[];
  readonly decode: Instance[];
  private readonly prefillWorkers: Worker[];
  private readonly decodeWorkers: Worker[];
  private readonly transfers: Transfer[] = [];
  /** Where each live request is. */
  private readonly where = new Map<number, { instance: Instance; sequence: Sequence } | Transfer>();
  /** From a client's request to the engine's scheduler: its fixed latency, and the router's hop. */
  private readonly arrivalMs: number;

  /** `seed` seeds every random draw of the simulation (speculative acceptance), each scheduler its own stream. */
  constructor(
    readonly topology: Topology,
    seed = 0,
  ) {
    let schedulers = 0;
    const nextSeed = (): number => (seed ^ Math.imul(++schedulers, 0x9e3779b1)) >>> 0;
    const make = (pool: PoolSpec, role: 'agg' | 'prefill' | 'decode'): Worker[] =>
      Array.from({ length: pool.workers }, () => new Worker(pool, role, nextSeed));
    const entry = topology.kind === 'aggregated' ? topology.pool : topology.prefill;
    const eff = entry.engine.efficiency;
    this.arrivalMs = eff.requestOverheadMs + (topology.kind === 'disaggregated' ? eff.routerOverheadMs : 0);
    if (topology.kind === 'aggregated') {
      this.prefillWorkers = make(topology.pool, 'agg');
      this.decodeWorkers = this.prefillWorkers;
    } else {
      this.prefillWorkers = make(topology.prefill, 'prefill');
      this.decodeWorkers = make(topology.decode, 'decode');
    }
    this.prefill = this.prefillWorkers.flatMap((w) => w.ranks);
    this.decode = this.decodeWorkers === this.prefillWorkers ? this.prefill : this.decodeWorkers.flatMap((w) => w.ranks);
    this.instances = this.prefill === this.decode ? this.prefill : [...this.prefill, ...this.decode];
    this.workers =
      this.prefillWorkers === this.decodeWorkers ? this.prefillWorkers : [...this.prefillWorkers, ...this.decodeWorkers];
  }

  /** Every scheduler, prefilling ones first. */
  readonly instances: Instance[];
  private readonly workers: Worker[];

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
    if (this.arrivalMs > 0) this.transfer(request, undefined, now + this.arrivalMs, false);
    else {
      const worker = this.admit(request);
      if (worker.idle) worker.start(this.now);
    }
  }

  /**
   * A request reaches the engine: the least-loaded prefilling worker queues it (`advance` starts
   * idle workers once every arrival of the instant is in).
   */
  private admit(request: SimRequest): Worker {
    const worker = leastLoaded(this.prefillWorkers);
    const instance = worker.pick();
    this.where.set(request.id, { instance, sequence: instance.enqueue(request) });
    return worker;
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
      if (this.transfers.some((x) => x.at <= next))
        for (const t of this.transfers.filter((x) => x.at <= next)) this.land(t, emit);
      for (const instance of this.instances) {
        if (instance.busyUntil !== undefined && instance.busyUntil <= next) this.finishStep(instance, emit);
      }
      for (const worker of this.workers) if (worker.idle && worker.hasWork) worker.start(this.now);
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
    const target = leastLoaded(this.decodeWorkers).pick();
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
    const target = leastLoaded(this.decodeWorkers).pick();
    const targetGpus = gpusOf(target.spec.parallelism);
    const sourceGpus = source.gpus ?? targetGpus;
    const ms = kvTransferMs(target.spec, request.promptTokens, {
      lanes: Math.min(sourceGpus, targetGpus),
      sameDomain: this.gpus + sourceGpus <= target.spec.hardware.scaleUpDomain,
    });
    return this.transfer(request, target, this.now + ms, true);
  }

  private transfer(request: SimRequest, target: Instance | undefined, at: number, remote: boolean): number {
    const transfer: Transfer = { at, request, target, remote };
    this.transfers.push(transfer);
    this.where.set(request.id, transfer);
    return at;
  }

  /** A transfer lands: the decode worker takes the sequence and streams its first token. */
  private land(transfer: Transfer, emit: (event: TokenEvent) => void): void {
    this.transfers.splice(this.transfers.indexOf(transfer), 1);
    if (!transfer.target) {
      this.where.delete(transfer.request.id);
      this.admit(transfer.request);
      return;
    }
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
      specDecode: this.specDecodeCounts(),
    };
  }

  /** Speculative decoding's counters over the schedulers that decode; undefined when it is not configured. */
  private specDecodeCounts(): SpecDecodeCounts | undefined {
    const counted = this.decode.map((i) => i.specDecode).filter((c) => c !== undefined);
    if (counted.length === 0) return undefined;
    const total = emptySpecDecodeCounts(Math.max(...counted.map((c) => c.acceptedPerPosition.length)));
    for (const c of counted) {
      total.drafts += c.drafts;
      total.draftTokens += c.draftTokens;
      total.acceptedTokens += c.acceptedTokens;
      c.acceptedPerPosition.forEach((n, i) => (total.acceptedPerPosition[i]! += n));
    }
    return total;
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
  /** Speculative decoding's counters over the decoding schedulers, when it is configured. */
  specDecode: SpecDecodeCounts | undefined;
}

function leastLoaded<T extends { load: number }>(pool: T[]): T {
  let best = pool[0]!;
  for (const i of pool) if (i.load < best.load) best = i;
  return best;
}
