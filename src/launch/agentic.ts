import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPLAY_DEFAULTS } from '../bench/index.js';
import type { ReplayOptions } from '../bench/index.js';
import type { Launch } from '../engines/index.js';
import { isAgenticRow } from '../matrix/index.js';
import type { PlannedPoint } from '../plan/index.js';
import {
  agenticAggregateJson,
  agenticContextFromEnv,
  aggregateAgentic,
  rowEnv,
  validateAgenticArtifacts,
} from '../results/index.js';
import type { Trace } from '../traces/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { RunDir } from './run-dir.js';

/**
 * How an agentic-coding point is measured, as InferenceX's `build_replay_cmd` drives AIPerf's
 * `inferencex-agentx-mvp` scenario: lanes = the row's concurrency, the row's duration, trajectory
 * starts in [25%, 75%], 10 warmup requests per lane, a 300 s idle-gap cap, a 30-minute warmup
 * grace, server token counts, a 10% failed-request limit, Dynamo session binding for dynamo-*
 * frameworks, and the server's context as the longest request replayed.
 */

export interface AgenticSettings {
  /** The corpus every agentic point replays (where a Slurm job can read it: the run directory). */
  tracesFile: string;
  traces: readonly Trace[];
  /** Profiling seconds for every point instead of its row's `duration` (the workflow's `duration` input). */
  durationS?: number | undefined;
  /** AIPERF_EXPERIMENTAL_FAST (the `agentx-fast` label): 1200 s, one warmup request per lane. */
  fast?: boolean | undefined;
}

const FAST = { durationS: 1200, warmupRequestsPerLane: 1 };

export interface AgenticPoint {
  baseUrl: string;
  model: string;
  conc: number;
  durationS: number;
  warmupRequestsPerLane: number;
  timeScale: number;
  maxContextLength: number;
  dynamoSessionBinding: boolean;
  /** The replay's artifacts: `agentic_<RF>/aiperf_artifacts`. */
  artifacts: string;
  /** The AL the launch's decoders were given as synthetic acceptance (checked against the measured one). */
  expectedAcceptanceLength: number | undefined;
}

export function agenticPointOf(
  p: PlannedPoint,
  s: AgenticSettings,
  launch: Launch,
  o: { model: string; maxModelLen: number; artifacts: string },
): AgenticPoint {
  if (!isAgenticRow(p.row)) throw new Error(`${p.resultFilename} is not an agentic-coding point`);
  return {
    baseUrl: `http://${launch.endpoint.host}:${launch.endpoint.port}`,
    model: o.model,
    conc: p.conc,
    durationS: s.durationS ?? (s.fast ? FAST.durationS : p.row.duration),
    warmupRequestsPerLane: s.fast ? FAST.warmupRequestsPerLane : REPLAY_DEFAULTS.warmupRequestsPerLane,
    timeScale: launch.client.timeScale,
    maxContextLength: o.maxModelLen,
    dynamoSessionBinding: p.row.framework.startsWith('dynamo-'),
    artifacts: o.artifacts,
    expectedAcceptanceLength: launch.client.expectedAcceptanceLength,
  };
}

/** The replay of a point, run in this process (local runs). */
export function replayOptionsOf(a: AgenticPoint): ReplayOptions {
  return {
    ...REPLAY_DEFAULTS,
    baseUrl: a.baseUrl,
    model: a.model,
    concurrency: a.conc,
    benchmarkDurationS: a.durationS,
    warmupRequestsPerLane: a.warmupRequestsPerLane,
    timeScale: a.timeScale,
    liveAssistant: false,
    dynamoSessionBinding: a.dynamoSessionBinding,
    dynamoSessionHeader: false,
    maxContextLength: a.maxContextLength,
    outputDir: a.artifacts,
    expectedAcceptanceLength: a.expectedAcceptanceLength,
  };
}

/** The same replay as `frontier bench --trace` arguments (after the command itself), for job scripts. */
export function replayArgsOf(a: AgenticPoint, tracesFile: string): string[] {
  return [
    'bench',
    '--trace',
    tracesFile,
    '--url',
    a.baseUrl,
    '--model',
    a.model,
    '--concurrency',
    String(a.conc),
    '--benchmark-duration',
    String(a.durationS),
    '--warmup-requests-per-lane',
    String(a.warmupRequestsPerLane),
    '--max-context-length',
    String(a.maxContextLength),
    '--failed-request-threshold',
    String(REPLAY_DEFAULTS.failedRequestThreshold),
    ...(a.timeScale !== 1 ? ['--time-scale', String(a.timeScale)] : []),
    ...(a.dynamoSessionBinding ? ['--dynamo-session-binding'] : []),
    ...(a.expectedAcceptanceLength !== undefined ? ['--expected-acceptance-length', String(a.expectedAcceptanceLength)] : []),
    '--output-artifact-dir',
    a.artifacts,
  ];
}

/**
 * A replayed point's aggregate (`bmk_agentic_<RF>/<RF>.json`, as process_agentic_result.py writes
 * it from the environment the workflow exports for the row) and its verdict: the reasons it is
 * invalid (validate_agentic_result.py's error-rate check, and the replay's own stop), none when ok.
 */
export function finishAgenticPoint(
  dir: RunDir,
  p: PlannedPoint,
  logDir: string,
  replayProblems: readonly string[],
): { problems: string[]; summary?: AgenticSummary } {
  const rf = p.resultFilename;
  const problems = [...replayProblems];
  if (!existsSync(join(dir.agenticArtifacts(rf), 'profile_export.jsonl')))
    return { problems: [...problems, `the replay wrote no records (${dir.agenticArtifacts(rf)})`] };
  const env = { ...rowEnv(p.row, { runner: p.row.runner, resultFilename: rf }), CONC: String(p.conc) };
  // The engine logs say the KV cache's size (vLLM's "GPU KV cache size: N tokens"), as server.log beside InferenceX's results does.
  const serverLogPaths = existsSync(logDir)
    ? readdirSync(logDir)
        .filter((f) => f.endsWith('.log'))
        .sort()
        .map((f) => join(logDir, f))
    : [];
  const agg = aggregateAgentic(dir.agenticArtifacts(rf), agenticContextFromEnv(env), { serverLogPaths });
  const json = agenticAggregateJson(agg);
  writeFileAtomic(dir.agenticAggFile(rf), json, { mkdir: true });
  problems.push(...validateAgenticArtifacts(dir.agenticArtifacts(rf), REPLAY_DEFAULTS.failedRequestThreshold));
  return { problems, summary: summaryOf(JSON.parse(json) as AggregateBody) };
}

interface AggregateBody {
  request_metrics?: {
    throughput?: { per_gpu?: { output_tput_tps?: number } };
    latency?: { intvty?: { p50?: number }; ttft?: { p50?: number } };
  };
}

export interface AgenticSummary {
  outputTputPerGpu?: number | undefined;
  interactivity?: number | undefined;
  medianTtftMs?: number | undefined;
}

/** The run manifest's summary figures of a point, from its aggregate. */
function summaryOf(body: AggregateBody): AgenticSummary {
  const m = body.request_metrics;
  const ttft = m?.latency?.ttft?.p50;
  return {
    outputTputPerGpu: m?.throughput?.per_gpu?.output_tput_tps,
    interactivity: m?.latency?.intvty?.p50,
    medianTtftMs: ttft === undefined ? undefined : ttft * 1000,
  };
}
