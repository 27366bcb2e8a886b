import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '../client.js';
import type { RequestResult } from '../client.js';
import type { Trace, TraceRequest, TraceSubagent } from '../../traces/types.js';
import { writeFilesAtomic } from '../../util/atomic-write.js';
import { hash32 } from '../../util/rng.js';
import { UserError } from '../../util/user-error.js';
import { BlockTexts, PromptBuilder } from './blocks.js';
import { countsProblem, promptWords } from './counts.js';
import { mainRequests, planReplay } from './plan.js';
import type { LaneStart, ReplayPlan } from './plan.js';
import { aggregateJson, isError, outputTokens, recordJson } from './records.js';
import type { Phase, ReplayRecord } from './records.js';
import { MetricsScraper, serverMetricsCsv } from './server-metrics.js';
import { checkAcceptance, specDecodeOfExport } from '../spec-decode.js';
import type { AcceptanceCheck, SpecDecodeStats } from '../spec-decode.js';

/**
 * Agentic trace replay (AIPerf's `inferencex-agentx-mvp` scenario): `concurrency` closed-loop
 * lanes, each walking one recorded trajectory at a time, turn by turn, with the recorded idle gaps
 * (capped) and subagents running beside their parent. Each lane starts mid-trajectory: a priming
 * request, then one-token warmup requests with no gaps; profiling begins once every lane's warmup
 * has drained. Every request is a streamed chat completion; records and aggregates are written in
 * AIPerf's artifact layout.
 */

export interface ReplayOptions {
  baseUrl: string;
  /** Default `/v1/chat/completions`. */
  path?: string | undefined;
  model: string;
  apiKey?: string | undefined;
  concurrency: number;
  /** Profiling seconds; without it, the run ends once every trace of the corpus has been replayed once. */
  benchmarkDurationS?: number | undefined;
  /** After the duration, how long in-flight requests may take to finish before they are cancelled. */
  benchmarkGracePeriodS: number;
  seed: number;
  startMinRatio: number;
  startMaxRatio: number;
  warmupRequestsPerLane: number;
  warmupGracePeriodS: number;
  idleGapCapS: number;
  /**
   * k: the engine runs k× faster than real time (a simulator). Every time here (gaps, duration,
   * grace periods) is the engine's, and so are the records' times: real time × k.
   */
  timeScale: number;
  /**
   * Where model time meets real time (epoch ms; src/util/virtual-clock.ts): the run's clock anchor,
   * so records and the profiling window line up with the run's telemetry. Default: the replay's start.
   */
  clockAnchorMs?: number | undefined;
  /**
   * Put a prefix unique to each trajectory instance before its context (AIPerf's `--cache-bust
   * first_turn_prefix`, the default), so that lanes replaying the same trace share no cache.
   * Off, equal hash ids are equal text everywhere (block traces whose sharing is the point).
   */
  cacheBust?: boolean | undefined;
  /** Thread the server's replies as assistant messages (live-assistant mode) instead of sending recorded contexts. */
  liveAssistant: boolean;
  extraBody?: Record<string, unknown> | undefined;
  dynamoSessionBinding: boolean;
  dynamoSessionTimeoutS: number;
  dynamoSessionHeader: boolean;
  /** Requests whose recorded input plus output exceeds this are skipped (counted). */
  maxContextLength?: number | undefined;
  failedRequestThreshold: number;
  /** Requests that must have ended before the failure threshold is judged (default 10). */
  failedRequestMinSample?: number | undefined;
  timeoutMs: number;
  requestDeadlineMs?: number | undefined;
  /** Where the artifacts go (none written without it). */
  outputDir?: string | undefined;
  /** Prometheus endpoints scraped over the profiling window (default: the server's /metrics; [] for none). */
  serverMetricsUrls?: readonly string[] | undefined;
  /**
   * The acceptance length speculative decoding should reach (a golden AL): checked against the
   * one the scrape measures over the profiling window (../spec-decode.ts).
   */
  expectedAcceptanceLength?: number | undefined;
  sliceDurationS: number;
  /** `metadata.dataset` of the aggregate. */
  dataset?: Record<string, unknown> | undefined;
  log?: ((line: string) => void) | undefined;
}

