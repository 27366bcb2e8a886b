import { hostLinkGBps } from './host-link.js';
import type { EngineSpec, StepLoad, StepTime } from './perf.js';
import { gpusOf, memory, sequenceKvBytes, stepTime, verifyTokens } from './perf.js';
import { PrefixCache } from './prefix-cache.js';
import { AcceptanceSampler, emptySpecDecodeCounts, observeDraft } from './speculative.js';
import type { SpecDecodeCounts } from './speculative.js';
import { Rng } from '../util/rng.js';

/**
 * One engine instance with a continuous-batching scheduler, in virtual time (ms). Like vLLM's
 * v1 scheduler: each step first serves the running sequences (decodes, then unfinished prefill
 * chunks), then admits waiting ones while `maxNumSeqs`, the token budget `maxNumBatchedTokens`
 * (chunked prefill) and the paged KV cache allow. When the cache cannot hold a running
 * sequence's next tokens, the most recently admitted sequence is preempted: its KV is freed and
 * it is recomputed later. With prefix caching (CacheOptions) a new sequence whose prompt
 * starts with cached blocks pins them and prefills only the rest; blocks from host DRAM first
 * cross the host link, the sequence waiting (holding its memory) until they land. Pure: no I/O,
 * no clock.
 */

export interface SchedulerLimits {
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  /** Tokens per KV block (paged attention). */
  blockSize: number;
}

export const DEFAULT_LIMITS: SchedulerLimits = { maxNumSeqs: 256, maxNumBatchedTokens: 8192, blockSize: 16 };

/** KV-cache reuse: vLLM's automatic prefix caching, and a host-DRAM tier under it. */
export interface CacheOptions {
  /** Reuse cached prompt blocks (vLLM's `--enable-prefix-caching`, on by default). */
  prefixCaching: boolean;
  /** Host DRAM this instance offloads evicted blocks to, bytes (0: no DRAM tier). */
  dramBytes: number;
  /** GPU ↔ host bandwidth per GPU, one direction, GB/s (default: the hardware's link, host-link.ts). */
  hostLinkGBps?: number | undefined;
}

export const DEFAULT_CACHE: CacheOptions = { prefixCaching: true, dramBytes: 0 };

/** Prompt tokens by where their KV came from (vLLM's `prompt_tokens_by_source`). */
export interface PromptSources {
  localCompute: number;
  localCacheHit: number;
  externalKvTransfer: number;
}

/** `agg` prefills and decodes; `prefill` hands sequences off after prefill; `decode` receives them prefilled. */
export type InstanceRole = 'agg' | 'prefill' | 'decode';

export interface SimRequest {
  id: number;
  promptTokens: number;
  /** Tokens the request will generate (its max_tokens, or where it would stop). */
  outputTokens: number;
  /** Hashes of the prompt's full blocks (block-hash.ts), for prefix caching; none: never cached. */
  blockHashes?: readonly number[] | undefined;
  /** Prompt tokens found cached when it was first admitted (set by the instance; `cached_tokens`). */
  cachedTokens?: number | undefined;
}

/** A sequence inside an instance. */
export interface Sequence {
  request: SimRequest;
  /** Tokens the (next) prefill computes: the prompt, plus what was generated before a preemption. */
  prefillTarget: number;
  prefilled: number;
  generated: number;
  /** KV bytes held privately (block-rounded), beyond the cached blocks it pins. */
  kvBytes: number;
  /** Leading prompt blocks pinned in the prefix cache (shared, counted by the cache). */
  pinned: number;
  /** Its cached prefix is still crossing the host link until then (virtual ms). */
  readyAt: number;
  state: 'waiting' | 'running' | 'done';
  cancelled: boolean;
}

/** What a finished step did to one sequence. */
export interface StepOutput {
  sequence: Sequence;
  /** Tokens emitted this step (0 for a prefill chunk that did not finish the prompt). */
  tokens: number;
  /** The prefill finished in this step (a `prefill` instance hands the sequence off now). */
  prefillDone: boolean;
  finished: boolean;
}

interface Planned {
  sequence: Sequence;
  /** Prefill tokens computed, or 0 for a decode. */
  chunk: number;
}

