import { performance } from 'node:perf_hooks';
import { Client } from './client.js';
import type { ClientOptions, RequestResult } from './client.js';
import { fileDataset, randomDataset } from './dataset.js';
import type { BenchRequest, RandomDatasetOptions } from './dataset.js';
import { runLoad } from './load.js';
import type { LoadOptions } from './load.js';
import { NO_OUTPUT_TOKENS, ZERO_COMPLETION_TOKENS, computeMetrics, distribution } from './metrics.js';
import type { Metrics, MetricsOptions, Outcome } from './metrics.js';
import { INVALID_USAGE } from './response.js';
import { SaturationMonitor } from './saturation.js';
import {
  TOLERANCE,
  SIGMAS,
  acceptanceProblem,
  checkAcceptance,
  fetchSpecDecodeCounters,
  specDecodeWindow,
} from './spec-decode.js';
import type { AcceptanceCheck, SpecDecodeStats } from './spec-decode.js';
import type { ClientLoad, SharedCores } from './saturation.js';
import { loadTokenizer } from './tokenizer.js';
import { limiter } from '../util/limiter.js';
import { virtualEpochMs } from '../util/virtual-clock.js';
import type { Tokenizer } from './tokenizer.js';

export interface BenchOptions extends ClientOptions, LoadOptions, MetricsOptions {
  /** What results record as `backend` (the reference's `--backend`). */
  backend: string;
  /** `gpt2`, `server`, or a tokenizer.json path. */
  tokenizer: string;
  dataset:
    | ({ kind: 'random' } & Omit<RandomDatasetOptions, 'useChatTemplate' | 'dsv4' | 'seed'>)
    | { kind: 'file'; path: string; numPrompts?: number | undefined; outputLen: number };
  useChatTemplate: boolean;
  /** With `useChatTemplate`: DeepSeek-V4's encoder instead of the tokenizer's template (the reference's `--dsv4`). */
  dsv4?: boolean | undefined;
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
  /**
   * Where the simulated run's clock meets the wall clock (epoch ms; src/util/virtual-clock.ts):
   * with a time scale, `benchmark_start_time_unix`/`_end_` are on that clock, so they line up with
   * the telemetry of the same run. Default: the bench's own start.
   */
  clockAnchorMs?: number | undefined;
  /**
   * The acceptance length speculative decoding should reach (a golden AL): a run whose measured
   * AL is far from it is invalid (spec-decode.ts says how far is far).
   */
  expectedAcceptanceLength?: number | undefined;
  /**
   * Where the speculative-decoding counters are (default: the server's /metrics): the decoding
   * servers behind a router, which are summed.
   */
  specDecodeMetricsUrls?: string[] | undefined;
  /** The engine runs on this machine's cores too (a local run): the validity gate says so. */
  sharedCores?: SharedCores | undefined;
  /**
   * Awaited after the warmups, before the first measured request, and after the last one (outside
   * the measured duration): where the reference's `--profile` starts and stops the server's profiler.
   */
  beforeMeasure?: ((first: BenchRequest | undefined) => Promise<void>) | undefined;
  afterMeasure?: ((first: BenchRequest | undefined) => Promise<void>) | undefined;
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
  usageCheck: UsageCheck;
  /** The server's speculative-decoding counters over the measured window, when it exports them. */
  specDecode: SpecDecodeStats | undefined;
}

/** The server's completion_tokens against the client tokenizer's count of the streamed text. */
export interface UsageCheck {
  /** Requests compared (a sample of up to USAGE_CHECK_SAMPLE, spread over the run). */
  checked: number;
  /** Of those, how many disagreed by more than a factor of 2 and more than USAGE_SLACK tokens. */
  mismatched: number;
  /** The first disagreement, e.g. `usage 100, text 10 tokens`. */
  example: string | undefined;
  /** Why the check could not run to the end (the tokenizer failed). */
  error: string | undefined;
}

export const USAGE_CHECK_SAMPLE = 64;
/**
 * Tokens by which usage and the client's count may differ whatever the ratio. Counts differ for
 * honest reasons (another tokenizer than the server's, text re-tokenized across token boundaries,
 * special tokens that render as nothing), so only a gross disagreement counts.
 */
export const USAGE_SLACK = 16;

