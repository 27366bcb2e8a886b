import { afterEach, describe, expect, it } from 'vitest';
import { Cluster, buildTopology, encode, renderChat } from '../../src/sim/index.js';
import type { SimServer } from '../../src/sim/index.js';
import {
  DEPLOYMENT,
  MODEL,
  completion,
  mean,
  scrape,
  serveWithTruth,
  sharedPrefix,
  streamUsage,
  text,
} from '../support/sim-cache.js';
import type { CacheServer } from '../support/sim-cache.js';

const open: SimServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(...args: Parameters<typeof serveWithTruth>): Promise<CacheServer> {
  const s = await serveWithTruth(...args);
  open.push(s.server);
  return s;
}

/** Whole blocks of a prompt of `n` tokens that a full hit reuses: never its last token. */
const fullHit = (n: number): number => Math.floor((n - 1) / 16) * 16;

describe('sim serve: automatic prefix caching over HTTP', () => {
  it('a repeated prompt hits the cache: cached_tokens is its whole blocks, and its TTFT is far lower', async () => {
    const { server, ttfts } = await serve();
    const prompt = encode(text(6000, 1));
    const n = prompt.length;
    const first = await streamUsage(server.url, '/v1/completions', completion(prompt));
    const second = await streamUsage(server.url, '/v1/completions', completion(prompt));
    expect(first.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    expect(second.prompt_tokens_details).toEqual({ cached_tokens: fullHit(n) });
    const [cold, warm] = await ttfts(2);
    // Beyond the fixed request latency both pay, the warm prompt computes a fraction of the cold one's.
    const topology = buildTopology(DEPLOYMENT);
    const latency = (topology.kind === 'aggregated' ? topology.pool : topology.prefill).engine.efficiency.requestOverheadMs;
    expect(warm! - latency).toBeLessThan((cold! - latency) / 3);

    // Chat, not streamed: the same on the ChatML-rendered prompt.
    const messages = [
      { role: 'system', content: text(800, 2) },
      { role: 'user', content: 'go on' },
    ];
    const ask = async (): Promise<{ usage: { prompt_tokens_details: { cached_tokens: number } } }> =>
      (await (
        await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages, max_tokens: 2 }),
        })
      ).json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } };
    expect((await ask()).usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect((await ask()).usage.prompt_tokens_details.cached_tokens).toBe(fullHit(encode(renderChat(messages)).length));
  });

  it('a prompt that shares a prefix reuses its whole shared blocks only', async () => {
    const { server } = await serve();
    const a = `${text(2000, 3)} and then ${text(500, 4)}`;
    const b = `${text(2000, 3)} and so ${text(700, 5)}`;
    await streamUsage(server.url, '/v1/completions', completion(a));
    const usage = await streamUsage(server.url, '/v1/completions', completion(b));
    const shared = sharedPrefix(encode(a), encode(b));
    expect(shared).toBeGreaterThan(2000);
    expect(usage.prompt_tokens_details!.cached_tokens).toBe(Math.floor(shared / 16) * 16);
  });

  it('without prefix caching nothing is reused and usage carries no details unless asked', async () => {
    const { server } = await serve({ prefixCaching: false }, { promptTokensDetails: false });
    const prompt = encode(text(3000, 6));
    const first = await streamUsage(server.url, '/v1/completions', completion(prompt));
    await streamUsage(server.url, '/v1/completions', completion(prompt));
    expect(first.prompt_tokens_details).toBeUndefined();
    expect(server.cluster.instances[0]!.promptTokensComputed).toBe(2 * prompt.length);
    const m = await scrape(server.url);
    expect(m.value('vllm:prefix_cache_queries_total')).toBeUndefined();
    expect(m.value('vllm:prompt_tokens_by_source_total{model_name="' + MODEL + '",source="local_cache_hit"}')).toBe(0);
    expect(m.text).toContain('enable_prefix_caching="False"');
  });

  it('more prefix reuse gives a higher hit rate and a lower mean TTFT', async () => {
    const runWith = async (sharedWords: number): Promise<{ ttft: number; hitRate: number }> => {
      const { server, ttfts } = await serve();
      const shared = text(sharedWords, 7);
      for (let i = 0; i < 6; i++) {
        const prompt = encode(`${shared} ${text(3000 - sharedWords, 20 + i)}`);
        await streamUsage(server.url, '/v1/completions', completion(prompt));
      }
      const m = await scrape(server.url);
      return {
        ttft: mean(await ttfts(6)),
        hitRate: m.value('vllm:prefix_cache_hits_total')! / m.value('vllm:prefix_cache_queries_total')!,
      };
    };
    const high = await runWith(2500);
    const low = await runWith(300);
    expect(high.hitRate).toBeGreaterThan(low.hitRate + 0.3);
    expect(high.ttft).toBeLessThan(low.ttft);
  });

  it('metrics carry vLLM’s names and types, with counters that agree with each other and with usage', async () => {
    const { server } = await serve();
    const cached: number[] = [];
    const shared = text(1500, 8);
    for (let i = 0; i < 4; i++) {
      const usage = await streamUsage(server.url, '/v1/completions', completion(`${shared} ${text(200, 30 + i)}`));
      cached.push(usage.prompt_tokens_details!.cached_tokens);
    }
    const m = await scrape(server.url);
    for (const [name, type] of [
      ['vllm:prefix_cache_queries_total', 'counter'],
      ['vllm:prefix_cache_hits_total', 'counter'],
      ['vllm:prompt_tokens_by_source_total', 'counter'],
      ['vllm:prompt_tokens_cached_total', 'counter'],
      ['vllm:prompt_tokens_total', 'counter'],
      ['vllm:kv_cache_usage_perc', 'gauge'],
      ['vllm:num_preemptions_total', 'counter'],
      ['vllm:cache_config_info', 'gauge'],
    ])
      expect(m.text).toContain(`# TYPE ${name} ${type}\n`);
    // No DRAM tier: no connector metrics, as vLLM without a KV connector.
    expect(m.text).not.toContain('vllm:external_prefix_cache');
    expect(m.text).not.toContain('vllm:kv_offload_bytes');
    const source = (s: string): number => m.value(`vllm:prompt_tokens_by_source_total{model_name="${MODEL}",source="${s}"}`)!;
    const hits = source('local_cache_hit');
    expect(hits).toBe(cached.reduce((s, x) => s + x, 0));
    expect(hits).toBeGreaterThan(0);
    expect(m.value('vllm:prefix_cache_hits_total')).toBe(hits);
    expect(m.value('vllm:prompt_tokens_cached_total')).toBe(hits);
    expect(m.value('vllm:prompt_tokens_total')).toBe(source('local_compute') + hits + source('external_kv_transfer'));
    expect(m.value('vllm:prefix_cache_queries_total')).toBe(m.value('vllm:prompt_tokens_total'));
    expect(m.value('vllm:kv_cache_usage_perc')).toBe(0); // finished: cached blocks count as free
    const blocks = Math.floor(server.cluster.instances[0]!.capacityBytes / server.cluster.instances[0]!.blockBytes);
    expect(m.text).toContain(`block_size="16",enable_prefix_caching="True",num_cpu_blocks="0",num_gpu_blocks="${blocks}"`);
  });
});