export class Instance {
  readonly waiting: Sequence[] = [];
  readonly running: Sequence[] = [];
  readonly capacityBytes: number;
  /** KV bytes the sequences hold privately; the prefix cache's blocks come on top (`usedBytes`). */
  kvUsedBytes = 0;
  preemptions = 0;
  promptTokensComputed = 0;
  generatedTokens = 0;
  /** Prefix-cache lookups (vLLM's prefix_cache_queries / hits, in tokens), and the DRAM tier's. */
  cacheQueries = 0;
  cacheHits = 0;
  externalQueries = 0;
  externalHits = 0;
  /** Prompt tokens of the requests admitted, by source, each request counted once. */
  readonly promptSources: PromptSources = { localCompute: 0, localCacheHit: 0, externalKvTransfer: 0 };
  /** Host-link transfer time spent, each direction (ms). */
  offloadMs = 0;
  loadMs = 0;
  /** End of the step in flight, or undefined when idle. */
  busyUntil: number | undefined;
  /** Idle, but a sequence's cached prefix lands then: start a step. */
  wakeAt: number | undefined;
  readonly cache: PrefixCache | undefined;
  /** Bytes of one cached block, as the KV pool counts them (one GPU's worth per shard). */
  readonly blockBytes: number;
  /** Bytes of one block in host DRAM: every GPU's shard. */
  readonly hostBlockBytes: number;
  private readonly hostLinkBytesPerMs: number;
  private hostLinkFreeAt = 0;
  /** Told of every step when it is planned: its start and end (virtual ms) and what bounds it (power.ts). */
  onStep: ((start: number, end: number, time: StepTime, load: StepLoad) => void) | undefined;
  private planned: Planned[] = [];
  private readonly verify: number;
  /** Speculative decoding: draft tokens accepted per verification, drawn as vLLM's synthetic sampler does. */
  private readonly acceptance: AcceptanceSampler | undefined;
  /** Speculative decoding's counters (vLLM's spec_decode_* metrics); undefined without it. */
  readonly specDecode: SpecDecodeCounts | undefined;

  /**
   * `ranks` > 1: this is one of a data-parallel-attention instance's ranks (`Worker` in cluster.ts):
   * its own scheduler over its own GPU's share of the KV cache. `seed` seeds the acceptance draws.
   */
  constructor(
    readonly spec: EngineSpec,
    readonly limits: SchedulerLimits,
    readonly role: InstanceRole = 'agg',
    readonly cacheOptions: CacheOptions = DEFAULT_CACHE,
    readonly ranks = 1,
    seed = 0,
  ) {
    this.capacityBytes = memory(spec).kvCapacityBytes / ranks;
    this.verify = verifyTokens(spec);
    if (spec.speculative) {
      this.acceptance = new AcceptanceSampler(spec.speculative, new Rng(seed));
      this.specDecode = emptySpecDecodeCounts(spec.speculative.draftTokens);
    }
    this.blockBytes = sequenceKvBytes(spec, limits.blockSize);
    const { pp, dpAttn } = spec.parallelism;
    this.hostBlockBytes = this.blockBytes * (dpAttn ? pp : gpusOf(spec.parallelism));
    const linkGBps = cacheOptions.hostLinkGBps ?? hostLinkGBps(spec.hardware) * spec.efficiency.network;
    // Every GPU moves its own shard over its own link, in parallel.
    this.hostLinkBytesPerMs = linkGBps * 1e6;
    const dramBlocks = cacheOptions.dramBytes > 0 ? Math.floor(cacheOptions.dramBytes / this.hostBlockBytes) : 0;
    this.cache = cacheOptions.prefixCaching ? new PrefixCache(dramBlocks) : undefined;
  }

  /** GPUs this scheduler drives (one rank's, under data-parallel attention). */
  get gpus(): number {
    return gpusOf(this.spec.parallelism) / this.ranks;
  }

  /** Bytes of the KV pool in use: the sequences' own, and every cached block (evictable or not). */
  get usedBytes(): number {
    return this.kvUsedBytes + (this.cache ? this.cache.gpuBlocks * this.blockBytes : 0);
  }

  /** Bytes in use by running sequences (cached blocks nobody uses count as free, as vLLM's usage gauge counts them). */
  get activeBytes(): number {
    return this.kvUsedBytes + (this.cache ? this.cache.pinnedBlocks * this.blockBytes : 0);
  }

  /** Milliseconds to move `blocks` blocks over the host link. */
  hostTransferMs(blocks: number): number {
    return (blocks * this.blockBytes) / this.hostLinkBytesPerMs;
  }

  /** KV bytes a sequence needs to hold `tokens` tokens (whole blocks). */
  bytesFor(tokens: number): number {
    const bs = this.limits.blockSize;
    return sequenceKvBytes(this.spec, Math.ceil(tokens / bs) * bs);
  }

