import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  Instance,
  PrefixCache,
  ROOT_BLOCK_HASH,
  blockHashes,
  engineSpec,
  findHardware,
  findModel,
} from '../../src/sim/index.js';
import type { CacheOptions, EngineSpec, SimRequest } from '../../src/sim/index.js';

const tokens = (n: number, seed = 0): number[] => Array.from({ length: n }, (_, i) => (i * 7919 + seed * 104729) % 50000);

describe('block hashes', () => {
  it('hashes full blocks only, each chained on the one before', () => {
    const a = blockHashes(tokens(100), 16);
    expect(a).toHaveLength(6); // 100 tokens: six full blocks, the last 4 tokens unhashed
    expect(new Set(a).size).toBe(6);
    for (const h of a) expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
    // The same prefix gives the same hashes, whatever follows it.
    expect(blockHashes([...tokens(64), 1, 2, 3], 16)).toEqual(a.slice(0, 4));
  });

  it('a change in one block changes its hash and every later one, not the earlier ones', () => {
    const base = tokens(96);
    const changed = [...base];
    changed[40] = 12345; // in block 2
    const [a, b] = [blockHashes(base, 16), blockHashes(changed, 16)];
    expect(b.slice(0, 2)).toEqual(a.slice(0, 2));
    for (let i = 2; i < 6; i++) expect(b[i]).not.toBe(a[i]);
  });

  it('the same block after a different prefix hashes differently (the chain), and block size matters', () => {
    const block = tokens(16, 3);
    const one = blockHashes([...tokens(16, 1), ...block], 16);
    const two = blockHashes([...tokens(16, 2), ...block], 16);
    expect(one[1]).not.toBe(two[1]);
    expect(blockHashes(tokens(32), 32)[0]).not.toBe(blockHashes(tokens(32), 16)[1]);
    expect(blockHashes(tokens(32), 16, ROOT_BLOCK_HASH + 1)[0]).not.toBe(blockHashes(tokens(32), 16)[0]);
  });

  it('hashes a 100k-token prompt into its 6250 blocks', () => {
    const ids = tokens(100_000);
    const hashes = blockHashes(ids, 16);
    expect(hashes).toHaveLength(6250);
    expect(new Set(hashes).size).toBe(6250);
  });
});

describe('PrefixCache', () => {
  it('keeps pinned blocks; evicts unpinned ones least recently used first', () => {
    const cache = new PrefixCache();
    const [a, b, c] = [
      [1, 2],
      [3, 4],
      [5, 6],
    ];
    for (const p of [a, b, c]) for (const h of p) expect(cache.insert(h)).toBe(true);
    expect(cache.pinnedBlocks).toBe(6);
    expect(cache.evict(10).evicted).toBe(0); // all pinned
    cache.release(b, 2);
    cache.release(a, 2);
    expect(cache.evictableBlocks).toBe(4);
    // b was released first: it goes first, its tail (4) before its head (3).
    expect(cache.evict(1).evicted).toBe(1);
    expect(cache.has(4)).toBeUndefined();
    expect(cache.has(3)).toBe('gpu');
    // A hit refreshes a block: a is pinned again and released, so now 3 is the oldest.
    cache.acquire(a, 2);
    cache.release(a, 2);
    cache.evict(1);
    expect(cache.has(3)).toBeUndefined();
    expect(cache.has(1)).toBe('gpu');
    expect([5, 6].map((h) => cache.has(h))).toEqual(['gpu', 'gpu']); // c is still pinned
    expect(cache.gpuBlocks).toBe(4);
  });

  it('a duplicate insert pins the existing block', () => {
    const cache = new PrefixCache();
    expect(cache.insert(7)).toBe(true);
    expect(cache.insert(7)).toBe(false);
    cache.release([7], 1);
    expect(cache.evictableBlocks).toBe(0); // still pinned once
    cache.release([7], 1);
    expect(cache.evictableBlocks).toBe(1);
  });

  it('matches the longest cached prefix, stopping at the first miss', () => {
    const cache = new PrefixCache();
    for (const h of [1, 2, 3]) cache.insert(h);
    expect(cache.match([1, 2, 3, 4])).toEqual({ blocks: 3, fromDram: 0 });
    expect(cache.match([1, 9, 3])).toEqual({ blocks: 1, fromDram: 0 });
    expect(cache.match([1, 2, 3], 2)).toEqual({ blocks: 2, fromDram: 0 });
    expect(cache.match([9, 1])).toEqual({ blocks: 0, fromDram: 0 });
  });

  it('with a DRAM tier, evicted blocks move there, come back on a hit, and DRAM evicts LRU', () => {
    const cache = new PrefixCache(3);
    for (const h of [1, 2, 3, 4]) cache.insert(h);
    cache.release([1, 2, 3, 4], 4);
    expect(cache.evict(2)).toEqual({ evicted: 2, offloaded: 2 }); // 4 then 3 (tail first)
    expect([1, 2, 3, 4].map((h) => cache.has(h))).toEqual(['gpu', 'gpu', 'dram', 'dram']);
    expect(cache.match([1, 2, 3, 4, 5])).toEqual({ blocks: 4, fromDram: 2 });
    expect(cache.acquire([1, 2, 3, 4], 4)).toBe(2);
    expect(cache.loadedBlocks).toBe(2);
    expect(cache.pinnedBlocks).toBe(4);
    cache.release([1, 2, 3, 4], 4);
    // Evicting blocks DRAM already holds costs no copy.
    expect(cache.evict(2)).toEqual({ evicted: 2, offloaded: 0 });
    expect(cache.evict(2)).toEqual({ evicted: 2, offloaded: 2 });
    // Four blocks went to a three-block DRAM: the least recently used one is gone.
    expect(cache.dramBlocksUsed).toBe(3);
    expect(cache.evictedDramBlocks).toBe(1);
    expect(cache.offloadedBlocks).toBe(4);
  });
});

