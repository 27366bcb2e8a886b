/**
 * A recorded coding-agent session, in memory. Two file formats read into it (see docs/agentic.md):
 * the Weka agentic-coding corpus (one trace object per line of `traces.jsonl`: `requests` of type
 * `n`/`s`, and `subagent` entries holding their own inner requests) and `hash_ids` block traces
 * (one request per line, grouped by `session_id`, as srt-slurm's trace replay and Mooncake read).
 */

/** Where a value came from, for errors that name the line. */
export interface SourceLine {
  file: string;
  /** 1-based line of the JSONL file. */
  line: number;
}

/** One model call. */
export interface TraceRequest {
  /** Recorded send time, seconds from the trace's start. */
  t: number;
  /** Input (context) tokens as recorded; `hashIds.length * blockSize` rounds it to whole blocks. */
  input: number;
  /** Output tokens as recorded: what the replay asks the server to generate. */
  output: number;
  /** Content-block ids of the whole context, in order: equal ids are equal content (prefix reuse). */
  hashIds: number[];
  /**
   * Idle time before this request, seconds (Weka `think_time`, block-trace `delay`/1000), counted
   * as the corpus records it: from the end of whatever the agent last waited for (the previous
   * request of any stream of the trace, so a main turn after a fan-out counts from its subagents'
   * end). Absent for a trace's first request.
   */
  delay?: number;
  /** Recorded server time for the call, seconds (Weka `api_time`), when known. */
  apiTime?: number;
  model?: string;
  /** A streaming call (Weka `type: "s"`); its recorded time to first token, seconds, in `ttft`. */
  streaming?: boolean;
  ttft?: number;
  source: SourceLine;
}

/** A subagent: a stream of requests spawned by its parent at `t`, running beside it. */
export interface TraceSubagent {
  t: number;
  agentId: string;
  subagentType: string;
  /** Recorded wall time from its first request's start to its last request's end, seconds. */
  duration: number;
  requests: TraceRequest[];
  /** Weka `tool_use_count` and `status`, as recorded (the proxy leaves the count null). */
  toolUseCount?: number | null;
  status?: string;
  /** Weka `models`, as recorded. */
  models?: string[];
  source: SourceLine;
}

export type TraceEntry = { kind: 'request'; request: TraceRequest } | { kind: 'subagent'; subagent: TraceSubagent };

export interface Trace {
  id: string;
  /** Tokens per hash block (64 in the Weka corpora). */
  blockSize: number;
  /** `local`: hash ids are private to this trace; `global`: equal ids are shared across traces. */
  hashIdScope: 'local' | 'global';
  /** The main agent's requests and its subagents, in recorded order. */
  entries: TraceEntry[];
  /** Weka `models`, as recorded. */
  models?: string[];
  /**
   * Block traces: when this session starts on the file's clock, seconds from the file's first
   * `timestamp` (sessions of one file overlap as recorded). Absent for Weka traces, which each start at 0.
   */
  start?: number;
  source: SourceLine;
}