describe('sim serve: a small HBM with and without a host-DRAM tier', () => {
  /** The smallest gpu-memory-utilization whose KV cache holds `tokens` tokens. */
  const utilizationFor = (tokens: number): number => {
    for (let u = 0.1; u < 0.5; u += 0.002) {
      try {
        if (new Cluster(buildTopology({ ...DEPLOYMENT, gpuMemoryUtilization: u })).maxSequenceTokens >= tokens) return u;
      } catch {
        // weights do not fit yet
      }
    }
    throw new Error(`no utilization holds ${tokens} tokens`);
  };

  it('LRU evicts under memory pressure; a DRAM tier keeps the evicted blocks: higher hit rate, lower TTFT', async () => {
    const gpuMemoryUtilization = utilizationFor(16000);
    const prompts = Array.from({ length: 5 }, (_, i) => encode(text(4000, 40 + i)));
    const runWith = async (kvOffloadDramGB: number) => {
      const { server, ttfts } = await serve({ gpuMemoryUtilization, kvOffloadDramGB }, { maxModelLen: 8192 });
      const secondRound: number[] = [];
      for (let round = 0; round < 2; round++)
        for (const p of prompts) {
          const usage = await streamUsage(server.url, '/v1/completions', completion(p));
          if (round === 1) secondRound.push(usage.prompt_tokens_details!.cached_tokens);
        }
      const m = await scrape(server.url);
      const source = (s: string): number => m.value(`vllm:prompt_tokens_by_source_total{model_name="${MODEL}",source="${s}"}`)!;
      const total = source('local_compute') + source('local_cache_hit') + source('external_kv_transfer');
      return {
        m,
        secondRound,
        hitRate: (source('local_cache_hit') + source('external_kv_transfer')) / total,
        ttft: mean((await ttfts(2 * prompts.length)).slice(prompts.length)),
      };
    };
    const hbm = await runWith(0);
    const dram = await runWith(50);
    // Five 4k-token prompts cycle through a 16k-token pool: LRU has evicted each before it
    // returns, all but a head (a prompt's blocks are freed tail first, so its head goes last).
    expect(hbm.secondRound.every((c) => c < 3000)).toBe(true);
    expect(dram.secondRound.every((c) => c > 3900)).toBe(true);
    expect(dram.hitRate).toBeGreaterThan(hbm.hitRate + 0.2);
    expect(dram.ttft).toBeLessThan(hbm.ttft);
    // The DRAM tier's metrics, under vLLM's names.
    const v = dram.m.value;
    // What usage reported cached came from HBM (a prompt's surviving head) or DRAM (the rest).
    expect(v('vllm:external_prefix_cache_hits_total')! + v('vllm:prefix_cache_hits_total')!).toBe(
      dram.secondRound.reduce((s, x) => s + x, 0),
    );
    expect(v('vllm:external_prefix_cache_hits_total')).toBeGreaterThan(10000);
    expect(v('vllm:external_prefix_cache_queries_total')).toBe(v('vllm:prefix_cache_queries_total'));
    expect(v('vllm:kv_offload_bytes_gpu_to_cpu_total')).toBeGreaterThan(0);
    expect(v('vllm:kv_offload_bytes_cpu_to_gpu_total')).toBeGreaterThan(0);
    expect(v('vllm:kv_offload_time_cpu_to_gpu_total')).toBeGreaterThan(0);
    expect(v('vllm:cpu_kv_cache_usage_perc')).toBeGreaterThan(0);
    expect(dram.m.text).toMatch(/num_cpu_blocks="[1-9]\d*"/);
  });
});
