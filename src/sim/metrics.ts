import type { Cluster } from './cluster.js';

/** Engine metrics in Prometheus text format, with vLLM's metric names. */
export function prometheusText(
  model: string,
  stats: ReturnType<Cluster['stats']>,
  finished: ReadonlyMap<string, number>,
): string {
  const label = `model_name=${JSON.stringify(model)}`;
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, values: [labels: string, value: number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) lines.push(`${name}{${labels}} ${value}`);
  };
  metric('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', [[label, stats.running]]);
  metric('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', [[label, stats.waiting]]);
  metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [[label, stats.kvUsage]]);
  metric('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [[label, stats.promptTokens]]);
  metric('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [[label, stats.generatedTokens]]);
  metric('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemptions from the engine.', [
    [label, stats.preemptions],
  ]);
  metric(
    'vllm:request_success_total',
    'counter',
    'Count of successfully processed requests.',
    [...finished].map(([reason, n]) => [`${label},finished_reason="${reason}"`, n]),
  );
  return `${lines.join('\n')}\n`;
}