export async function prepareRequests(o: BenchOptions, tokenizer: Tokenizer): Promise<BenchRequest[]> {
  const framing = { useChatTemplate: o.useChatTemplate, dsv4: o.dsv4 };
  if (o.dataset.kind === 'random') return randomDataset(tokenizer, { ...o.dataset, seed: o.seed, ...framing });
  const all = await fileDataset(o.dataset.path, tokenizer, o.dataset.outputLen, framing);
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
    await o.beforeMeasure?.(requests[0]);
    const metricsUrls = o.specDecodeMetricsUrls ?? [`${o.baseUrl}/metrics`];
    const specBefore = await fetchSpecDecodeCounters(metricsUrls, headers);
    const monitor = new SaturationMonitor();
    let done = 0;
    let tokens = 0;
    const started = performance.now();
    const progress = o.onProgress
      ? setInterval(() => o.onProgress!(done, requests.length, tokens, performance.now() - started), 500)
      : undefined;
    monitor.start();
    const wallStart = Date.now();
    const clock = { scale: o.timeScale ?? 1, anchorMs: o.clockAnchorMs ?? wallStart };
    const startUnix = virtualEpochMs(clock, wallStart) / 1000;
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
    const endUnix = virtualEpochMs(clock) / 1000;
    const clientLoad = monitor.stop(o.sharedCores);
    if (progress) clearInterval(progress);
    o.onProgress?.(done, requests.length, tokens, durationMs);
    const specAfter = specBefore ? await fetchSpecDecodeCounters(metricsUrls, headers) : undefined;
    await o.afterMeasure?.(requests[0]);
    const specDecode = specBefore && specAfter ? specDecodeWindow(specBefore, specAfter) : undefined;
    const expected = o.expectedAcceptanceLength;
    const acceptance = expected !== undefined && specDecode ? checkAcceptance(specDecode, expected) : undefined;
    // A few at a time: a server tokenizer is an HTTP call per request without usage.
    const settle = limiter(8);
    const outcomes = await Promise.all(results.map((r, i) => settle(() => settleOutcome(r, requests[i]!, tokenizer))));
    const usageCheck = await checkUsage(outcomes, tokenizer);
    const metrics = computeMetrics(outcomes, durationMs, o);
    const problems = validity(metrics, outcomes, requests.length, o.maxFailureRate, clientLoad, usageCheck, acceptance);
    const result = resultJson(
      o,
      tokenizer,
      requests.length,
      durationMs,
      { startUnix, endUnix, wallStartMs: wallStart },
      metrics,
      outcomes,
      problems,
      clientLoad,
      usageCheck,
      specDecode,
      acceptance,
    );
    return { result, metrics, outcomes, valid: problems.length === 0, problems, clientLoad, usageCheck, specDecode };
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

/**
 * Settle a request: success, output tokens (the server's usage, else the client's count, flagged).
 * Never rejects: a tokenizer that fails (a server tokenizer whose server died) fails the request.
 */
export async function settleOutcome(result: RequestResult, request: BenchRequest, tokenizer: Tokenizer): Promise<Outcome> {
  let reason = result.error;
  let detail = result.errorDetail;
  const usage = result.usage?.completion_tokens;
  let outputTokens = 0;
  let tokensFrom: Outcome['tokensFrom'] = 'none';
  if (reason === undefined && usage !== undefined) {
    outputTokens = usage;
    tokensFrom = 'usage';
  } else if (reason === undefined && result.text !== '') {
    try {
      outputTokens = (await tokenizer.encode(result.text)).length;
      tokensFrom = 'tokenizer';
    } catch (e) {
      reason = 'output tokens could not be counted (no usage, and the tokenizer failed)';
      detail = (e as Error).message;
    }
  }
  if (!reason && result.tokenChunks === 0) reason = NO_OUTPUT_TOKENS;
  if (!reason && outputTokens === 0) reason = ZERO_COMPLETION_TOKENS;
  return { result, request, success: reason === undefined, reason, detail, outputTokens, tokensFrom };
}

/**
 * Does the server's usage match what it streamed? On a sample of successful requests spread over
 * the run, compare completion_tokens with the client tokenizer's count of the text. Never rejects.
 */
export async function checkUsage(outcomes: readonly Outcome[], tokenizer: Tokenizer): Promise<UsageCheck> {
  const withUsage = outcomes.filter((x) => x.success && x.tokensFrom === 'usage');
  const step = Math.max(1, withUsage.length / USAGE_CHECK_SAMPLE);
  const check: UsageCheck = { checked: 0, mismatched: 0, example: undefined, error: undefined };
  for (let at = 0; at < withUsage.length; at += step) {
    const x = withUsage[Math.floor(at)]!;
    let counted: number;
    try {
      counted = (await tokenizer.encode(x.result.text)).length;
    } catch (e) {
      check.error = `the tokenizer failed: ${(e as Error).message}`;
      break;
    }
    check.checked++;
    const usage = x.outputTokens;
    if (Math.abs(usage - counted) > USAGE_SLACK && (usage > 2 * counted || counted > 2 * usage)) {
      check.mismatched++;
      check.example ??= `usage ${usage}, text ${counted} tokens`;
    }
  }
  return check;
}

function validity(
  m: Metrics,
  outcomes: readonly Outcome[],
  total: number,
  maxFailureRate: number,
  load: ClientLoad,
  usage: UsageCheck,
  acceptance: AcceptanceCheck | undefined,
): string[] {
  const problems: string[] = [];
  const rate = total === 0 ? 0 : m.failed / total;
  if (rate > maxFailureRate)
    problems.push(
      `${m.failed} of ${total} requests failed (${(rate * 100).toFixed(1)}% > ${(maxFailureRate * 100).toFixed(1)}%)`,
    );
  if (m.zeroTokenRequests > 0) problems.push(`${m.zeroTokenRequests} request(s) returned no output tokens`);
  // One impossible count is enough: the server's accounting, which every throughput rests on, cannot be trusted.
  const invalidUsage = outcomes.filter((x) => x.reason?.startsWith(INVALID_USAGE)).length;
  if (invalidUsage > 0) problems.push(`the server's usage cannot be trusted: ${invalidUsage} request(s) reported invalid usage`);
  if (usage.mismatched > maxFailureRate * usage.checked)
    problems.push(
      `the server's usage disagrees with the streamed text in ${usage.mismatched} of ${usage.checked} requests checked (e.g. ${usage.example})`,
    );
  for (const reason of load.reasons) problems.push(`the client was the bottleneck: ${reason}`);
  const far = acceptanceProblem(acceptance);
  if (far) problems.push(far);
  return problems;
}

function resultJson(
  o: BenchOptions,
  tokenizer: Tokenizer,
  numPrompts: number,
  durationMs: number,
  window: { startUnix: number; endUnix: number; wallStartMs: number },
  m: Metrics,
  outcomes: readonly Outcome[],
  problems: string[],
  load: ClientLoad,
  usageCheck: UsageCheck,
  specDecode: SpecDecodeStats | undefined,
  acceptance: AcceptanceCheck | undefined,
): Record<string, unknown> {
  const serverPrompt = outcomes.map((x) => x.result.usage?.prompt_tokens).filter((n): n is number => typeof n === 'number');
  const result: Record<string, unknown> = {
    date: timestamp(new Date(window.wallStartMs)),
    backend: o.backend,
    model_id: o.model,
    tokenizer_id: tokenizer.name,
    best_of: o.bestOf ?? 1,
    num_prompts: numPrompts,
    request_rate: Number.isFinite(o.requestRate) ? o.requestRate : 'inf',
    burstiness: o.burstiness,
    max_concurrency: o.concurrency ?? null,
    duration: durationMs / 1000,
    benchmark_start_time_unix: window.startUnix,
    benchmark_end_time_unix: window.endUnix,
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
    result.errors = outcomes.map((x) => (x.reason === undefined ? '' : x.detail ? `${x.reason}: ${x.detail}` : x.reason));
  }
  Object.assign(result, m.latency);
  // `vllm bench serve`'s keys, present only when the server exports the counters.
  if (specDecode) {
    result.spec_decode_acceptance_rate = specDecode.acceptanceRate;
    result.spec_decode_acceptance_length = specDecode.acceptanceLength;
    result.spec_decode_num_drafts = specDecode.drafts;
    result.spec_decode_draft_tokens = specDecode.draftTokens;
    result.spec_decode_accepted_tokens = specDecode.acceptedTokens;
    result.spec_decode_per_position_acceptance_rates = specDecode.perPositionAcceptanceRates;
  }
  result.frontier = {
    valid: problems.length === 0,
    problems,
    failures: m.failures,
    failure_examples: m.failureExamples,
    // Requests sent again because their connection could not be opened: none had reached the server.
    retries: m.retries,
    usage_check: {
      checked: usageCheck.checked,
      mismatched: usageCheck.mismatched,
      example: usageCheck.example ?? null,
      error: usageCheck.error ?? null,
    },
    output_tokens_counted_by_client: m.tokensFromTokenizer,
    measured_isl: distribution(serverPrompt.length > 0 ? serverPrompt : m.inputLens),
    measured_isl_source: serverPrompt.length > 0 ? 'server usage.prompt_tokens' : 'client tokenizer',
    measured_osl: distribution(m.outputLens.filter((n) => n > 0)),
    from_schedule: m.fromSchedule ?? null,
    ...(o.expectedAcceptanceLength !== undefined
      ? { acceptance_length_check: acceptanceCheckJson(o.expectedAcceptanceLength, acceptance) }
      : {}),
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

/** The result's record of the check against the expected AL; unchecked when the server exported no drafts. */
function acceptanceCheckJson(expected: number, c: AcceptanceCheck | undefined): Record<string, unknown> {
  if (!c)
    return {
      expected,
      measured: null,
      far: null,
      reason: "not checked: the server's /metrics had no speculative-decoding counters, or no draft was verified",
    };
  return {
    expected,
    measured: c.measured,
    drafts: c.drafts,
    stderr: c.stderr,
    // null: a deviation where the per-draft variance is zero, infinitely many standard errors.
    deviation_sigmas: Number.isFinite(c.sigmas) ? c.sigmas : null,
    sigma_threshold: SIGMAS,
    tolerance: TOLERANCE,
    far: c.far,
  };
}
