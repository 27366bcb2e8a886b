/**
 * The prefix cache of one engine instance, in blocks keyed by their chained hash (block-hash.ts):
 * an HBM tier whose blocks are pinned by the running sequences that use them (reference counts)
 * and, once no sequence does, kept cached and evictable in least-recently-used order, as vLLM's
 * free-block queue keeps them; and an optional host-DRAM tier (vLLM's native CPU offload,
 * LMCache, SGLang HiCache) that receives the blocks evicted from HBM and evicts its own in LRU
 * order. The instance decides when to evict (when its KV pool needs room) and charges the
 * transfers; this class only keeps the books. Pure.
 */

interface GpuBlock {
  /** Running sequences using this block. */
  refs: number;
}

/** How much of a prompt's block chain the cache holds. */
export interface PrefixMatch {
  /** Leading blocks held in HBM or DRAM (the hit, in blocks). */
  blocks: number;
  /** Of those, the blocks found only in DRAM: loaded over the host link. */
  fromDram: number;
}

export class PrefixCache {
  private readonly gpu = new Map<number, GpuBlock>();
  /** Unpinned HBM blocks, least recently used first (a Map iterates in insertion order). */
  private readonly evictable = new Map<number, GpuBlock>();
  /** DRAM blocks, least recently used first. */
  private readonly dram = new Set<number>();
  /** Blocks copied HBM → DRAM, and DRAM → HBM, since the start. */
  offloadedBlocks = 0;
  loadedBlocks = 0;
  /** Blocks dropped from HBM (to DRAM or lost) and from DRAM. */
  evictedGpuBlocks = 0;
  evictedDramBlocks = 0;

  /** `dramBlocks`: the DRAM tier's capacity in blocks (0: no DRAM tier). */
  constructor(readonly dramBlocks = 0) {
    if (!Number.isInteger(dramBlocks) || dramBlocks < 0) throw new Error(`DRAM blocks must be a whole number, got ${dramBlocks}`);
  }

  /** HBM blocks held, pinned or not. */
  get gpuBlocks(): number {
    return this.gpu.size;
  }

  /** HBM blocks no running sequence uses (free to evict). */
  get evictableBlocks(): number {
    return this.evictable.size;
  }

  get pinnedBlocks(): number {
    return this.gpu.size - this.evictable.size;
  }

  get dramBlocksUsed(): number {
    return this.dram.size;
  }

  has(hash: number): 'gpu' | 'dram' | undefined {
    return this.gpu.has(hash) ? 'gpu' : this.dram.has(hash) ? 'dram' : undefined;
  }

  /** The longest cached prefix of `hashes`, at most `limit` blocks. */
  match(hashes: readonly number[], limit = hashes.length): PrefixMatch {
    const n = Math.min(limit, hashes.length);
    let blocks = 0;
    let fromDram = 0;
    for (; blocks < n; blocks++) {
      const h = hashes[blocks]!;
      if (this.gpu.has(h)) continue;
      if (!this.dram.has(h)) break;
      fromDram++;
    }
    return { blocks, fromDram };
  }

  /**
   * Pin the first `n` blocks of `hashes` for a sequence: HBM blocks gain a reference, DRAM blocks
   * are brought into HBM (the caller made room for `match().fromDram` of them and charges the
   * transfer). Returns the blocks loaded from DRAM.
   */
  acquire(hashes: readonly number[], n: number): number {
    let loaded = 0;
    for (let i = 0; i < n; i++) {
      const h = hashes[i]!;
      const block = this.gpu.get(h);
      if (block) {
        if (block.refs++ === 0) this.evictable.delete(h);
        continue;
      }
      if (!this.dram.has(h)) throw new Error(`block ${i} of the prefix is not cached`);
      this.touchDram(h);
      this.gpu.set(h, { refs: 1 });
      loaded++;
    }
    this.loadedBlocks += loaded;
    return loaded;
  }

  /** A sequence computed a full block: cache it, pinned. False when it was already in HBM (the sequence's copy is a duplicate to free). */
  insert(hash: number): boolean {
    const block = this.gpu.get(hash);
    if (block) {
      if (block.refs++ === 0) this.evictable.delete(hash);
      return false;
    }
    this.gpu.set(hash, { refs: 1 });
    return true;
  }

  /** Unpin the first `n` blocks of `hashes`; the unused ones become the most recently used evictable blocks. */
  release(hashes: readonly number[], n: number): void {
    // Released back to front, so a prompt's tail is evicted before its head (vLLM frees a
    // request's blocks in reverse order for the same reason: the head is more likely shared).
    for (let i = n - 1; i >= 0; i--) {
      const h = hashes[i]!;
      const block = this.gpu.get(h);
      if (!block) throw new Error(`block ${i} of a released prefix is not in HBM`);
      if (--block.refs === 0) this.evictable.set(h, block);
    }
  }

  /**
   * Evict up to `n` unpinned HBM blocks, least recently used first; with a DRAM tier each goes
   * there (the caller charges `offloaded` copies). Returns the blocks evicted and offloaded.
   */
  evict(n: number): { evicted: number; offloaded: number } {
    let evicted = 0;
    let offloaded = 0;
    for (const h of this.evictable.keys()) {
      if (evicted >= n) break;
      this.evictable.delete(h);
      this.gpu.delete(h);
      evicted++;
      if (this.dramBlocks === 0) continue;
      if (this.dram.has(h)) this.touchDram(h);
      else {
        this.storeDram(h);
        offloaded++;
      }
    }
    this.evictedGpuBlocks += evicted;
    this.offloadedBlocks += offloaded;
    return { evicted, offloaded };
  }

  private touchDram(h: number): void {
    this.dram.delete(h);
    this.dram.add(h);
  }

  private storeDram(h: number): void {
    if (this.dram.size >= this.dramBlocks) {
      const oldest = this.dram.values().next().value as number;
      this.dram.delete(oldest);
      this.evictedDramBlocks++;
    }
    this.dram.add(h);
  }
}
