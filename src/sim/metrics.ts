import type { ClusterStats } from './cluster.js';

/**
 * Engine metrics in Prometheus text format, with vLLM's metric names, types and labels, so a
 * scraper (AIPerf's server-metrics export, InferenceX's vLLM adapter) reads the simulator as it
 * reads vLLM. Counters carry the `_total` suffix in their TYPE line, as prometheus_client writes
 * them. The DRAM-tier metrics appear only with a DRAM tier, as vLLM's appear only with a KV
 * connector; the speculative-decoding ones (vllm/v1/spec_decode/metrics.py) only with speculative
 * decoding configured.
 */
export function prometheusText(model: string, stats: ClusterStats, finished: ReadonlyMap<string, number>): string {
  const label = `model_name=${JSON.stringify(model)}`;
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, values: [labels: string, value: number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) lines.push(`${name}{${labels}} ${value}`);
  };
  const one = (value: number): [string, number][] => [[label, value]];
  metric('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', one(stats.running));
  metric('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', one(stats.waiting));
  metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', one(stats.kvUsage));
  metric('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', one(stats.promptTokens));
  metric('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', one(stats.generatedTokens));
  metric('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemptions from the engine.', one(stats.preemptions));
  const sources = stats.promptSources;
  metric('vllm:prompt_tokens_by_source_total', 'counter', 'Number of prompt tokens by source.', [
    [`${label},source="local_compute"`, sources.localCompute],
    [`${label},source="local_cache_hit"`, sources.localCacheHit],
    [`${label},source="external_kv_transfer"`, sources.externalKvTransfer],
  ]);
  metric(
    'vllm:prompt_tokens_cached_total',
    'counter',
    'Number of cached prompt tokens (local + external).',
    one(sources.localCacheHit + sources.externalKvTransfer),
  );
  if (stats.prefixCaching) {
    metric(
      'vllm:prefix_cache_queries_total',
      'counter',
      'Prefix cache queries, in terms of number of queried tokens.',
      one(stats.cacheQueries),
    );
    metric(
      'vllm:prefix_cache_hits_total',
      'counter',
      'Prefix cache hits, in terms of number of cached tokens.',
      one(stats.cacheHits),
    );
  }
  if (stats.dramTier) {
    metric(
      'vllm:external_prefix_cache_queries_total',
      'counter',
      'External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.',
      one(stats.externalQueries),
    );
    metric(
      'vllm:external_prefix_cache_hits_total',
      'counter',
      'External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.',
      one(stats.externalHits),
    );
    metric('vllm:cpu_kv_cache_usage_perc', 'gauge', 'CPU KV-cache usage. 1 means 100 percent usage.', one(stats.dramUsage));
    metric(
      'vllm:kv_offload_bytes_gpu_to_cpu_total',
      'counter',
      'KV cache bytes offloaded from GPU to CPU.',
      one(stats.offloadBytesGpuToCpu),
    );
    metric(
      'vllm:kv_offload_bytes_cpu_to_gpu_total',
      'counter',
      'KV cache bytes loaded from CPU to GPU.',
      one(stats.offloadBytesCpuToGpu),
    );
    metric(
      'vllm:kv_offload_time_gpu_to_cpu_total',
      'counter',
      'Seconds spent offloading KV cache from GPU to CPU.',
      one(stats.offloadSecondsGpuToCpu),
    );
    metric(
      'vllm:kv_offload_time_cpu_to_gpu_total',
      'counter',
      'Seconds spent loading KV cache from CPU to GPU.',
      one(stats.offloadSecondsCpuToGpu),
    );
  }
  const spec = stats.specDecode;
  if (spec) {
    // vLLM labels these per engine core as well; one simulated server is one engine core.
    const engine = `${label},engine="0"`;
    const counter = (name: string, help: string, value: number): void => metric(name, 'counter', help, [[engine, value]]);
    counter('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.', spec.drafts);
    counter('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.', spec.draftTokens);
    counter('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens.', spec.acceptedTokens);
    metric(
      'vllm:spec_decode_num_accepted_tokens_per_pos_total',
      'counter',
      'Accepted tokens per draft position.',
      spec.acceptedPerPosition.map((n, pos) => [`${engine},position="${pos}"`, n]),
    );
  }
  metric(
    'vllm:request_success_total',
    'counter',
    'Count of successfully processed requests.',
    [...finished].map(([reason, n]) => [`${label},finished_reason="${reason}"`, n]),
  );
  metric('vllm:cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig', [
    [
      `block_size="${stats.blockSize}",enable_prefix_caching="${stats.prefixCaching ? 'True' : 'False'}",num_cpu_blocks="${stats.cpuBlocks}",num_gpu_blocks="${stats.gpuBlocks}"`,
      1,
    ],
  ]);
  return `${lines.join('\n')}\n`;
}
