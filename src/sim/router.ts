import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readBody, sendJson } from './http.js';

/**
 * A prefill/decode proxy, as vLLM's `toy_proxy_server` / `disagg_proxy` is: for each generation
 * request it asks a prefill server for the prompt's KV cache (the request with `max_tokens: 1`
 * and `kv_transfer_params: {do_remote_decode: true}`), then sends the original request, with
 * the `kv_transfer_params` the prefill returned, to a decode server and streams its response
 * back chunk by chunk as it arrives. Backends are `frontier sim serve --role prefill|decode`, or
 * any server that speaks vLLM's NIXL `kv_transfer_params`.
 */

export interface SimRouterOptions {
  /** Base URLs of the prefill servers (`http://host:port`). */
  prefill: string[];
  /** Base URLs of the decode servers. */
  decode: string[];
  host: string;
  port: number;
  /** How long /health waits for each backend's /health (default 2 s). */
  healthTimeoutMs?: number | undefined;
}

export type BackendRole = 'prefill' | 'decode';

export interface BackendStats {
  role: BackendRole;
  url: string;
  inFlight: number;
  requests: number;
  errors: number;
}

export interface RouterStats {
  /** Generation requests received, answered with an error, and cancelled by the client. */
  requests: number;
  failed: number;
  cancelled: number;
  /** Prefill answers without `kv_transfer_params` (the decode then prefilled the prompt itself). */
  kvParamsMissing: number;
  inFlight: number;
  backends: BackendStats[];
}

export interface SimRouter {
  url: string;
  port: number;
  stats(): RouterStats;
  close(): Promise<void>;
}

interface Backend extends BackendStats {
  hostname: string;
  port: number;
  /** A path prefix of the base URL ('' for none). */
  base: string;
}

/** The router's own failure, answered as a vLLM-shaped JSON error. */
class RouteError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly backend?: string,
  ) {
    super(message);
  }
}

const tooLarge = (): Error => new RouteError('request body too large', 413);

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
]);

/** What the router asks a prefill server for, as vLLM's toy proxy does. */
const PREFILL_KV_PARAMS = {
  do_remote_decode: true,
  do_remote_prefill: false,
  remote_engine_id: null,
  remote_block_ids: null,
  remote_host: null,
  remote_port: null,
};

function backendOf(role: BackendRole, raw: string): Backend {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${role} backend ${raw}: not a URL (expected http://host:port)`);
  }
  if (url.protocol !== 'http:') throw new Error(`${role} backend ${raw}: only http:// is supported`);
  const base = url.pathname.replace(/\/+$/, '');
  return {
    role,
    url: `${url.protocol}//${url.host}${base}`,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    base,
    inFlight: 0,
    requests: 0,
    errors: 0,
  };
}

