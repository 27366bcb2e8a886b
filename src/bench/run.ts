import { performance } from 'node:perf_hooks';
import { Client } from './client.js';
import type { ClientOptions, RequestResult } from './client.js';
import { fileDataset, randomDataset } from './dataset.js';
import type { BenchRequest, RandomDatasetOptions } from './dataset.js';
import { runLoad } from './load.js';
import type { LoadOptions } from './load.js';
import { computeMetrics, distribution } from './metrics.js';
import type { Metrics, MetricsOptions, Outcome } from './metrics.js';
import { SaturationMonitor } from './saturation.js';
import type { ClientLoad } from './saturation.js';
import { loadTokenizer } from './tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

export interface BenchOptions extends ClientOptions, LoadOptions, MetricsOptions {
  /** What results record as `backend` (the reference's `--backend`). */
  backend: string;
  /** `gpt2`, `server`, or a tokenizer.json path. */
  tokenizer: string;
  dataset:
    | ({ kind: 'random' } & Omit<RandomDatasetOptions, 'useChatTemplate' | 'seed'>)
    | { kind: 'file'; path: string; numPrompts?: number | undefined; outputLen: number };
  useChatTemplate: boolean;
  /** Copies of the first request run before the measurement, at the same concurrency. */
  warmups: number;
  /** Largest share of failed requests for a valid run. */
  maxFailureRate: number;
  saveDetailed: boolean;
  /**
   * Measured times are multiplied by this: against a simulated engine running k times faster than
   * real time, k reports simulated time (default 1).
   */
  timeScale?: number | undefined;
  /** Called about twice a second with (done, total, output tokens so far, elapsed ms). */
  onProgress?: ((done: number, total: number, tokens: number, elapsedMs: number) => void) | undefined;
}

export interface BenchReport {
  /** The raw result, with the reference client's keys (plus a `frontier` block). */
  result: Record<string, unknown>;
  metrics: Metrics;
  /** Every measured request, in order. */
  outcomes: Outcome[];
  valid: boolean;
  problems: string[];
  clientLoad: ClientLoad;
}

export async function prepareRequests(o: BenchOptions, tokenizer: Tokenizer): Promise<BenchRequest[]> {
  if (o.dataset.kind === 'random')
    return randomDataset(tokenizer, { ...o.dataset, seed: o.seed, useChatTemplate: o.useChatTemplate });
  const all = await fileDataset(o.dataset.path, tokenizer, o.dataset.outputLen, o.useChatTemplate);
  const n = o.dataset.numPrompts ?? all.length;
  // Cycle through the file when more prompts are asked for than it holds.
  return Array.from({ length: n }, (_, i) => all[i % all.length]!);
}

const timestamp = (d: Date): string => {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
};

/** A run: warm up, send every request under the load policy, measure, judge validity. */
export async function runBench(o: BenchOptions): Promise<BenchReport> {
  const headers = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : undefined;
  const tokenizer = await loadTokenizer(o.tokenizer, { baseUrl: o.baseUrl, model: o.model, headers });
  const requests = await prepareRequests(o, tokenizer);
  const client = new Client(o);
  try {
    if (o.warmups > 0 && requests.length > 0) {
      const warm = Array.from({ length: o.warmups }, () => requests[0]!);
      await runLoad(warm, { ...o, requestRate: Infinity }, (r, _i, slot) => client.send(r, slot));
    }
    const monitor = new SaturationMonitor();
    let done = 0;
    let tokens = 0;
    const started = performance.now();
    const progress = o.onProgress
      ? setInterval(() => o.onProgress!(done, requests.length, tokens, performance.now() - started), 500)
      : undefined;
    monitor.start();
    const startUnix = Date.now() / 1000;
    const bodies = requests.map((r) => client.body(r));
    // The asked rate is in the engine's (simulated) time: k times faster in real time.
    const load = { ...o, requestRate: o.requestRate * (o.timeScale ?? 1) };
    const results = await runLoad(requests, load, async (request, i, slot, scheduledAt) => {
      const r = await client.send(request, slot, scheduledAt, bodies[i]);
      done++;
      tokens += r.usage?.completion_tokens ?? r.tokenChunks;
      return r;
    });
    const scale = o.timeScale ?? 1;
    const durationMs = (performance.now() - started) * scale;
    if (scale !== 1) for (const r of results) scaleTimes(r, scale);
    const endUnix = Date.now() / 1000;
    const clientLoad = monitor.stop();
    if (progress) clearInterval(progress);
    o.onProgress?.(done, requests.length, tokens, durationMs);
    const outcomes = await Promise.all(results.map((r, i) => settleOutcome(r, requests[i]!, tokenizer)));
    const metrics = computeMetrics(outcomes, durationMs, o);
    const problems = validity(metrics, requests.length, o.maxFailureRate, clientLoad);
    const result = resultJson(
      o,
      tokenizer,
      requests.length,
      durationMs,
      startUnix,
      endUnix,
      metrics,
      outcomes,
      problems,
      clientLoad,
    );
    return { result, metrics, outcomes, valid: problems.length === 0, problems, clientLoad };
  } finally {
    await client.close();
  }
}

