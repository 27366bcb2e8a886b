import { basename } from 'node:path';
import { REPLAY_DEFAULTS, replayTraces } from '../bench/replay/index.js';
import { acceptanceProblem } from '../bench/index.js';
import type { ReplayOptions, ReplayReport } from '../bench/replay/index.js';
import { readTraceFile } from '../traces/index.js';
import { UserError } from '../util/user-error.js';
import { UsageError, formatHelp, parseArgs } from './argparse.js';
import type { ArgSpec, ParserSpec } from './argparse.js';
import { firstServedModel } from '../bench/server-probe.js';
import { clockAnchorFromEnv } from '../util/virtual-clock.js';

/**
 * `frontier bench --trace FILE`: agentic trace replay, AIPerf's `inferencex-agentx-mvp` scenario
 * as InferenceX's `build_replay_cmd` drives it, with AIPerf's flag names (the ones that only
 * configure AIPerf itself are accepted and ignored), writing AIPerf's artifacts.
 */
const ARGS: ArgSpec[] = [
  {
    flags: ['--trace'],
    dest: 'trace',
    kind: 'one',
    type: 'path',
    required: true,
    help: 'Trace file: Weka traces.jsonl or a hash_ids block trace.',
  },
  { flags: ['--url', '--base-url'], dest: 'url', kind: 'one', help: 'Server URL (default http://HOST:PORT).' },
  { flags: ['--host'], dest: 'host', kind: 'one', default: '127.0.0.1', help: 'Server host (without --url).' },
  { flags: ['--port'], dest: 'port', kind: 'one', type: 'int', default: 8000, help: 'Server port (without --url).' },
  { flags: ['--endpoint'], dest: 'endpoint', kind: 'one', default: REPLAY_DEFAULTS.path, help: 'Chat completions path.' },
  { flags: ['--model', '-m'], dest: 'model', kind: 'one', help: "Served model name (default: the server's first /v1/models)." },
  { flags: ['--api-key'], dest: 'api_key', kind: 'one', help: 'Bearer token (default: $OPENAI_API_KEY).' },
  {
    flags: ['--concurrency'],
    dest: 'concurrency',
    kind: 'one',
    type: 'int',
    default: 1,
    help: 'Closed-loop lanes (trajectories in flight).',
  },
  {
    flags: ['--benchmark-duration'],
    dest: 'duration',
    kind: 'one',
    type: 'float',
    help: 'Profiling seconds (default: until every trace has been replayed once).',
  },
  {
    flags: ['--benchmark-grace-period'],
    dest: 'grace',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.benchmarkGracePeriodS,
    help: 'Seconds in-flight requests may take to finish after the duration before they are cancelled.',
  },
  {
    flags: ['--random-seed'],
    dest: 'seed',
    kind: 'one',
    type: 'int',
    default: REPLAY_DEFAULTS.seed,
    help: 'Seed of every random choice.',
  },
  {
    flags: ['--trajectory-start-min-ratio'],
    dest: 'start_min',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.startMinRatio,
    help: 'Lowest start turn of a lane, as a share of the main turns.',
  },
  {
    flags: ['--trajectory-start-max-ratio'],
    dest: 'start_max',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.startMaxRatio,
    help: 'Highest start turn of a lane, as a share of the main turns.',
  },
  {
    flags: ['--warmup-requests-per-lane'],
    dest: 'warmup',
    kind: 'one',
    type: 'int',
    default: REPLAY_DEFAULTS.warmupRequestsPerLane,
    help: 'One-token requests advancing each lane after its priming request.',
  },
  {
    flags: ['--warmup-grace-period'],
    dest: 'warmup_grace',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.warmupGracePeriodS,
    help: 'Longest wait for the warmup to drain (s); stragglers are then cancelled.',
  },
  {
    flags: ['--trace-idle-gap-cap-seconds'],
    dest: 'gap_cap',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.idleGapCapS,
    help: 'Longest recorded idle gap honoured (s).',
  },
  {
    flags: ['--time-scale'],
    dest: 'time_scale',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.timeScale,
    help: 'k: the server runs k× faster than real time (a simulator); times (gaps, duration, results) are its own.',
  },
  {
    flags: ['--no-cache-bust'],
    dest: 'no_cache_bust',
    kind: 'flag',
    help: 'Send no per-trajectory prefix: equal hash ids are equal text across lanes and traces.',
  },
  {
    flags: ['--live-assistant'],
    dest: 'live',
    kind: 'flag',
    help: "Thread the server's replies into the conversation (default: send the recorded contexts).",
  },
  {
    flags: ['--dynamo-session-binding', '--use-dynamo-conv-aware-routing'],
    dest: 'binding',
    kind: 'flag',
    help: 'Open a Dynamo session (nvext.session_control) on the first request of each stream and close it on the last.',
  },
  {
    flags: ['--dynamo-session-timeout-seconds'],
    dest: 'binding_timeout',
    kind: 'one',
    type: 'int',
    default: REPLAY_DEFAULTS.dynamoSessionTimeoutS,
    help: 'Inactivity timeout of those sessions (s).',
  },
  {
    flags: ['--dynamo-session-header'],
    dest: 'session_header',
    kind: 'flag',
    help: 'Send X-Dynamo-Session-ID (the correlation id) with every request.',
  },
  { flags: ['--extra-inputs'], dest: 'extra', kind: 'many', help: 'KEY:VALUE pairs (or a JSON object) merged into every body.' },
  {
    flags: ['--max-context-length'],
    dest: 'max_context',
    kind: 'one',
    type: 'int',
    help: 'Skip requests whose recorded input + output tokens exceed this (counted).',
  },
  {
    flags: ['--failed-request-threshold'],
    dest: 'threshold',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.failedRequestThreshold,
    help: 'Stop the run (exit 1) once failed / ended requests exceeds this.',
  },
  {
    flags: ['--expected-acceptance-length'],
    dest: 'expected_al',
    kind: 'one',
    type: 'float',
    help: 'The speculative-decoding acceptance length the server should reach (a golden AL): the run fails (exit 1) when the one measured from the scraped vLLM spec-decode counters is far from it.',
  },
  {
    flags: ['--output-artifact-dir'],
    dest: 'out',
    kind: 'one',
    type: 'path',
    help: 'Folder for profile_export.jsonl and the other artifacts.',
  },
  {
    flags: ['--server-metrics'],
    dest: 'server_metrics',
    kind: 'many',
    help: "Prometheus endpoints to scrape (default: the server's /metrics).",
  },
  { flags: ['--no-server-metrics'], dest: 'no_server_metrics', kind: 'flag', help: 'Scrape no Prometheus endpoint.' },
  {
    flags: ['--slice-duration'],
    dest: 'slice',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.sliceDurationS,
    help: 'Seconds between scrapes.',
  },
  { flags: ['--block-size'], dest: 'block_size', kind: 'one', type: 'int', help: 'Tokens per block of a hash_ids block trace.' },
  {
    flags: ['--timeout'],
    dest: 'timeout',
    kind: 'one',
    type: 'float',
    default: REPLAY_DEFAULTS.timeoutMs / 1000,
    help: 'Longest wait for the next byte (s).',
  },
  ...(
    [
      ['--scenario', 'one'],
      ['--endpoint-type', 'one'],
      ['--streaming', 'flag'],
      ['--tokenizer', 'one'],
      ['--tokenizer-trust-remote-code', 'flag'],
      ['--stats-interval', 'one'],
      ['--use-server-token-count', 'flag'],
      ['--no-gpu-telemetry', 'flag'],
      ['--num-dataset-entries', 'one'],
      ['--unsafe-override', 'flag'],
      // AIPerf applies the chat template when it counts input tokens itself; the replay records the server's counts.
      ['--apply-chat-template', 'flag'],
    ] as const
  ).map(([flag, kind]) => ({
    flags: [flag],
    dest: `ignored_${flag.slice(2).replace(/-/g, '_')}`,
    kind: kind as 'one' | 'flag',
    help: 'Accepted for AIPerf compatibility; no effect.',
  })),
  { flags: ['-h', '--help'], dest: 'help', kind: 'flag', help: 'Show this help message and exit.' },
];