export const REPLAY_DEFAULTS = {
  path: '/v1/chat/completions',
  benchmarkGracePeriodS: 30,
  seed: 42,
  startMinRatio: 0.25,
  startMaxRatio: 0.75,
  warmupRequestsPerLane: 10,
  warmupGracePeriodS: 1800,
  idleGapCapS: 300,
  timeScale: 1,
  dynamoSessionTimeoutS: 3600,
  /** InferenceX's AIPERF_FAILED_REQUEST_THRESHOLD (benchmark-tmpl.yml): live, and the validity gate after the run. */
  failedRequestThreshold: 0.1,
  failedRequestMinSample: 10,
  sliceDurationS: 1,
  /** Longest wait for a response's next byte. */
  timeoutMs: 600_000,
} as const;

export interface ReplayReport {
  records: ReplayRecord[];
  aggregate: Record<string, unknown>;
  plan: ReplayPlan;
  /** Requests skipped for --max-context-length. */
  skipped: number;
  /** Most requests in flight at once. */
  maxInFlight: number;
  /** Why issuing stopped early: the duration, or the failure threshold. */
  stopReason: string | undefined;
  /** Set when the run failed (the failure threshold): the message to end with. */
  failure: string | undefined;
  profilingStart: number | undefined;
  profilingEnd: number;
  files: string[];
  /** vLLM's spec-decode counters over the profiling window, when the scrape has them. */
  specDecode: SpecDecodeStats | undefined;
  /** The measured AL against `expectedAcceptanceLength`, when both are known. */
  acceptance: AcceptanceCheck | undefined;
}

/** One stream of requests in a session: the main agent of a trajectory instance, or one of its subagents. */
interface Stream {
  lane: number;
  scope: string;
  conversationId: string;
  correlationId: string;
  prefix: string;
  /** Prefix-chain hashes of blocks sent in this trajectory instance (the theoretical cache). */
  seen: Set<number>;
  messages: { role: string; content: string }[];
  /** Live assistant: the tokens of each message (a user message's words, a reply's completion tokens). */
  messageTokens: number[];
  previous: readonly number[];
}

interface SendOptions {
  phase: Phase;
  maxTokens: number;
  turn: number;
  first: boolean;
  last: boolean;
}

interface Spawned {
  end: number;
  done: Promise<void>;
  joined: boolean;
}

export async function replayTraces(traces: readonly Trace[], options: ReplayOptions): Promise<ReplayReport> {
  return new Replay(traces, options).run();
}

class Replay {
  private readonly client: Client;
  private readonly plan: ReplayPlan;
  private readonly prompts = new Map<number, PromptBuilder>();
  private readonly sharedSeen = new Set<number>();
  private readonly records: ReplayRecord[] = [];
  private readonly freeSlots: number[] = [];
  private slots = 0;
  private readonly inFlight = new Map<number, Phase>();
  private readonly aborted = new Set<number>();
  private maxInFlight = 0;
  private readonly sleepers = new Set<() => void>();
  private stopping = false;
  private stopReason: string | undefined;
  private failure: string | undefined;
  private readonly arrived = new Set<number>();
  private profilingBegun = false;
  private profilingStart: number | undefined;
  private releaseBarrier!: () => void;
  private readonly barrier = new Promise<void>((resolve) => (this.releaseBarrier = resolve));
  private readonly timers: NodeJS.Timeout[] = [];
  private cursor: number;
  private sessionNum = 0;
  private ended = 0;
  private errors = 0;
  /** The latest failed request's reason (and detail), for the message that stops the run. */
  private lastError: string | undefined;
  private skipped = 0;
  private readonly scraper: MetricsScraper | undefined;
  /** Where model time and real time meet (performance.now() ms). */
  private readonly origin: number;

