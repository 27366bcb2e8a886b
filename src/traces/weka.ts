import { traceError } from './errors.js';
import { Fields, isObject } from './fields.js';
import { MAX_BLOCK_SIZE, TOKEN_COUNT, checkedId, hashIdsOf } from './limits.js';
import type { SourceLine, Trace, TraceEntry, TraceRequest, TraceSubagent } from './types.js';

/**
 * The Weka agentic-coding trace format (v1), as InferenceX's utils/agentic/datasets/proxy_to_weka.py
 * writes it and the HF datasets ship it (`traces.jsonl`, one trace per line): a trace
 * `{id, models, block_size, hash_id_scope, requests}` whose `requests` are main-agent calls
 * (`type` "n" or "s": t, model, in, out, hash_ids, api_time, think_time, ttft) and subagent
 * entries (`type` "subagent": t, agent_id, subagent_type, duration_ms, total_tokens,
 * tool_use_count, status, requests, models).
 */

const FORMAT = 'Weka trace' as const;
export const WEKA_BLOCK_SIZE = 64;

type LineOf = (o: object) => number | undefined;

function parseRequest(f: Fields, inner: boolean, blockSize: number): TraceRequest {
  const type = f.obj.type ?? 'n';
  if (type !== 'n' && type !== 's')
    f.fail(
      'type',
      `${JSON.stringify(type)} is not a request type`,
      inner ? 'a subagent\'s requests have "type": "n"' : 'write "n" (normal), "s" (streaming) or "subagent"',
    );
  if (inner && type === 's')
    f.fail('type', 'a subagent request cannot be streaming ("s")', 'write "type": "n" inside a subagent');
  const request: TraceRequest = {
    t: f.number('t', 'the send time, seconds from the trace start', { required: true }),
    input: f.number('in', 'the input (context) tokens', TOKEN_COUNT),
    output: f.number('out', 'the output tokens', TOKEN_COUNT),
    hashIds: hashIdsOf(f, blockSize),
    source: f.at,
  };
  const delay = f.number('think_time', 'the idle seconds since the previous request ended', { nullable: true });
  if (delay !== undefined) request.delay = delay;
  const apiTime = f.number('api_time', 'the recorded server seconds');
  if (apiTime !== undefined) request.apiTime = apiTime;
  const model = f.string('model', 'the model name');
  if (model !== undefined) request.model = model;
  if (type === 's') {
    request.streaming = true;
    const ttft = f.number('ttft', 'the recorded time to first token, seconds', { nullable: true });
    if (ttft !== undefined) request.ttft = ttft;
  }
  return request;
}

function parseSubagent(f: Fields, lineOf: LineOf, blockSize: number): TraceSubagent {
  const requests = f.obj.requests;
  if (!Array.isArray(requests))
    f.fail(
      'requests',
      requests === undefined ? 'missing' : 'not a list',
      'a subagent entry holds its own "requests": [{"t": …, "type": "n", …}]',
    );
  if (requests.length === 0)
    f.fail('requests', 'a subagent with no requests', 'remove the subagent entry, or give it the requests it made');
  const inner = requests.map((r, i) => {
    const key = f.key(`requests[${i}]`);
    const at = { file: f.at.file, line: (isObject(r) && lineOf(r)) || f.at.line };
    if (!isObject(r))
      throw traceError(
        at,
        FORMAT,
        key,
        'not an object',
        'each request is {"t": …, "type": "n", "in": …, "out": …, "hash_ids": […]}',
      );
    return parseRequest(new Fields(r, at, FORMAT, key), true, blockSize);
  });
  const t = f.number('t', "the subagent's start, seconds from the trace start") ?? inner[0]!.t;
  const durationMs = f.number('duration_ms', 'the wall time of its requests, milliseconds');
  const last = inner[inner.length - 1]!;
  const subagent: TraceSubagent = {
    t,
    agentId: checkedId(f, 'agent_id', f.string('agent_id', 'the subagent instance id', { required: true })),
    subagentType: f.string('subagent_type', 'the kind of subagent, e.g. "Explore"') ?? 'Subagent',
    duration: durationMs !== undefined ? durationMs / 1000 : last.t + (last.apiTime ?? 0) - t,
    requests: inner,
    source: f.at,
  };
  f.number('total_tokens', 'the sum of in + out over its requests', { integer: true, nullable: true });
  const toolUseCount = f.number('tool_use_count', 'the tool calls it made', { integer: true, nullable: true });
  if (f.has('tool_use_count')) subagent.toolUseCount = toolUseCount ?? null;
  const status = f.string('status', 'how it ended, e.g. "completed"');
  if (status !== undefined) subagent.status = status;
  const models = f.stringList('models', 'the models its requests used');
  if (models !== undefined) subagent.models = models;
  return subagent;
}