const SPEC: ParserSpec = {
  prog: 'frontier bench --trace',
  description: "Replay recorded coding-agent sessions against an OpenAI-compatible server (AIPerf's agentic replay).",
  args: ARGS,
};

/** Whether a `frontier bench` command line is a trace replay. */
export function isTraceBench(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--trace' || a.startsWith('--trace='));
}

/** `--extra-inputs`: `key:value` pairs (values read as JSON where they parse) or JSON objects. */
export function parseExtraInputs(items: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items) {
    if (item.trimStart().startsWith('{')) {
      try {
        Object.assign(out, JSON.parse(item) as Record<string, unknown>);
        continue;
      } catch {
        throw new UsageError(SPEC, `argument --extra-inputs: not a JSON object: '${item}'`);
      }
    }
    const colon = item.indexOf(':');
    if (colon <= 0) throw new UsageError(SPEC, `argument --extra-inputs: expected KEY:VALUE, got '${item}'`);
    const raw = item.slice(colon + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[item.slice(0, colon)] = value;
  }
  return out;
}

export interface TraceBenchArgs {
  options: ReplayOptions;
  trace: string;
  blockSize: number | undefined;
}

export async function traceBenchOptions(argv: string[]): Promise<TraceBenchArgs | undefined> {
  const a = parseArgs(SPEC, argv);
  if (a.help) {
    process.stdout.write(formatHelp(SPEC));
    return undefined;
  }
  const baseUrl = ((a.url as string | undefined) ?? `http://${a.host as string}:${a.port as number}`).replace(/\/+$/, '');
  const apiKey = (a.api_key as string | undefined) ?? process.env.OPENAI_API_KEY;
  const positive = (dest: string, flag: string): void => {
    const v = a[dest] as number | undefined;
    if (v !== undefined && !(v > 0)) throw new UsageError(SPEC, `argument ${flag}: must be > 0, got ${v}`);
  };
  positive('concurrency', '--concurrency');
  positive('duration', '--benchmark-duration');
  positive('time_scale', '--time-scale');
  positive('slice', '--slice-duration');
  positive('timeout', '--timeout');
  positive('max_context', '--max-context-length');
  const expectedAl = a.expected_al as number | undefined;
  if (expectedAl !== undefined && !(expectedAl >= 1))
    throw new UsageError(SPEC, `argument --expected-acceptance-length: must be ≥ 1 (the bonus token counts), got ${expectedAl}`);
  const threshold = a.threshold as number;
  if (!(threshold >= 0 && threshold <= 1))
    throw new UsageError(SPEC, `argument --failed-request-threshold: must be in [0, 1], got ${threshold}`);
  const model = (a.model as string | undefined) ?? (await firstServedModel(baseUrl, apiKey)).id;
  const extra = (a.extra as string[] | undefined) ?? [];
  const serverMetrics = a.no_server_metrics ? [] : (a.server_metrics as string[] | undefined);
  return {
    trace: a.trace as string,
    options: {
      baseUrl,
      path: a.endpoint as string,
      model,
      apiKey,
      concurrency: a.concurrency as number,
      benchmarkDurationS: a.duration as number | undefined,
      benchmarkGracePeriodS: a.grace as number,
      seed: a.seed as number,
      startMinRatio: a.start_min as number,
      startMaxRatio: a.start_max as number,
      warmupRequestsPerLane: a.warmup as number,
      warmupGracePeriodS: a.warmup_grace as number,
      idleGapCapS: a.gap_cap as number,
      timeScale: a.time_scale as number,
      clockAnchorMs: clockAnchorFromEnv(),
      liveAssistant: Boolean(a.live),
      cacheBust: !a.no_cache_bust,
      extraBody: extra.length > 0 ? parseExtraInputs(extra) : undefined,
      dynamoSessionBinding: Boolean(a.binding),
      dynamoSessionTimeoutS: a.binding_timeout as number,
      dynamoSessionHeader: Boolean(a.session_header),
      maxContextLength: a.max_context as number | undefined,
      failedRequestThreshold: threshold,
      timeoutMs: (a.timeout as number) * 1000,
      outputDir: a.out as string | undefined,
      serverMetricsUrls: serverMetrics,
      expectedAcceptanceLength: expectedAl,
      sliceDurationS: a.slice as number,
      log: (line) => process.stderr.write(`frontier bench: ${line}\n`),
    },
    blockSize: a.block_size as number | undefined,
  };
}