const spec = (gpuMemoryUtilization = 0.9): EngineSpec =>
  engineSpec({ model: findModel('llama-3.1-8b'), hardware: findHardware('h100'), precision: 'fp8', gpuMemoryUtilization });

/** Run an instance until every sequence finished; the virtual time each request's first token came out. */
function drain(instance: Instance, start = 0): { end: number; firstToken: Map<number, number> } {
  const firstToken = new Map<number, number>();
  let t = start;
  for (let guard = 0; guard < 1e6; guard++) {
    const end = instance.start(t);
    if (end === undefined) {
      if (instance.wakeAt === undefined) break;
      t = instance.wakeAt;
      continue;
    }
    t = end;
    for (const out of instance.finish())
      if (out.tokens > 0 && !firstToken.has(out.sequence.request.id)) firstToken.set(out.sequence.request.id, t);
  }
  return { end: t, firstToken };
}

const request = (id: number, ids: number[], outputTokens = 4): SimRequest => ({
  id,
  promptTokens: ids.length,
  outputTokens,
  blockHashes: blockHashes(ids, DEFAULT_LIMITS.blockSize),
});

describe('an instance with prefix caching', () => {
  it('prefills only what the cache lacks: whole blocks, never the last token', () => {
    const instance = new Instance(spec(), DEFAULT_LIMITS);
    const prompt = tokens(4000);
    const first = request(0, prompt);
    instance.enqueue(first);
    const cold = drain(instance);
    expect(first.cachedTokens).toBe(0);
    expect(instance.promptTokensComputed).toBe(4000);
    expect(instance.cache!.gpuBlocks).toBe(250);
    expect(instance.cache!.pinnedBlocks).toBe(0); // finished: cached, unpinned

    const again = request(1, prompt);
    instance.enqueue(again);
    const warm = drain(instance, cold.end);
    // 4000 tokens = 250 full blocks, but the last token is computed to sample from: 249 blocks hit.
    expect(again.cachedTokens).toBe(249 * 16);
    expect(instance.promptTokensComputed).toBe(4000 + 16);
    expect(warm.firstToken.get(1)! - cold.end).toBeLessThan(cold.firstToken.get(0)!);
    expect({ queries: instance.cacheQueries, hits: instance.cacheHits }).toEqual({ queries: 8000, hits: 249 * 16 });
    expect(instance.promptSources).toEqual({ localCompute: 4000 + 16, localCacheHit: 249 * 16, externalKvTransfer: 0 });

    // A prompt sharing the first 1000 tokens hits their 62 full blocks only.
    const branch = request(2, [...prompt.slice(0, 1000), ...tokens(500, 9)]);
    instance.enqueue(branch);
    drain(instance, warm.end);
    expect(branch.cachedTokens).toBe(62 * 16);
  });

  it('without prefix caching every prompt is computed in full', () => {
    const instance = new Instance(spec(), DEFAULT_LIMITS, 'agg', { prefixCaching: false, dramBytes: 0 });
    const prompt = tokens(2000);
    instance.enqueue(request(0, prompt));
    const cold = drain(instance);
    const again = request(1, prompt);
    instance.enqueue(again);
    drain(instance, cold.end);
    expect(again.cachedTokens).toBe(0);
    expect(instance.promptTokensComputed).toBe(4000);
    expect(instance.cache).toBeUndefined();
  });

  it('evicts cached blocks LRU under memory pressure, never a running sequence’s, and stays within the pool', () => {
    const instance = new Instance(spec(0.2), DEFAULT_LIMITS);
    const fits = instance.maxSequenceTokens;
    const size = Math.floor(fits / 4);
    const first = tokens(size, 100);
    instance.enqueue(request(0, first));
    let t = drain(instance).end;
    // A long-running sequence holds its blocks while others push the pool past full.
    const runner = request(1, tokens(size, 200), 2000);
    instance.enqueue(runner);
    let checked = 0;
    for (let id = 2; id < 12; id++) {
      instance.enqueue(request(id, tokens(size, 300 + id)));
      for (let k = 0; k < 40; k++) {
        const end = instance.start(t);
        if (end === undefined) break;
        t = end;
        instance.finish();
        expect(instance.usedBytes).toBeLessThanOrEqual(instance.capacityBytes);
        const running = instance.running.find((s) => s.request === runner);
        if (running && running.pinned > 0) {
          expect(instance.cache!.has(runner.blockHashes![0]!)).toBe('gpu');
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
    drain(instance, t);
    expect(instance.cache!.evictedGpuBlocks).toBeGreaterThan(0);
    // The first prompt was the least recently used: it is gone.
    const back = request(99, first);
    instance.enqueue(back);
    drain(instance, t);
    expect(back.cachedTokens).toBe(0);
  });

  it('with a DRAM tier, blocks evicted from HBM hit from DRAM, paying the host-link transfer instead of the prefill', () => {
    const run = (cache: CacheOptions): { instance: Instance; back: SimRequest; ttft: number; cold: number } => {
      const instance = new Instance(spec(0.2), DEFAULT_LIMITS, 'agg', cache);
      const size = Math.floor(instance.maxSequenceTokens / 4);
      const first = tokens(size, 1);
      instance.enqueue(request(0, first, 1));
      const cold = drain(instance);
      let t = cold.end;
      // Enough other prompts to push the first out of HBM.
      for (let id = 1; id <= 8; id++) {
        instance.enqueue(request(id, tokens(size, 10 + id), 1));
        t = drain(instance, t).end;
      }
      const back = request(100, first, 1);
      instance.enqueue(back);
      const warm = drain(instance, t);
      return { instance, back, ttft: warm.firstToken.get(100)! - t, cold: cold.firstToken.get(0)! };
    };
    const hbmOnly = run({ prefixCaching: true, dramBytes: 0 });
    const withDram = run({ prefixCaching: true, dramBytes: 200e9 });
    expect(hbmOnly.back.cachedTokens).toBe(0);
    expect(withDram.back.cachedTokens).toBeGreaterThan(0);
    const i = withDram.instance;
    expect(i.externalHits).toBe(withDram.back.cachedTokens);
    expect(i.promptSources.externalKvTransfer).toBe(withDram.back.cachedTokens);
    expect(i.cache!.offloadedBlocks).toBeGreaterThan(0);
    expect(i.cache!.loadedBlocks).toBe(withDram.back.cachedTokens! / 16);
    expect(i.loadMs).toBeCloseTo(i.hostTransferMs(i.cache!.loadedBlocks), 9);
    // The hit waited for its transfer, and still came out well before a recompute would have.
    expect(withDram.ttft).toBeGreaterThan(i.hostTransferMs(i.cache!.loadedBlocks));
    expect(withDram.ttft).toBeLessThan(hbmOnly.ttft);
    expect(hbmOnly.ttft).toBeGreaterThan(hbmOnly.cold * 0.9);
  });
});