  constructor(
    private readonly traces: readonly Trace[],
    private readonly o: ReplayOptions,
  ) {
    this.origin = o.clockAnchorMs !== undefined ? o.clockAnchorMs - performance.timeOrigin : performance.now();
    if (traces.length === 0)
      throw new UserError('the trace corpus is empty', { hint: 'pass a trace file with at least one trace' });
    if (!(o.concurrency >= 1)) throw new UserError(`--concurrency must be at least 1, got ${o.concurrency}`);
    if (!(o.timeScale > 0)) throw new UserError(`--time-scale must be > 0, got ${o.timeScale}`);
    if (!(o.startMinRatio >= 0 && o.startMinRatio <= o.startMaxRatio && o.startMaxRatio <= 1))
      throw new UserError(
        `--trajectory-start-min-ratio ${o.startMinRatio} and --trajectory-start-max-ratio ${o.startMaxRatio}: need 0 ≤ min ≤ max ≤ 1`,
      );
    this.client = new Client({
      baseUrl: o.baseUrl,
      path: o.path ?? REPLAY_DEFAULTS.path,
      chat: true,
      model: o.model,
      apiKey: o.apiKey,
      ignoreEos: true,
      temperature: 0,
      timeoutMs: o.timeoutMs,
      requestDeadlineMs: o.requestDeadlineMs,
    });
    this.plan = planReplay(traces, {
      seed: o.seed,
      lanes: o.concurrency,
      startMinRatio: o.startMinRatio,
      startMaxRatio: o.startMaxRatio,
      warmupRequestsPerLane: o.warmupRequestsPerLane,
    });
    this.cursor = this.plan.lanes.length;
    const urls = o.serverMetricsUrls ?? [`${new URL(o.baseUrl).origin}/metrics`];
    this.scraper = urls.length > 0 ? new MetricsScraper(urls, o.sliceDurationS * 1000) : undefined;
  }

  async run(): Promise<ReplayReport> {
    const grace = setTimeout(() => this.warmupGraceOver(), this.realMs(this.o.warmupGracePeriodS));
    this.timers.push(grace);
    try {
      await Promise.all(this.plan.lanes.map((start, lane) => this.lane(lane, start)));
    } catch (e) {
      // A run that broke still leaves what it measured.
      await this.close();
      this.finish(this.modelNow());
      throw e;
    }
    const profilingEnd = this.modelNow();
    await this.close();
    return this.finish(profilingEnd);
  }

  // --- time: with --time-scale k the engine runs k× faster; settings and records are in its time --

  /** Real milliseconds of `s` model seconds. */
  private realMs(s: number): number {
    return (s * 1000) / this.o.timeScale;
  }

  /** performance.now() in model time (as the origin plus k× the real time since it). */
  private modelNow(): number {
    return this.origin + (performance.now() - this.origin) * this.o.timeScale;
  }

  private toModelTime(r: RequestResult): void {
    const k = this.o.timeScale;
    if (k === 1) return;
    r.ttft *= k;
    r.latency *= k;
    for (let i = 0; i < r.itl.length; i++) r.itl[i]! *= k;
    r.sentAt = this.origin + (r.sentAt - this.origin) * k;
    r.endAt = this.origin + (r.endAt - this.origin) * k;
  }