  /** Most tokens one sequence can ever hold here. */
  get maxSequenceTokens(): number {
    let lo = 0;
    let hi = 1 << 30;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.bytesFor(mid) <= this.capacityBytes) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  enqueue(request: SimRequest, prefilled = false): Sequence {
    const sequence: Sequence = {
      request,
      prefillTarget: request.promptTokens,
      prefilled: prefilled ? request.promptTokens : 0,
      // A sequence handed over after prefill arrives with its first token.
      generated: prefilled ? 1 : 0,
      kvBytes: 0,
      pinned: 0,
      readyAt: 0,
      state: 'waiting',
      cancelled: false,
    };
    this.waiting.push(sequence);
    return sequence;
  }

  /** Sequences queued or running (for routing). */
  get load(): number {
    return this.waiting.length + this.running.length;
  }

  get hasWork(): boolean {
    return this.waiting.length > 0 || this.running.length > 0;
  }

  /** Drop a sequence (the client went away): freed now, or at the end of the step that holds it. */
  cancel(sequence: Sequence): void {
    sequence.cancelled = true;
    if (sequence.state === 'waiting') {
      this.waiting.splice(this.waiting.indexOf(sequence), 1);
      sequence.state = 'done';
    } else if (sequence.state === 'running' && this.busyUntil === undefined) this.release(sequence);
  }

  private release(sequence: Sequence): void {
    if (sequence.state === 'running') this.running.splice(this.running.indexOf(sequence), 1);
    sequence.state = 'done';
    this.unpin(sequence);
    this.kvUsedBytes -= sequence.kvBytes;
    sequence.kvBytes = 0;
  }

  /** A sequence lets go of its cached blocks: they stay cached, evictable. */
  private unpin(sequence: Sequence): void {
    if (sequence.pinned > 0) this.cache!.release(sequence.request.blockHashes!, sequence.pinned);
    sequence.pinned = 0;
  }

  /** Private bytes a sequence needs to hold `tokens` tokens, beyond the cached blocks it pins. */
  private privateBytes(sequence: Sequence, tokens: number): number {
    return Math.max(0, this.bytesFor(tokens) - sequence.pinned * this.blockBytes);
  }

  /** Room for `bytes` more in the KV pool, evicting unused cached blocks (LRU) if need be. */
  private makeRoom(bytes: number): boolean {
    const short = this.usedBytes + bytes - this.capacityBytes;
    if (short <= 0) return true;
    const cache = this.cache;
    if (!cache || cache.evictableBlocks * this.blockBytes < short) return false;
    const { offloaded } = cache.evict(Math.ceil(short / this.blockBytes));
    // Offloads run on the device-to-host direction of the link and hold no request back.
    this.offloadMs += this.hostTransferMs(offloaded);
    return true;
  }

  /** Grow a sequence's KV to `tokens`; false when the cache is full. */
  private grow(sequence: Sequence, tokens: number): boolean {
    const bytes = this.privateBytes(sequence, tokens);
    if (bytes <= sequence.kvBytes) return true;
    if (!this.makeRoom(bytes - sequence.kvBytes)) return false;
    this.kvUsedBytes += bytes - sequence.kvBytes;
    sequence.kvBytes = bytes;
    return true;
  }

  /**
   * A sequence about to be admitted with nothing computed looks its prompt up: the longest cached
   * prefix of whole blocks (never the whole prompt: its last token is computed to sample from) is
   * pinned, DRAM blocks brought in over the host link. Returns an undo for when it is not admitted.
   */
  private lookUp(s: Sequence, now: number): (() => void) | undefined {
    if (s.prefilled > 0) return undefined;
    const hashes = s.request.blockHashes;
    const cache = this.cache;
    if (!cache || !hashes || hashes.length === 0) return this.count(s, 0, 0);
    const bs = this.limits.blockSize;
    const limit = Math.min(hashes.length, Math.floor((s.prefillTarget - 1) / bs));
    let found = cache.match(hashes, limit);
    // Room for the blocks coming from DRAM, without evicting the HBM blocks of the match; without
    // it, only the prefix already in HBM is reused.
    if (found.fromDram > 0 && !this.makeRoomKeeping(hashes, found.blocks, found.fromDram)) {
      let inHbm = 0;
      while (inHbm < found.blocks && cache.has(hashes[inHbm]!) === 'gpu') inHbm++;
      found = { blocks: inHbm, fromDram: 0 };
    }
    if (found.blocks === 0) return this.count(s, 0, 0);
    const loaded = cache.acquire(hashes, found.blocks);
    s.pinned = found.blocks;
    s.prefilled = found.blocks * bs;
    if (loaded > 0) {
      const ms = this.hostTransferMs(loaded);
      this.loadMs += ms;
      this.hostLinkFreeAt = Math.max(now, this.hostLinkFreeAt) + ms;
      s.readyAt = this.hostLinkFreeAt;
    }
    const uncount = this.count(s, (found.blocks - loaded) * bs, loaded * bs);
    return () => {
      this.unpin(s);
      s.prefilled = 0;
      s.readyAt = 0;
      uncount();
    };
  }

