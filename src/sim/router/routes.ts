import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readBody, sendErrorAnswer, sendJson } from '../http.js';
import type { Backend, BackendPool } from './backends.js';
import { notReady } from './health.js';
import type { GenerationProxy } from './prefill-decode.js';
import { RouteError, tooLarge } from './route-error.js';
import { routerMetrics } from './stats.js';
import type { RouterStats } from './stats.js';
import { pipe } from './upstream.js';
import type { UpstreamClient } from './upstream.js';

export interface RouterRoutesOptions {
  backends: readonly Backend[];
  decode: BackendPool;
  upstream: UpstreamClient;
  generate: GenerationProxy;
  stats: () => RouterStats;
  /** How long /health waits for each backend's /health. */
  healthTimeoutMs: number;
}

/** The router's endpoints: generation through prefill and decode, health, metrics, the rest to a decode server. */
export function createRouterRoutes(o: RouterRoutesOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
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
    const up = await o.upstream.call(o.decode.pick(), req.method ?? 'GET', path, headers, body, abort.signal);
    pipe(up, res);
  };

  return async (req, res) => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && (url === '/v1/completions' || url === '/v1/chat/completions')) return o.generate(req, res, url);
    // SGLang's router answers /readiness (its workers are up) and /liveness (it is) besides /health.
    if (req.method === 'GET' && url === '/liveness') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && (url === '/health' || url === '/readiness')) {
      const down = await notReady(o.backends, o.healthTimeoutMs);
      if (down.length === 0) return sendJson(res, 200, { status: 'ok' });
      return sendJson(res, 503, { status: 'not ready', not_ready: down });
    }
    if (req.method === 'GET' && url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(routerMetrics(o.stats()));
      return;
    }
    if (
      (req.method === 'GET' && url === '/v1/models') ||
      (req.method === 'POST' && (url === '/tokenize' || url === '/detokenize'))
    )
      return forward(req, res, req.url ?? url);
    throw new RouteError(`no route ${req.method} ${url}`, 404);
  };
}

/**
 * A failed request's answer: a vLLM-shaped JSON error naming the backend at fault, or a cut
 * connection once a response has begun.
 */
export function sendError(res: ServerResponse, e: unknown): void {
  const status = e instanceof RouteError ? e.status : 500;
  const message = e instanceof Error ? e.message : String(e);
  sendErrorAnswer(res, status, message, e instanceof RouteError && e.backend ? { backend: e.backend } : {});
}
