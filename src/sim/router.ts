import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SessionAffinity } from './router/affinity.js';
import { BackendPool, backendOf } from './router/backends.js';
import { createPrefillDecode } from './router/prefill-decode.js';
import { createRouterRoutes, sendError } from './router/routes.js';
import type { RouterCounters, RouterStats } from './router/stats.js';
import { UpstreamClient } from './router/upstream.js';

export type { BackendRole, BackendStats } from './router/backends.js';
export { routerMetrics } from './router/stats.js';
export type { RouterStats } from './router/stats.js';

/**
 * A prefill/decode proxy, as vLLM's `toy_proxy_server` / `disagg_proxy` is: for each generation
 * request it asks a prefill server for the prompt's KV cache (the request with `max_tokens: 1`
 * and `kv_transfer_params: {do_remote_decode: true}`), then sends the original request, with
 * the `kv_transfer_params` the prefill returned, to a decode server and streams its response
 * back chunk by chunk as it arrives. Backends are `frontier sim serve --role prefill|decode`, or
 * any server that speaks vLLM's NIXL `kv_transfer_params`.
 *
 * This module starts and stops it; its parts are in router/.
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
  /**
   * Keep each session's turns on the prefill server that holds its prefix (router/affinity.ts:
   * `X-Dynamo-Session-ID`, `X-Correlation-ID`, `nvext.session_control`). Default on; off, every
   * request goes to the least-loaded prefill server.
   */
  sessionAffinity?: boolean | undefined;
  /** How long an idle session stays bound (default one hour). */
  sessionTtlMs?: number | undefined;
}

export interface SimRouter {
  url: string;
  port: number;
  stats(): RouterStats;
  close(): Promise<void>;
}

export async function startSimRouter(options: SimRouterOptions): Promise<SimRouter> {
  if (options.prefill.length === 0) throw new Error('the router needs at least one prefill backend (--prefill URL)');
  if (options.decode.length === 0) throw new Error('the router needs at least one decode backend (--decode URL)');
  const prefill = new BackendPool(options.prefill.map((u) => backendOf('prefill', u)));
  const decode = new BackendPool(options.decode.map((u) => backendOf('decode', u)));
  const backends = [...prefill.backends, ...decode.backends];
  const upstream = new UpstreamClient();
  const sockets = new Set<Socket>();
  const counters: RouterCounters = { requests: 0, failed: 0, cancelled: 0, kvParamsMissing: 0, inFlight: 0 };
  const stats = (): RouterStats => ({
    ...counters,
    backends: backends.map(({ role, url, inFlight, requests, errors }) => ({ role, url, inFlight, requests, errors })),
  });
  const route = createRouterRoutes({
    backends,
    decode,
    upstream,
    generate: createPrefillDecode({
      prefill,
      decode,
      upstream,
      counters,
      affinity: options.sessionAffinity === false ? undefined : new SessionAffinity(options.sessionTtlMs),
    }),
    stats,
    healthTimeoutMs: options.healthTimeoutMs ?? 2000,
  });

  const server: Server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => sendError(res, e));
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
      upstream.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