function scaleTimes(r: RequestResult, k: number): void {
  r.ttft *= k;
  r.latency *= k;
  for (let i = 0; i < r.itl.length; i++) r.itl[i]! *= k;
  // Open-loop lag is measured from a schedule already in real time: scale it from its start.
  if (r.scheduledAt !== undefined) {
    r.sentAt = r.scheduledAt + (r.sentAt - r.scheduledAt) * k;
    r.endAt = r.scheduledAt + (r.endAt - r.scheduledAt) * k;
  }
}

/** Settle a request: success, output tokens (the server's usage, else the client's count, flagged). */
export async function settleOutcome(result: RequestResult, request: BenchRequest, tokenizer: Tokenizer): Promise<Outcome> {
  const usage = result.usage?.completion_tokens;
  let outputTokens = usage ?? 0;
  let tokensFrom: Outcome['tokensFrom'] = usage !== undefined ? 'usage' : 'none';
  if (usage === undefined && result.text !== '') {
    outputTokens = (await tokenizer.encode(result.text)).length;
    tokensFrom = 'tokenizer';
  }
  let reason = result.error;
  if (!reason && result.tokenChunks === 0) reason = 'no output tokens';
  if (!reason && outputTokens === 0) reason = 'zero completion tokens';
  return { result, request, success: reason === undefined, reason, outputTokens, tokensFrom };
}

function validity(m: Metrics, total: number, maxFailureRate: number, load: ClientLoad): string[] {
  const problems: string[] = [];
  const rate = total === 0 ? 0 : m.failed / total;
  if (rate > maxFailureRate)
    problems.push(
      `${m.failed} of ${total} requests failed (${(rate * 100).toFixed(1)}% > ${(maxFailureRate * 100).toFixed(1)}%)`,
    );
  if (m.zeroTokenRequests > 0) problems.push(`${m.zeroTokenRequests} request(s) returned no output tokens`);
  for (const reason of load.reasons) problems.push(`the client was the bottleneck: ${reason}`);
  return problems;
}

function resultJson(
  o: BenchOptions,
  tokenizer: Tokenizer,
  numPrompts: number,
  durationMs: number,
  startUnix: number,
  endUnix: number,
  m: Metrics,
  outcomes: readonly Outcome[],
  problems: string[],
  load: ClientLoad,
): Record<string, unknown> {
  const serverPrompt = outcomes.map((x) => x.result.usage?.prompt_tokens).filter((n): n is number => typeof n === 'number');
  const result: Record<string, unknown> = {
    date: timestamp(new Date(startUnix * 1000)),
    backend: o.backend,
    model_id: o.model,
    tokenizer_id: tokenizer.name,
    best_of: 1,
    num_prompts: numPrompts,
    request_rate: Number.isFinite(o.requestRate) ? o.requestRate : 'inf',
    burstiness: o.burstiness,
    max_concurrency: o.concurrency ?? null,
    duration: durationMs / 1000,
    benchmark_start_time_unix: startUnix,
    benchmark_end_time_unix: endUnix,
    completed: m.completed,
    total_input_tokens: m.totalInput,
    total_output_tokens: m.totalOutput,
    request_throughput: m.requestThroughput,
    'request_goodput:': m.requestGoodput,
    output_throughput: m.outputThroughput,
    total_token_throughput: m.totalTokenThroughput,
    input_lens: m.inputLens,
    output_lens: m.outputLens,
  };
  if (o.saveDetailed) {
    result.ttfts = outcomes.map((x) => (x.success ? x.result.ttft / 1000 : 0));
    result.itls = outcomes.map((x) => x.result.itl.map((g) => g / 1000));
    result.generated_texts = outcomes.map((x) => x.result.text);
    result.errors = outcomes.map((x) => x.reason ?? '');
  }
  Object.assign(result, m.latency);
  result.frontier = {
    valid: problems.length === 0,
    problems,
    failures: m.failures,
    output_tokens_counted_by_client: m.tokensFromTokenizer,
    measured_isl: distribution(serverPrompt.length > 0 ? serverPrompt : m.inputLens),
    measured_isl_source: serverPrompt.length > 0 ? 'server usage.prompt_tokens' : 'client tokenizer',
    measured_osl: distribution(m.outputLens.filter((n) => n > 0)),
    from_schedule: m.fromSchedule ?? null,
    time_scale: o.timeScale ?? 1,
    client: {
      event_loop_delay_p99_ms: load.eventLoopDelayP99Ms,
      event_loop_delay_max_ms: load.eventLoopDelayMaxMs,
      cpu: load.cpu,
      saturated: load.saturated,
    },
    // With --save-detailed: each response's id, to join the per-request arrays with server-side logs.
    ...(o.saveDetailed ? { response_ids: outcomes.map((x) => x.result.id ?? null) } : {}),
  };
  return result;
}
