import { DEFAULT_REQUEST_DEADLINE_MS } from '../bench/index.js';
import type { BenchOptions } from '../bench/index.js';
import type { ClientSettings, Launch } from '../engines/index.js';

/**
 * How one point is benched, as InferenceX's `run_benchmark_serving` does it: the random dataset
 * at the row's ISL/OSL with range ratio 0.8, 10 × conc prompts after 2 × conc warmups, closed
 * loop at conc, `ignore_eos`, percentiles of ttft, tpot, itl and e2el at 90, 99 and 99.9; with
 * synthetic acceptance, the measured acceptance length checked against the one injected.
 * One description, two forms: options for the in-process load generator (local runs) and the
 * `frontier bench` command line (job scripts).
 */

export interface PointBench {
  baseUrl: string;
  model: string;
  isl: number;
  osl: number;
  conc: number;
  client: ClientSettings;
  /** The decoding servers' /metrics, when a router fronts them (`specDecodeMetricsUrlsOf`). */
  specDecodeMetricsUrls?: string[] | undefined;
}

/**
 * Where the bench reads speculative decoding's counters when it checks the acceptance length:
 * the decode workers' /metrics (a router's has none), undefined for the endpoint's own.
 */
export function specDecodeMetricsUrlsOf(launch: Launch): string[] | undefined {
  if (launch.client.expectedAcceptanceLength === undefined) return undefined;
  const decoders = launch.processes.filter((p) => p.role === 'decode' && p.port !== undefined);
  if (decoders.length === 0) return undefined;
  return decoders.map((p) => `http://${p.host}:${p.port}${launch.metricsPath ?? '/metrics'}`);
}

export const RANGE_RATIO = 0.8;
export const PROMPTS_PER_CONC = 10;
export const WARMUPS_PER_CONC = 2;
const PERCENTILE_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
const PERCENTILES = [90, 99, 99.9];

export function benchOptionsOf(p: PointBench): BenchOptions {
  return {
    baseUrl: p.baseUrl,
    path: p.client.endpoint,
    chat: p.client.endpoint.includes('chat'),
    model: p.model,
    ignoreEos: true,
    temperature: 0,
    timeoutMs: 6 * 3600 * 1000,
    requestDeadlineMs: DEFAULT_REQUEST_DEADLINE_MS,
    concurrency: p.conc,
    requestRate: Infinity,
    burstiness: 1,
    seed: 0,
    percentileMetrics: [...PERCENTILE_METRICS],
    percentiles: PERCENTILES,
    backend: p.client.backend,
    tokenizer: p.client.tokenizer,
    dataset: {
      kind: 'random',
      numPrompts: PROMPTS_PER_CONC * p.conc,
      inputLen: p.isl,
      outputLen: p.osl,
      rangeRatio: RANGE_RATIO,
      prefixLen: 0,
    },
    useChatTemplate: p.client.useChatTemplate,
    dsv4: p.client.dsv4 ?? false,
    warmups: WARMUPS_PER_CONC * p.conc,
    maxFailureRate: 0.05,
    saveDetailed: false,
    expectedAcceptanceLength: p.client.expectedAcceptanceLength,
    specDecodeMetricsUrls: p.specDecodeMetricsUrls,
    timeScale: p.client.timeScale,
  };
}

/** The same point as `frontier bench` arguments (after the command itself). */
export function benchArgsOf(p: PointBench, resultFile: string): string[] {
  return [
    'bench',
    '--model',
    p.model,
    '--backend',
    p.client.backend,
    '--base-url',
    p.baseUrl,
    '--endpoint',
    p.client.endpoint,
    '--tokenizer',
    p.client.tokenizer,
    '--dataset-name',
    'random',
    '--random-input-len',
    String(p.isl),
    '--random-output-len',
    String(p.osl),
    '--random-range-ratio',
    String(RANGE_RATIO),
    '--num-prompts',
    String(PROMPTS_PER_CONC * p.conc),
    '--max-concurrency',
    String(p.conc),
    '--request-rate',
    'inf',
    '--ignore-eos',
    '--num-warmups',
    String(WARMUPS_PER_CONC * p.conc),
    '--percentile-metrics',
    PERCENTILE_METRICS.join(','),
    '--metric-percentiles',
    PERCENTILES.join(','),
    ...(p.client.useChatTemplate ? ['--use-chat-template'] : []),
    ...(p.client.dsv4 ? ['--dsv4'] : []),
    ...(p.client.expectedAcceptanceLength !== undefined
      ? ['--expected-acceptance-length', String(p.client.expectedAcceptanceLength)]
      : []),
    ...(p.specDecodeMetricsUrls ? ['--spec-decode-metrics-url', ...p.specDecodeMetricsUrls] : []),
    ...(p.client.timeScale !== 1 ? ['--time-scale', String(p.client.timeScale)] : []),
    '--result-file',
    resultFile,
  ];
}