  /** Make room for `incoming` DRAM blocks while the first `keep` blocks of `hashes` (some evictable) stay. */
  private makeRoomKeeping(hashes: readonly number[], keep: number, incoming: number): boolean {
    if (incoming === 0) return true;
    const cache = this.cache!;
    // Pin the HBM part of the match first so the eviction cannot take it.
    const held: number[] = [];
    for (let i = 0; i < keep; i++) if (cache.has(hashes[i]!) === 'gpu') held.push(hashes[i]!);
    cache.acquire(held, held.length);
    const ok = this.makeRoom(incoming * this.blockBytes);
    cache.release(held, held.length);
    return ok;
  }

  /** Count a lookup (hits in tokens, from HBM and from DRAM); returns its undo. */
  private count(s: Sequence, gpuHit: number, dramHit: number): () => void {
    const cached = this.cache !== undefined;
    const queried = cached ? s.prefillTarget : 0;
    const dram = cached && this.cache.dramBlocks > 0;
    const first = s.request.cachedTokens === undefined;
    this.cacheQueries += queried;
    this.cacheHits += gpuHit;
    if (dram) {
      this.externalQueries += queried;
      this.externalHits += dramHit;
    }
    if (first) {
      s.request.cachedTokens = gpuHit + dramHit;
      this.promptSources.localCacheHit += gpuHit;
      this.promptSources.externalKvTransfer += dramHit;
      this.promptSources.localCompute += s.request.promptTokens - gpuHit - dramHit;
    }
    return () => {
      this.cacheQueries -= queried;
      this.cacheHits -= gpuHit;
      if (dram) {
        this.externalQueries -= queried;
        this.externalHits -= dramHit;
      }
      if (first) {
        s.request.cachedTokens = undefined;
        this.promptSources.localCacheHit -= gpuHit;
        this.promptSources.externalKvTransfer -= dramHit;
        this.promptSources.localCompute -= s.request.promptTokens - gpuHit - dramHit;
      }
    };
  }

  /** A sequence finished its prefill: its full prompt blocks join the cache, pinned by it. */
  private register(s: Sequence): void {
    const hashes = s.request.blockHashes;
    const cache = this.cache;
    if (!cache || !hashes) return;
    const full = Math.min(hashes.length, Math.floor(s.request.promptTokens / this.limits.blockSize));
    if (full <= s.pinned) return;
    for (let i = s.pinned; i < full; i++) cache.insert(hashes[i]!);
    // Those blocks' bytes move from the sequence to the cache (a duplicate's are freed).
    const held = s.kvBytes + s.pinned * this.blockBytes;
    s.pinned = full;
    const own = Math.max(0, held - full * this.blockBytes);
    this.kvUsedBytes += own - s.kvBytes;
    s.kvBytes = own;
  }

  private preempt(victim: Sequence): void {
    this.release(victim);
    victim.readyAt = 0;
    victim.prefillTarget = victim.request.promptTokens + victim.generated;
    victim.prefilled = 0;
    victim.state = 'waiting';
    this.waiting.unshift(victim);
    this.preemptions++;
  }

  /** Plan the next step at `now` and run it; returns its end time, or undefined when there is nothing to do. */
  start(now: number): number | undefined {
    if (this.busyUntil !== undefined) return this.busyUntil;
    const load = this.plan(now);
    if (!load) return undefined;
    return this.commit(now, stepTime(this.spec, load), load);
  }

  /**
   * Choose the next step's sequences at `now`: what it computes, or undefined when there is
   * nothing to do. `commit` starts it; a data-parallel group plans every rank before timing them.
   */
  plan(now: number): StepLoad | undefined {
    // SGLang's policy: while prompts wait (or one is mid-prefill), a step prefills and decodes
    // wait; when none can be admitted after all, the decodes run.
    const prefillFirst =
      this.spec.policy.batching === 'prefill-first' &&
      (this.running.some((s) => s.prefilled < s.prefillTarget) ||
        (this.waiting.length > 0 && this.running.length < this.limits.maxNumSeqs));
    return this.planStep(now, prefillFirst) ?? (prefillFirst ? this.planStep(now, false) : undefined);
  }