  private async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    await this.scraper?.stop();
    await this.client.close();
  }

  private finish(profilingEnd: number): ReplayReport {
    const aggregate = aggregateJson(this.records, {
      start: this.profilingStart ?? profilingEnd,
      end: profilingEnd,
      dataset: this.o.dataset ?? { source_type: 'trace_file', num_dataset_entries: this.traces.length },
      config: this.config(),
      skipped: this.skipped,
      stopReason: this.failure ?? this.stopReason,
    });
    const exported = this.scraper?.export();
    const specDecode = exported ? specDecodeOfExport(exported) : undefined;
    const expected = this.o.expectedAcceptanceLength;
    const files: string[] = [];
    if (this.o.outputDir) {
      const jsonl = this.records.map((r) => `${JSON.stringify(recordJson(r))}\n`).join('');
      const out: [string, string][] = [
        [join(this.o.outputDir, 'profile_export.jsonl'), jsonl],
        [join(this.o.outputDir, 'profile_export_aiperf.json'), `${JSON.stringify(aggregate, null, 2)}\n`],
      ];
      if (exported)
        out.push(
          [join(this.o.outputDir, 'server_metrics_export.json'), JSON.stringify(exported)],
          [
            join(this.o.outputDir, 'server_metrics_export.csv'),
            serverMetricsCsv(exported as Parameters<typeof serverMetricsCsv>[0]),
          ],
        );
      writeFilesAtomic(out, { mkdir: true });
      files.push(...out.map(([p]) => p));
    }
    return {
      records: this.records,
      aggregate,
      plan: this.plan,
      skipped: this.skipped,
      maxInFlight: this.maxInFlight,
      stopReason: this.stopReason,
      failure: this.failure,
      profilingStart: this.profilingStart,
      profilingEnd,
      files,
      specDecode,
      acceptance: expected !== undefined && specDecode ? checkAcceptance(specDecode, expected) : undefined,
    };
  }

  private config(): Record<string, unknown> {
    const o = this.o;
    return {
      url: o.baseUrl,
      endpoint: o.path ?? REPLAY_DEFAULTS.path,
      model: o.model,
      concurrency: o.concurrency,
      benchmark_duration: o.benchmarkDurationS ?? null,
      random_seed: o.seed,
      trajectory_start_min_ratio: o.startMinRatio,
      trajectory_start_max_ratio: o.startMaxRatio,
      warmup_requests_per_lane: o.warmupRequestsPerLane,
      warmup_grace_period: o.warmupGracePeriodS,
      trace_idle_gap_cap_seconds: o.idleGapCapS,
      time_scale: o.timeScale,
      live_assistant_responses: o.liveAssistant,
      cache_bust: (o.cacheBust ?? true) ? 'first_turn_prefix' : 'none',
      use_server_token_count: true,
      dynamo_session_binding: o.dynamoSessionBinding,
      dynamo_session_header: o.dynamoSessionHeader,
      max_context_length: o.maxContextLength ?? null,
      failed_request_threshold: o.failedRequestThreshold,
      extra_inputs: o.extraBody ?? {},
    };
  }

  // --- lanes -------------------------------------------------------------------------------

  private async lane(lane: number, first: LaneStart): Promise<void> {
    let trace = first.trace;
    let from = { start: first.start, profileFrom: first.profileFrom };
    for (let n = 0; ; n++) {
      const t = this.traces[trace]!;
      await this.trajectory(lane, t, `${t.id}@${lane}.${n}`, from);
      if (this.stopping) break;
      const next = this.nextTrace();
      if (next === undefined) break;
      trace = next;
      from = { start: 0, profileFrom: 0 };
    }
    await this.arrive(lane);
  }

  /** The next trace a lane takes: round robin over the seeded order (once through, without a duration). */
  private nextTrace(): number | undefined {
    const order = this.plan.order;
    if (this.o.benchmarkDurationS === undefined && this.cursor >= order.length) return undefined;
    return order[this.cursor++ % order.length];
  }

  private async trajectory(
    lane: number,
    trace: Trace,
    instanceId: string,
    from: { start: number; profileFrom: number },
  ): Promise<void> {
    const bust = this.o.cacheBust ?? true;
    // Without the cache-bust prefix, equal blocks are equal text across instances: one theoretical cache for the run.
    const seen = bust ? new Set<number>() : this.sharedSeen;
    const scope = trace.hashIdScope === 'local' ? trace.id : '*';
    const prefix = bust ? this.prompt(trace.blockSize).prefix(instanceId) : '';
    const stream = (conversationId: string, correlationId: string): Stream => ({
      lane,
      scope,
      conversationId,
      correlationId,
      prefix,
      seen,
      messages: [],
      messageTokens: [],
      previous: [],
    });
    const main = stream(trace.id, instanceId);
    const last = mainRequests(trace).length - 1;
    const spawned: Spawned[] = [];
    let k = -1;
    for (const entry of trace.entries) {
      if (this.stopping) break;
      if (entry.kind === 'subagent') {
        // Subagents before the profiling start are in the recorded context already.
        if (k + 1 < from.profileFrom) continue;
        await this.arrive(lane);
        if (this.stopping) break;
        const sa = entry.subagent;
        const s = stream(`${trace.id}::sa:${sa.agentId}`, `${instanceId}::sa:${sa.agentId}`);
        spawned.push({ end: sa.t + sa.duration, done: this.subagent(s, trace, sa), joined: false });
        continue;
      }
      const request = entry.request;
      k++;
      if (k < from.start) continue;
      if (k < from.profileFrom) {
        // Warmup: one token each, no idle gaps; once profiling has begun (the grace period ran out), the rest is skipped.
        if (this.profilingBegun) continue;
        await this.send(main, trace, request, {
          phase: 'warmup',
          maxTokens: 1,
          turn: k,
          first: k === from.start,
          last: k === last,
        });
        continue;
      }
      await this.arrive(lane);
      for (const s of spawned) {
        if (!s.joined && s.end <= request.t) {
          s.joined = true;
          await s.done;
        }
      }
      await this.idle(request);
      if (this.stopping) break;
      await this.send(main, trace, request, {
        phase: 'profiling',
        maxTokens: Math.max(1, request.output),
        turn: k,
        first: k === from.start,
        last: k === last,
      });
    }
    await Promise.all(spawned.map((s) => s.done));
  }

  private async subagent(s: Stream, trace: Trace, sa: TraceSubagent): Promise<void> {
    for (let j = 0; j < sa.requests.length && !this.stopping; j++) {
      const request = sa.requests[j]!;
      await this.idle(request);
      if (this.stopping) break;
      await this.send(s, trace, request, {
        phase: 'profiling',
        maxTokens: Math.max(1, request.output),
        turn: j,
        first: j === 0,
        last: j === sa.requests.length - 1,
      });
    }
  }

  // --- warmup barrier, stopping ----------------------------------------------------------

  /** A lane is done warming up; profiling begins when every lane is. */
  private arrive(lane: number): Promise<void> {
    if (!this.arrived.has(lane)) {
      this.arrived.add(lane);
      if (this.arrived.size === this.plan.lanes.length) this.beginProfiling();
    }
    return this.barrier;
  }

  private beginProfiling(): void {
    if (this.profilingBegun) return;
    this.profilingBegun = true;
    this.profilingStart = this.modelNow();
    this.releaseBarrier();
    if (this.stopping) return;
    this.scraper?.start();
    if (this.o.benchmarkDurationS !== undefined)
      this.timers.push(setTimeout(() => this.stop('benchmark duration reached'), this.realMs(this.o.benchmarkDurationS)));
  }

  private warmupGraceOver(): void {
    if (this.profilingBegun) return;
    const stragglers = [...this.inFlight].filter(([, phase]) => phase === 'warmup').map(([slot]) => slot);
    this.o.log?.(
      `warmup did not drain within ${this.o.warmupGracePeriodS} s: ${stragglers.length} warmup request(s) cancelled, profiling starts`,
    );
    this.beginProfiling();
    for (const slot of stragglers) this.abort(slot, 'warmup grace period elapsed');
  }

  /** Stop issuing requests; in-flight ones may finish within the grace period (at once when `now`). */
  private stop(reason: string, now = false): void {
    if (this.stopping) return;
    this.stopping = true;
    this.stopReason = reason;
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
    this.releaseBarrier();
    const cancel = (): void => {
      for (const slot of [...this.inFlight.keys()]) this.abort(slot, `cancelled: ${reason}`);
    };
    if (now) cancel();
    else this.timers.push(setTimeout(cancel, this.realMs(this.o.benchmarkGracePeriodS)));
  }

  private abort(slot: number, reason: string): void {
    this.aborted.add(slot);
    this.client.abort(slot, reason);
  }

  /** The recorded idle gap before `request`, capped and scaled; cut short when the run stops. */
  private idle(request: TraceRequest): Promise<void> {
    const gap = Math.min(request.delay ?? 0, this.o.idleGapCapS);
    if (!(gap > 0) || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.realMs(gap));
      this.sleepers.add(wake);
    });
  }

  // --- requests ----------------------------------------------------------------------------

  private prompt(blockSize: number): PromptBuilder {
    let p = this.prompts.get(blockSize);
    if (!p) this.prompts.set(blockSize, (p = new PromptBuilder(new BlockTexts(blockSize))));
    return p;
  }

  private async send(s: Stream, trace: Trace, request: TraceRequest, so: SendOptions): Promise<void> {
    if (this.stopping) return;
    const limit = this.o.maxContextLength;
    if (limit !== undefined && request.input + so.maxTokens > limit) {
      if (this.skipped++ === 0)
        this.o.log?.(
          `skipping requests whose recorded input + output exceeds --max-context-length ${limit} (counted in the aggregate)`,
        );
      return;
    }
    const builder = this.prompt(trace.blockSize);
    let messages: { role: string; content: string }[];
    let promptTokens: number;
    if (this.o.liveAssistant) {
      const common = commonPrefix(s.previous, request.hashIds);
      const delta = builder.text(s.scope, request.hashIds, common);
      const content = s.messages.length === 0 ? s.prefix + delta : delta || ' continue';
      s.messages.push({ role: 'user', content });
      s.messageTokens.push(promptWords(content));
      messages = s.messages;
      promptTokens = s.messageTokens.reduce((a, b) => a + b, 0);
    } else {
      const content = s.prefix + builder.text(s.scope, request.hashIds);
      messages = [{ role: 'user', content }];
      promptTokens = promptWords(content);
    }
    const body: Record<string, unknown> = {
      model: this.o.model,
      messages,
      max_tokens: so.maxTokens,
      min_tokens: so.maxTokens,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
      ...this.o.extraBody,
    };
    if (this.o.dynamoSessionBinding && so.first !== so.last) {
      const nvext = (typeof body.nvext === 'object' && body.nvext !== null ? body.nvext : {}) as Record<string, unknown>;
      body.nvext = {
        ...nvext,
        session_control: so.first
          ? { action: 'open', session_id: s.correlationId, timeout: this.o.dynamoSessionTimeoutS }
          : { action: 'close', session_id: s.correlationId },
      };
    }
    const requestId = randomUUID();
    const headers: Record<string, string> = { 'X-Request-ID': requestId, 'X-Correlation-ID': s.correlationId };
    if (this.o.dynamoSessionHeader) headers['X-Dynamo-Session-ID'] = s.correlationId;
    const { hits, blocks } = theoreticalHits(s.seen, request.hashIds, s.scope);
    const slot = this.freeSlots.pop() ?? this.slots++;
    this.inFlight.set(slot, so.phase);
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight.size);
    const sessionNum = this.sessionNum++;
    let result: RequestResult;
    try {
      result = await this.client.send(
        { prompt: '', promptLen: request.input, outputLen: so.maxTokens },
        slot,
        undefined,
        Buffer.from(JSON.stringify(body)),
        headers,
      );
    } finally {
      this.inFlight.delete(slot);
      this.freeSlots.push(slot);
    }
    const cancelled = this.aborted.delete(slot);
    this.toModelTime(result);
    if (result.error === undefined) {
      const problem = countsProblem(result, { promptTokens, maxTokens: so.maxTokens, ignoreEos: body.ignore_eos === true });
      if (problem) {
        result.error = problem.reason;
        result.errorDetail = problem.detail;
      }
    }
    const record: ReplayRecord = {
      phase: so.phase,
      lane: s.lane,
      conversationId: s.conversationId,
      correlationId: s.correlationId,
      turnIndex: so.turn,
      requestId,
      sessionNum,
      recordedInput: request.input,
      recordedOutput: request.output,
      maxTokens: so.maxTokens,
      result,
      cancelled,
      theoreticalHitBlocks: hits,
      contextBlocks: blocks,
    };
    this.records.push(record);
    if (this.o.liveAssistant) {
      if (isError(record)) {
        s.messages.pop();
        s.messageTokens.pop();
      } else {
        s.messages.push({ role: 'assistant', content: result.text });
        s.messageTokens.push(outputTokens(record));
        s.previous = request.hashIds;
      }
    }
    this.judge(record);
  }

  /** The live failure threshold: once enough requests ended, too large a share of errors stops the run. */
  private judge(record: ReplayRecord): void {
    if (record.cancelled) return;
    this.ended++;
    const { error, errorDetail } = record.result;
    if (error !== undefined) {
      this.errors++;
      this.lastError = errorDetail !== undefined ? `${error} (${errorDetail})` : error;
    }
    const min = this.o.failedRequestMinSample ?? REPLAY_DEFAULTS.failedRequestMinSample;
    if (this.failure || this.ended < min || this.errors / this.ended <= this.o.failedRequestThreshold) return;
    this.failure =
      `${this.errors} of ${this.ended} requests failed (${((100 * this.errors) / this.ended).toFixed(1)}% > ` +
      `--failed-request-threshold ${this.o.failedRequestThreshold}); last error: ${this.lastError}`;
    this.o.log?.(`stopping: ${this.failure}`);
    this.stop('failed-request threshold exceeded', true);
  }
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Blocks of `hashIds` an unbounded prefix cache would hold already (the leading run whose whole
 * prefix was sent before in this trajectory instance), and the context's block count; records the
 * context's prefixes as seen.
 */
export function theoreticalHits(seen: Set<number>, hashIds: readonly number[], scope = ''): { hits: number; blocks: number } {
  let chain = hash32(scope);
  let hits = 0;
  let matching = true;
  for (const id of hashIds) {
    chain = hash32(String(id), chain);
    if (matching && seen.has(chain)) hits++;
    else matching = false;
    seen.add(chain);
  }
  return { hits, blocks: hashIds.length };
}