export async function startSimRouter(options: SimRouterOptions): Promise<SimRouter> {
  if (options.prefill.length === 0) throw new Error('the router needs at least one prefill backend (--prefill URL)');
  if (options.decode.length === 0) throw new Error('the router needs at least one decode backend (--decode URL)');
  const prefill = options.prefill.map((u) => backendOf('prefill', u));
  const decode = options.decode.map((u) => backendOf('decode', u));
  const backends = [...prefill, ...decode];
  const healthTimeoutMs = options.healthTimeoutMs ?? 2000;
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024, scheduling: 'lifo' });
  const sockets = new Set<Socket>();
  const upstreams = new Set<ClientRequest>();
  const counters = { requests: 0, failed: 0, cancelled: 0, kvParamsMissing: 0, inFlight: 0 };
  const turn = new Map<Backend[], number>();

  /** The backend with the fewest requests in flight; ties go round-robin. */
  const pick = (pool: Backend[]): Backend => {
    const start = turn.get(pool) ?? 0;
    turn.set(pool, (start + 1) % pool.length);
    let best = pool[start]!;
    for (let k = 1; k < pool.length; k++) {
      const b = pool[(start + k) % pool.length]!;
      if (b.inFlight < best.inFlight) best = b;
    }
    return best;
  };

  /**
   * Send a request to a backend; resolves with its response (headers read). The backend's
   * in-flight count holds until the response ends, fails or is aborted through `signal` (the
   * client went away; not counted as the backend's error). A kept-alive connection that the
   * backend had closed is retried once on a new one, as nothing was answered on it.
   */
  const call = (
    backend: Backend,
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    body: Buffer | undefined,
    signal: AbortSignal,
  ): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      backend.inFlight++;
      backend.requests++;
      let open = true;
      const release = (failed: boolean): void => {
        if (!open) return;
        open = false;
        backend.inFlight--;
        if (failed && !signal.aborted) backend.errors++;
      };
      const send = (retry: boolean): void => {
        let answered = false;
        let settled = false;
        const req = httpRequest(
          {
            agent,
            hostname: backend.hostname,
            port: backend.port,
            method,
            path: `${backend.base}${path}`,
            headers: body ? { ...headers, 'content-length': body.length } : headers,
            signal,
          },
          (up) => {
            answered = true;
            up.on('end', () => release(false));
            up.on('error', () => release(true));
            up.on('close', () => {
              upstreams.delete(req);
              release(!up.complete);
            });
            resolve(up);
          },
        );
        upstreams.add(req);
        req.on('socket', (s) => s.setNoDelay(true));
        const fail = (e: NodeJS.ErrnoException): void => {
          if (settled || answered) return;
          settled = true;
          upstreams.delete(req);
          if (retry && req.reusedSocket && e.code === 'ECONNRESET' && !signal.aborted) return send(false);
          release(true);
          reject(
            signal.aborted
              ? new RouteError('the client went away', 499, backend.url)
              : new RouteError(`${backend.role} backend ${backend.url} failed: ${e.message}`, 502, backend.url),
          );
        };
        req.on('error', fail);
        req.on('close', () => fail(new Error('the connection closed before an answer')));
        req.end(body);
      };
      send(true);
    });

  /** A backend's whole response body. */
  const readAll = (up: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => resolve(Buffer.concat(chunks)));
      up.on('error', reject);
      up.on('close', () => {
        if (!up.complete) reject(new Error('the connection closed mid-response'));
      });
    });

  /** A backend answered with an error status: the client gets that status, and which backend said it. */
  const backendError = async (backend: Backend, up: IncomingMessage): Promise<RouteError> => {
    const text = (await readAll(up).catch(() => Buffer.alloc(0))).toString('utf8');
    let detail = text.slice(0, 2000);
    try {
      const parsed = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
      const message = parsed.message ?? parsed.error?.message;
      if (typeof message === 'string') detail = message;
    } catch {
      // not JSON: the raw text
    }
    backend.errors++;
    return new RouteError(
      `${backend.role} backend ${backend.url} answered HTTP ${up.statusCode}${detail ? `: ${detail}` : ''}`,
      up.statusCode ?? 502,
      backend.url,
    );
  };

  const forwardHeaders = (req: IncomingMessage, requestId: string): OutgoingHttpHeaders => {
    const headers: OutgoingHttpHeaders = { 'content-type': 'application/json', 'x-request-id': requestId };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    return headers;
  };

  /** Write a backend's response to the client as it arrives, one write per chunk, flushed at once. */
  const pipe = (up: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(up.statusCode ?? 502, responseHeaders(up.headers));
    res.flushHeaders();
    up.on('data', (chunk: Buffer) => {
      if (res.destroyed) return;
      // node:http corks the socket until the end of this tick: chunks that came in one read go
      // out in one write, each as soon as it came.
      const more = res.write(chunk);
      if (!more) {
        up.pause();
        res.once('drain', () => up.resume());
      }
    });
    up.on('end', () => res.end());
    up.on('close', () => {
      if (!up.complete && !res.destroyed) res.destroy();
    });
  };

  const generate = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
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
      const raw = await readBody(req, tooLarge);
      let body: Record<string, unknown>;
      try {
        const value = JSON.parse(raw.toString('utf8')) as unknown;
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          throw new Error('the body must be a JSON object');
        body = value as Record<string, unknown>;
      } catch (e) {
        throw new RouteError(`invalid JSON body: ${(e as Error).message}`, 400);
      }
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
      const p = pick(prefill);
      const prefilled = await call(p, 'POST', path, headers, Buffer.from(JSON.stringify(prefillBody)), signal);
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
      const d = pick(decode);
      const up = await call(d, 'POST', path, headers, Buffer.from(JSON.stringify(decodeBody)), signal);
      if (signal.aborted) return;
      if ((up.statusCode ?? 502) >= 400) throw await backendError(d, up);
      pipe(up, res);
    } catch (e) {
      if (signal.aborted) return;
      counters.failed++;
      throw e;
    }
  };

  /** Anything else a client asks of the model (/v1/models, /tokenize…): a decode server answers. */
  const forward = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req, tooLarge);
    const headers: OutgoingHttpHeaders = {};
    for (const name of ['content-type', 'authorization', 'accept', 'x-request-id'])
      if (req.headers[name] !== undefined) headers[name] = req.headers[name];
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const up = await call(pick(decode), req.method ?? 'GET', path, headers, body, abort.signal);
    pipe(up, res);
  };

  const probe = (backend: Backend): Promise<{ role: BackendRole; url: string; status?: number; error?: string }> =>
    new Promise((resolve) => {
      const req = httpRequest(
        // A connection of its own: the probe's timeout stays off the kept-alive ones.
        {
          agent: false,
          hostname: backend.hostname,
          port: backend.port,
          path: `${backend.base}/health`,
          timeout: healthTimeoutMs,
        },
        (up) => {
          up.resume();
          up.on('end', () => resolve({ role: backend.role, url: backend.url, status: up.statusCode ?? 0 }));
          up.on('error', (e) => resolve({ role: backend.role, url: backend.url, error: e.message }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${healthTimeoutMs} ms`)));
      req.on('error', (e) => resolve({ role: backend.role, url: backend.url, error: e.message }));
      req.end();
    });

  const stats = (): RouterStats => ({
    ...counters,
    backends: backends.map(({ role, url, inFlight, requests, errors }) => ({ role, url, inFlight, requests, errors })),
  });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && (url === '/v1/completions' || url === '/v1/chat/completions')) return generate(req, res, url);
    // SGLang's router answers /readiness (its workers are up) and /liveness (it is) besides /health.
    if (req.method === 'GET' && url === '/liveness') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && (url === '/health' || url === '/readiness')) {
      const results = await Promise.all(backends.map(probe));
      const notReady = results.filter((r) => r.status !== 200);
      if (notReady.length === 0) return sendJson(res, 200, { status: 'ok' });
      return sendJson(res, 503, { status: 'not ready', not_ready: notReady });
    }
    if (req.method === 'GET' && url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(routerMetrics(stats()));
      return;
    }
    if (
      (req.method === 'GET' && url === '/v1/models') ||
      (req.method === 'POST' && (url === '/tokenize' || url === '/detokenize'))
    )
      return forward(req, res, req.url ?? url);
    throw new RouteError(`no route ${req.method} ${url}`, 404);
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      const status = e instanceof RouteError ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (res.headersSent) res.destroy();
      else if (!res.destroyed)
        sendJson(res, status, {
          object: 'error',
          message,
          type: status === 400 ? 'BadRequestError' : 'Error',
          param: null,
          code: status,
          ...(e instanceof RouteError && e.backend ? { backend: e.backend } : {}),
        });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    stats,
    close: async () => {
      for (const r of upstreams) r.destroy();
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The router's counters in Prometheus text format. */
export function routerMetrics(stats: RouterStats): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, values: [labels: string, value: number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) lines.push(labels ? `${name}{${labels}} ${value}` : `${name} ${value}`);
  };
  const per = (b: BackendStats): string => `role="${b.role}",backend=${JSON.stringify(b.url)}`;
  metric('frontier_router_requests_total', 'counter', 'Generation requests received.', [['', stats.requests]]);
  metric('frontier_router_requests_failed_total', 'counter', 'Generation requests answered with an error.', [['', stats.failed]]);
  metric('frontier_router_requests_cancelled_total', 'counter', 'Generation requests the client went away from.', [
    ['', stats.cancelled],
  ]);
  metric(
    'frontier_router_kv_params_missing_total',
    'counter',
    'Prefill answers without kv_transfer_params (the decode server prefilled the prompt itself).',
    [['', stats.kvParamsMissing]],
  );
  metric('frontier_router_requests_in_flight', 'gauge', 'Generation requests in flight.', [['', stats.inFlight]]);
  metric(
    'frontier_router_backend_in_flight',
    'gauge',
    'Requests in flight per backend.',
    stats.backends.map((b) => [per(b), b.inFlight]),
  );
  metric(
    'frontier_router_backend_requests_total',
    'counter',
    'Requests sent per backend.',
    stats.backends.map((b) => [per(b), b.requests]),
  );
  metric(
    'frontier_router_backend_errors_total',
    'counter',
    'Requests per backend that failed or were answered with an error status.',
    stats.backends.map((b) => [per(b), b.errors]),
  );
  return `${lines.join('\n')}\n`;
}

function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