const ms = (v: unknown): string => (typeof v === 'number' ? `${v.toFixed(1)} ms` : '–');

/** The end-of-run summary. */
export function formatTraceReport(report: ReplayReport, traces: number): string {
  const g = report.aggregate as Record<string, Record<string, number> | number | undefined>;
  const stat = (key: string, p: string): unknown => (g[key] as Record<string, number> | undefined)?.[p];
  const rate = (key: string): string => {
    const v = stat(key, 'avg');
    return typeof v === 'number' ? v.toFixed(2) : '–';
  };
  const share = stat('cached_token_share', 'avg');
  const theoretical = stat('theoretical_prefix_cache_hit', 'avg');
  const out = [
    `trace replay: ${traces} trace(s), ${report.plan.lanes.length} lane(s), ${(stat('benchmark_duration', 'avg') as number).toFixed(1)} s profiled`,
    `requests: ${stat('completed_request_count', 'avg') as number} profiled, ${stat('error_request_count', 'avg') as number} failed, ${stat('warmup_request_count', 'avg') as number} warmup, ${report.skipped} skipped (--max-context-length)`,
    `TTFT p50 ${ms(stat('time_to_first_token', 'p50'))}, p99 ${ms(stat('time_to_first_token', 'p99'))} · ITL p50 ${ms(stat('inter_token_latency', 'p50'))}, p99 ${ms(stat('inter_token_latency', 'p99'))}`,
    `throughput: ${rate('request_throughput')} req/s, ${rate('output_token_throughput')} output tok/s, ${rate('total_token_throughput')} total tok/s`,
    `cached tokens: ${typeof share === 'number' ? `${(100 * share).toFixed(1)}% of input (server usage)` : 'not reported by the server'}` +
      (typeof theoretical === 'number' ? `; theoretical prefix hit ${theoretical.toFixed(1)}%` : ''),
  ];
  const spec = report.specDecode;
  if (spec)
    out.push(
      `speculative decoding: acceptance length ${spec.acceptanceLength.toFixed(3)} over ${spec.drafts} drafts` +
        (report.acceptance
          ? ` (expected ${report.acceptance.expected}: ${report.acceptance.far ? 'far from it' : 'within noise'}, ${Number.isFinite(report.acceptance.sigmas) ? report.acceptance.sigmas.toFixed(1) : '∞'}σ)`
          : ''),
    );
  if (report.stopReason && !report.failure) out.push(`stopped: ${report.stopReason}`);
  for (const f of report.files) out.push(`wrote ${f}`);
  return `${out.join('\n')}\n`;
}

export async function runTraceBenchCommand(argv: string[]): Promise<ReplayReport | undefined> {
  const parsed = await traceBenchOptions(argv);
  if (!parsed) return undefined;
  const traces = await readTraceFile(parsed.trace, parsed.blockSize !== undefined ? { blockSize: parsed.blockSize } : {});
  const first = traces[0];
  parsed.options.dataset = {
    source_type: 'trace_file',
    path: basename(parsed.trace),
    num_dataset_entries: traces.length,
    block_size: first?.blockSize ?? null,
    hash_id_scope: first?.hashIdScope ?? null,
  };
  const report = await replayTraces(traces, parsed.options);
  process.stdout.write(formatTraceReport(report, traces.length));
  if (report.failure)
    throw new UserError(`trace replay stopped: ${report.failure}`, {
      hint: `the artifacts written so far are in ${parsed.options.outputDir ?? '(no --output-artifact-dir)'}; check the server's logs, or raise --failed-request-threshold`,
    });
  const far = acceptanceProblem(report.acceptance);
  if (far)
    throw new UserError(`trace replay: ${far}`, {
      hint: 'the server did not decode at the acceptance it was set to: check its synthetic-acceptance knob',
    });
  return report;
}
