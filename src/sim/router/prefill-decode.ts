import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readBody } from '../http.js';
import type { SessionAffinity } from './affinity.js';
import { sessionOf } from './affinity.js';
import type { BackendPool } from './backends.js';
import { RouteError, tooLarge } from './route-error.js';
import type { RouterCounters } from './stats.js';
import type { UpstreamClient } from './upstream.js';
import { backendError, pipe, readAll } from './upstream.js';

/** What the router asks a prefill server for, as vLLM's toy proxy does. */
const PREFILL_KV_PARAMS = {
  do_remote_decode: true,
  do_remote_prefill: false,
  remote_engine_id: null,
  remote_block_ids: null,
  remote_host: null,
  remote_port: null,
};

export interface PrefillDecodeOptions {
  prefill: BackendPool;
  decode: BackendPool;
  upstream: UpstreamClient;
  counters: RouterCounters;
  /** Keeps a session's turns on one prefill server; none: every request goes to the least loaded. */
  affinity?: SessionAffinity | undefined;
}

/**
 * A generation request (`path`: /v1/completions or /v1/chat/completions) in two steps: a prefill
 * server computes the prompt's KV cache, then a decode server, told where it is, answers the
 * original request, its response streamed back as it arrives.
 */
export type GenerationProxy = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;

export function createPrefillDecode({ prefill, decode, upstream, counters, affinity }: PrefillDecodeOptions): GenerationProxy {
  return async (req, res, path) => {
    counters.requests++;
    counters.inFlight++;
    const abort = new AbortController();
    const { signal } = abort;
    res.on('close', () => {
      counters.inFlight--;
      if (!res.writableFinished) {
        counters.cancelled++;
        abort.abort();
      }
    });
    try {
      const body = parseBody(await readBody(req, tooLarge));
      const chat = path === '/v1/chat/completions';
      const requestId = headerOf(req.headers, 'x-request-id') ?? randomUUID();
      const headers = forwardHeaders(req, requestId);

      // 1. Prefill: one token, not streamed; the answer says where the KV cache is.
      const { stream_options: _so, min_tokens: _mt, ...rest } = body;
      const prefillBody: Record<string, unknown> = {
        ...rest,
        max_tokens: 1,
        ...(chat ? { max_completion_tokens: 1 } : {}),
        stream: false,
        kv_transfer_params: PREFILL_KV_PARAMS,
      };
      const p = affinity ? affinity.pick(prefill, sessionOf(req.headers, body)) : prefill.pick();
      const prefilled = await upstream.call(p, 'POST', path, headers, Buffer.from(JSON.stringify(prefillBody)), signal);
      if (signal.aborted) return;
      if (prefilled.statusCode !== 200) throw await backendError(p, prefilled);
      let kvParams: unknown;
      try {
        kvParams = (JSON.parse((await readAll(prefilled)).toString('utf8')) as { kv_transfer_params?: unknown })
          .kv_transfer_params;
      } catch (e) {
        p.errors++;
        throw new RouteError(`prefill backend ${p.url} answered badly: ${(e as Error).message}`, 502, p.url);
      }
      if (signal.aborted) return;
      if (kvParams === undefined || kvParams === null) counters.kvParamsMissing++;

      // 2. Decode: the original request, plus the KV cache's whereabouts; its answer goes straight back.
      const decodeBody = kvParams === undefined || kvParams === null ? body : { ...body, kv_transfer_params: kvParams };
      const d = decode.pick();
      const up = await upstream.call(d, 'POST', path, headers, Buffer.from(JSON.stringify(decodeBody)), signal);
      if (signal.aborted) return;
      if ((up.statusCode ?? 502) >= 400) throw await backendError(d, up);
      pipe(up, res);
    } catch (e) {
      if (signal.aborted) return;
      counters.failed++;
      throw e;
    }
  };
}

function parseBody(raw: Buffer): Record<string, unknown> {
  try {
    const value = JSON.parse(raw.toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('the body must be a JSON object');
    return value as Record<string, unknown>;
  } catch (e) {
    throw new RouteError(`invalid JSON body: ${(e as Error).message}`, 400);
  }
}

function forwardHeaders(req: IncomingMessage, requestId: string): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'content-type': 'application/json', 'x-request-id': requestId };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  return headers;
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