  private planStep(now: number, prefillOnly: boolean): StepLoad | undefined {
    this.wakeAt = undefined;
    const planned: Planned[] = [];
    const load: StepLoad = { prefillTokens: 0, prefillAttention: 0, prefillContext: 0, decodeSeqs: 0, decodeContext: 0 };
    let budget = this.limits.maxNumBatchedTokens;
    let preempted = false;

    const addPrefill = (s: Sequence, chunk: number): void => {
      planned.push({ sequence: s, chunk });
      load.prefillTokens += chunk;
      load.prefillAttention += chunk * (s.prefilled + chunk / 2);
      load.prefillContext += s.prefilled + chunk;
      budget -= chunk;
    };

    const addDecode = (s: Sequence): void => {
      planned.push({ sequence: s, chunk: 0 });
      load.decodeSeqs++;
      load.decodeContext += this.contextOf(s);
      budget -= this.verify;
    };

    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const s = this.running[i]!;
      if (s.readyAt > now) {
        this.wakeAt = Math.min(this.wakeAt ?? Infinity, s.readyAt);
        continue;
      }
      const prefilling = s.prefilled < s.prefillTarget;
      if (prefillOnly && !prefilling) continue;
      const chunk = prefilling ? Math.min(s.prefillTarget - s.prefilled, budget) : 0;
      const tokens = prefilling ? s.prefilled + chunk : this.contextOf(s) + this.verify;
      // Make room by preempting from the back; a sequence that is itself the back yields.
      while (!this.grow(s, tokens)) {
        const victim = this.running[this.running.length - 1]!;
        this.preempt(victim);
        preempted = true;
        if (victim === s) break;
      }
      if (s.state !== 'running') break;
      if (prefilling) addPrefill(s, chunk);
      else addDecode(s);
    }

    // New sequences only when nothing had to be preempted (as vLLM does).
    while (!preempted && budget > 0 && this.waiting.length > 0 && this.running.length < this.limits.maxNumSeqs) {
      const s = this.waiting[0]!;
      const undo = this.lookUp(s, now);
      const prefilling = s.prefilled < s.prefillTarget;
      const chunk = prefilling ? Math.min(s.prefillTarget - s.prefilled, budget) : 0;
      if (!this.grow(s, prefilling ? s.prefilled + chunk : this.contextOf(s) + this.verify)) {
        undo?.();
        break;
      }
      this.waiting.shift();
      s.state = 'running';
      this.running.push(s);
      if (s.readyAt > now) this.wakeAt = Math.min(this.wakeAt ?? Infinity, s.readyAt);
      else if (prefilling) addPrefill(s, chunk);
      else addDecode(s);
    }

    if (planned.length === 0) return undefined;
    this.wakeAt = undefined;
    this.planned = planned;
    return load;
  }

  /** Start the planned step (possibly empty: an idle rank of a data-parallel group waits with the others); returns its end. */
  commit(now: number, time: StepTime, load: StepLoad): number {
    this.busyUntil = now + time.ms;
    this.onStep?.(now, this.busyUntil, time, load);
    return this.busyUntil;
  }

  /** Tokens whose KV a sequence holds once prefilled: the prompt and what it generated. */
  private contextOf(s: Sequence): number {
    return s.request.promptTokens + s.generated;
  }

  /** Finish the step in flight: emit tokens, retire finished sequences. */
  finish(): StepOutput[] {
    const outputs: StepOutput[] = [];
    for (const { sequence: s, chunk } of this.planned) {
      if (s.cancelled) {
        if (s.state === 'running') this.release(s);
        continue;
      }
      if (s.state !== 'running') continue; // preempted within the step
      let tokens = 0;
      let prefillDone = false;
      if (chunk > 0) {
        s.prefilled += chunk;
        this.promptTokensComputed += chunk;
        // The step that completes a prefill samples the next token.
        if (s.prefilled >= s.prefillTarget) {
          this.register(s);
          prefillDone = true;
          tokens = 1;
        }
      } else if (this.acceptance) {
        // Counted before the output is cut at max_tokens, as vLLM's scheduler counts the sampler's acceptance.
        const accepted = this.acceptance.draw();
        observeDraft(this.specDecode!, this.acceptance.draftTokens, accepted);
        tokens = 1 + accepted;
      } else tokens = 1;
      tokens = Math.min(tokens, s.request.outputTokens - s.generated);
      s.generated += tokens;
      this.generatedTokens += tokens;
      const finished = s.generated >= s.request.outputTokens || (prefillDone && this.role === 'prefill');
      if (finished) this.release(s);
      outputs.push({ sequence: s, tokens, prefillDone, finished });
    }
    this.planned = [];
    this.busyUntil = undefined;
    return outputs;
  }
}