/** One Weka trace object (`obj`, read at `at`) in memory; `lineOf` gives the line of a nested object when known. */
export function parseWekaTrace(
  obj: Record<string, unknown>,
  at: SourceLine,
  lineOf: LineOf = () => undefined,
  options: { leadingSubagents?: boolean } = {},
): Trace {
  const f: Fields = new Fields(obj, at, FORMAT, '');
  const id = f.obj.id;
  if (id === undefined) f.fail('id', 'missing', 'add "id": the session id, a string');
  if (typeof id !== 'string' && typeof id !== 'number') f.fail('id', 'not a string', 'write "id" as a string');
  const blockSize =
    f.number('block_size', 'tokens per hash block (64)', { integer: true, min: 1, max: MAX_BLOCK_SIZE }) ?? WEKA_BLOCK_SIZE;
  const scope: unknown = f.obj.hash_id_scope ?? 'local';
  if (scope !== 'local' && scope !== 'global')
    f.fail('hash_id_scope', `${JSON.stringify(scope)} is not a scope`, 'write "local" (ids private to the trace) or "global"');
  const models = f.stringList('models', "the models the trace's requests used");
  const requests = f.obj.requests;
  if (!Array.isArray(requests))
    f.fail(
      'requests',
      requests === undefined ? 'missing' : 'not a list',
      'a Weka trace holds "requests": [{"t": 0, "type": "n", …}, …]',
    );
  if (requests.length === 0) f.fail('requests', 'a trace with no requests', 'remove the trace, or give it the requests it made');
  let mainSeen = false;
  const entries = requests.map((r, i): TraceEntry => {
    const key = `requests[${i}]`;
    const entryAt = { file: at.file, line: (isObject(r) && lineOf(r)) || at.line };
    if (!isObject(r))
      throw traceError(
        entryAt,
        FORMAT,
        key,
        'not an object',
        'each entry is a request {"t": …, "type": "n", …} or a subagent {"type": "subagent", …}',
      );
    const ef = new Fields(r, entryAt, FORMAT, key);
    const isSubagent = r.type === 'subagent' || (r.type === undefined && Array.isArray(r.requests));
    if (!isSubagent) {
      mainSeen = true;
      return { kind: 'request', request: parseRequest(ef, false, blockSize) };
    }
    if (!mainSeen && !options.leadingSubagents)
      ef.fail(
        'type',
        "a subagent before the trace's first main request: its parent never ran",
        'a subagent is spawned by a main-agent turn: put that request before it (a capped corpus, whose spawning turn was dropped, reads with --allow-leading-subagents)',
      );
    return { kind: 'subagent', subagent: parseSubagent(ef, lineOf, blockSize) };
  });
  const trace: Trace = { id: checkedId(f, 'id', String(id)), blockSize, hashIdScope: scope, entries, source: at };
  if (models !== undefined) trace.models = models;
  return trace;
}

function requestJson(r: TraceRequest, inner: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { t: r.t };
  if (inner) out.type = 'n';
  if (r.model !== undefined) out.model = r.model;
  out.in = r.input;
  out.out = r.output;
  out.hash_ids = r.hashIds;
  if (r.apiTime !== undefined) out.api_time = r.apiTime;
  if (r.delay !== undefined) out.think_time = r.delay;
  if (!inner) {
    out.type = r.streaming ? 's' : 'n';
    if (r.streaming && r.ttft !== undefined) out.ttft = r.ttft;
  }
  return out;
}

function subagentJson(s: TraceSubagent): Record<string, unknown> {
  const out: Record<string, unknown> = {
    t: s.t,
    type: 'subagent',
    agent_id: s.agentId,
    subagent_type: s.subagentType,
    duration_ms: Math.round(s.duration * 1000),
    total_tokens: s.requests.reduce((n, r) => n + r.input + r.output, 0),
  };
  if (s.toolUseCount !== undefined) out.tool_use_count = s.toolUseCount;
  if (s.status !== undefined) out.status = s.status;
  out.requests = s.requests.map((r) => requestJson(r, true));
  if (s.models !== undefined) out.models = s.models;
  return out;
}

/** A trace as the Weka JSON object, keys in proxy_to_weka.py's order. */
export function wekaTraceJson(trace: Trace): Record<string, unknown> {
  const out: Record<string, unknown> = { id: trace.id };
  if (trace.models !== undefined) out.models = trace.models;
  out.block_size = trace.blockSize;
  out.hash_id_scope = trace.hashIdScope;
  out.requests = trace.entries.map((e) => (e.kind === 'request' ? requestJson(e.request, false) : subagentJson(e.subagent)));
  return out;
}

/** Traces as a Weka `traces.jsonl`: one compact trace object per line. */
export function formatWekaTraces(traces: readonly Trace[]): string {
  return traces.map((t) => `${JSON.stringify(wekaTraceJson(t))}\n`).join('');
}
