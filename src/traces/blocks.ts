import { Fields } from './fields.js';
import { MAX_BLOCK_SIZE, TOKEN_COUNT, checkedId, hashIdsOf } from './limits.js';
import { UserError } from '../util/user-error.js';
import type { SourceLine, Trace, TraceRequest, TraceSubagent } from './types.js';

/**
 * `hash_ids` block traces, one request per line, as srt-slurm's trace replay and AIPerf's
 * Mooncake loader read them: `input_length`, `output_length`, `hash_ids`, and optionally
 * `session_id` (lines of one session are its turns, in file order), `timestamp` (ms on the
 * file's clock), `delay` (ms of idle before the turn), `group_id` (ignored). A line without
 * `session_id` is a session of its own. Frontier's extension: a session whose first line names
 * `parent_session_id` is a subagent of that session (`subagent_type` optional).
 */

const FORMAT = 'hash_ids block trace' as const;
/** Tokens per hash block in Mooncake traces (the srt-slurm sample: 1200 tokens, 3 blocks). */
export const BLOCK_TRACE_BLOCK_SIZE = 512;

interface Stream {
  /** The trace (root session) this stream belongs to. */
  root: Root;
  requests: TraceRequest[];
  subagent?: TraceSubagent;
  /** The previous request's send time on the file's clock, seconds. */
  lastAt: number;
}

interface Root {
  trace: Trace;
  /** The root session's first send time on the file's clock, seconds. */
  origin: number;
}

export function parseBlockLine(f: Fields, sessions: Map<string, Stream>, traces: Trace[], blockSize: number): void {
  if (f.has('text_input') && !f.has('input_length'))
    f.fail(
      'input_length',
      'missing (text_input lines are not supported)',
      'replace "text_input" by "input_length" (tokens) and "hash_ids"',
    );
  const sessionField = f.obj.session_id;
  if (sessionField !== undefined && typeof sessionField !== 'string' && typeof sessionField !== 'number')
    f.fail('session_id', 'not a string', 'write "session_id" as a string');
  const sessionId = sessionField === undefined ? `line-${f.at.line}` : checkedId(f, 'session_id', String(sessionField));
  const input = f.number('input_length', 'the input (context) tokens', TOKEN_COUNT);
  const output = f.number('output_length', 'the output tokens to generate', TOKEN_COUNT);
  const hashIds = hashIdsOf(f, blockSize);
  const timestampMs = f.number('timestamp', 'the send time, milliseconds on the file clock');
  const delayMs = f.number('delay', 'the idle milliseconds before this turn');
  const parentId = f.string('parent_session_id', 'the session that spawned this one');
  const subagentType = f.string('subagent_type', 'the kind of subagent');

  let stream = sessions.get(sessionId);
  const previousAt = stream?.lastAt;
  const at = timestampMs !== undefined ? timestampMs / 1000 : previousAt !== undefined ? previousAt + (delayMs ?? 0) / 1000 : 0;
  if (stream === undefined) {
    if (parentId !== undefined) {
      const parent = sessions.get(parentId);
      if (parent === undefined || parent.root.origin > at)
        f.fail(
          'parent_session_id',
          `names session ${JSON.stringify(parentId)}, which has no request at or before this line: its parent never ran`,
          'put a request of the parent session before its subagent, or fix the parent_session_id',
        );
      const subagent: TraceSubagent = {
        t: at - parent.root.origin,
        agentId: sessionId,
        subagentType: subagentType ?? 'subagent',
        duration: 0,
        requests: [],
        source: f.at,
      };
      parent.root.trace.entries.push({ kind: 'subagent', subagent });
      stream = { root: parent.root, requests: subagent.requests, subagent, lastAt: at };
    } else {
      const trace: Trace = { id: sessionId, blockSize, hashIdScope: 'global', entries: [], source: f.at };
      if (timestampMs !== undefined) trace.start = at;
      traces.push(trace);
      stream = { root: { trace, origin: at }, requests: [], lastAt: at };
    }
    sessions.set(sessionId, stream);
  }
  const request: TraceRequest = { t: at - stream.root.origin, input, output, hashIds, source: f.at };
  if (delayMs !== undefined) request.delay = delayMs / 1000;
  if (request.t < 0)
    f.fail(
      'timestamp',
      `${timestampMs} is before its session's first request`,
      "a session's timestamps cannot go back before its first line",
    );
  stream.lastAt = at;
  if (stream.subagent) {
    stream.requests.push(request);
    stream.subagent.duration = request.t - stream.subagent.t;
  } else stream.root.trace.entries.push({ kind: 'request', request });
}

/** A block-trace reader's state over the lines of one file. */
export function blockTraceReader(blockSize = BLOCK_TRACE_BLOCK_SIZE): {
  line(obj: Record<string, unknown>, at: SourceLine): void;
  traces: Trace[];
} {
  if (!(Number.isInteger(blockSize) && blockSize >= 1 && blockSize <= MAX_BLOCK_SIZE))
    throw new UserError(`--block-size ${blockSize}: not a block size`, {
      hint: `tokens per hash block: an integer from 1 to ${MAX_BLOCK_SIZE} (Mooncake's is 512)`,
    });
  const sessions = new Map<string, Stream>();
  const traces: Trace[] = [];
  return {
    traces,
    line: (obj, at) => parseBlockLine(new Fields(obj, at, FORMAT, ''), sessions, traces, blockSize),
  };
}
