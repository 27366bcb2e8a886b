/**
 * The HTTP API over the store (Fastify): reads for everyone (or only token holders with
 * `private`), ingest for token holders. Every query string is checked against its route's schema
 * (unknown parameters are errors, not silently dropped); the OpenAPI document is generated from
 * those same schemas. The routes are in routes/, one module per resource; this file makes the
 * server, its hooks shared by every route, and registers the routes.
 */
import { tmpdir } from 'node:os';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IngestOptions, Store } from '../store/index.js';
import { holdGateSlot, requireToken } from './access.js';
import { serveDashboard } from './dashboard.js';
import { Gate } from './gate.js';
import { HttpError } from './http-error.js';
import { openApiCollector } from './openapi.js';
import { PageError } from './paging.js';
import {
  agenticRoutes,
  compareRoutes,
  correctionRoutes,
  healthRoutes,
  ingestRoutes,
  nodeRoutes,
  pointRoutes,
  predictedFrontierRoutes,
  runRoutes,
  variationRoutes,
} from './routes/index.js';
import type { RouteContext } from './routes/index.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { DEFAULT_MAX_UPLOAD_MB, UNPACKED_UPLOAD_FACTOR, sweepStaleUploads } from './uploads.js';
import { plainDecimalNumbers, validationMessage } from './validation.js';
import type { ValidationIssue } from './validation.js';

export interface ApiOptions {
  store: Store;
  /** Reads need a token too. */
  private?: boolean;
  /** Largest upload (the .tar.gz), bytes. */
  maxUploadBytes?: number;
  /** Largest unpacked upload, bytes. */
  maxUnpackedBytes?: number;
  /** Per-eval thresholds for ingests (records pass/fail). */
  thresholdOf?: IngestOptions['thresholdOf'];
  logger?: boolean;
  /** The built dashboard (dist/web): served at every path outside /api. */
  webDir?: string | undefined;
  /** Where uploads wait while checked (default: the system temp dir); stale ones are removed at start. */
  uploadRoot?: string;
  /** Heavy reads at once (default 4), and waiting beyond those before a 503 (default 32). */
  maxConcurrentQueries?: number;
  maxQueuedQueries?: number;
}

const MiB = 2 ** 20;
const LINGER_MS = 2000;

/** Reads that run at once, and that wait for a slot, before a request is answered 503 (docs/api.md, "Heavy queries"). */
export const MAX_CONCURRENT_QUERIES = 4;
export const MAX_QUEUED_QUERIES = 32;

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const { store } = options;
  const maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_MB * MiB;
  const uploadRoot = options.uploadRoot ?? tmpdir();
  const gate = new Gate(options.maxConcurrentQueries ?? MAX_CONCURRENT_QUERIES, options.maxQueuedQueries ?? MAX_QUEUED_QUERIES);
  const app = Fastify({
    logger: options.logger ?? false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false, verbose: true, strictNumbers: true } },
  });
  const openapi = openApiCollector(app);
  app.addHook('preValidation', plainDecimalNumbers);
  // On every answer, errors and 404s included: the dashboard's pages, its assets and the API.
  app.addHook('onSend', async (_request, reply) => {
    void reply.headers(SECURITY_HEADERS);
  });
  const swept = sweepStaleUploads(uploadRoot);
  if (swept.length > 0) app.log.info(`removed ${swept.length} upload dir(s) left by a stopped server: ${swept.join(', ')}`);

  app.setErrorHandler(sendError);
  // An upload answered before its end (401, 413, a bad parameter) is not read: the connection is
  // closed after the answer (FIN), and what the client had already sent is discarded for at most
  // LINGER_MS, so that it reads the answer rather than a connection reset.
  app.addHook('onResponse', async (request) => {
    const raw = request.raw;
    if (raw.method !== 'POST' || raw.readableEnded) return;
    raw.resume();
    raw.socket.end();
    setTimeout(() => raw.socket.destroy(), LINGER_MS).unref();
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({ error: `no such endpoint: ${request.method} ${request.url.split('?')[0]}` }),
  );

  const tokenCheck = requireToken(store);
  const heavySlot = holdGateSlot(gate);
  const context: RouteContext = {
    app,
    store,
    gate,
    private: options.private ?? false,
    requireToken: tokenCheck,
    heavyRead: { preHandler: options.private ? [tokenCheck, heavySlot] : [heavySlot] },
  };
  // In this order: the OpenAPI document (and docs/api.md's table) lists the routes as they register.
  healthRoutes(context);
  predictedFrontierRoutes(context);
  pointRoutes(context);
  agenticRoutes(context);
  runRoutes(context);
  correctionRoutes(context);
  nodeRoutes(context);
  compareRoutes(context);
  variationRoutes(context);
  ingestRoutes(context, {
    uploadRoot,
    maxUploadBytes,
    maxUnpackedBytes: options.maxUnpackedBytes ?? UNPACKED_UPLOAD_FACTOR * maxUploadBytes,
    thresholdOf: options.thresholdOf,
  });

  app.get('/api/openapi.json', async () => openapi.document());
  if (options.webDir) serveDashboard(app, options.webDir);
  await app.ready();
  return app;
}

/** Every error as `{ error }` JSON: the status a route chose, 400 for a bad parameter, 500 (logged) for the rest. */
function sendError(
  error: Error & { validation?: unknown; statusCode?: number },
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof HttpError) {
    if (error.status === 401) void reply.header('www-authenticate', 'Bearer');
    return reply
      .status(error.status)
      .headers(error.headers)
      .send({ error: error.message, ...error.extra });
  }
  if (error instanceof PageError) return reply.status(400).send({ error: error.message });
  if (error.validation)
    return reply.status(400).send({ error: validationMessage(error.validation as ValidationIssue[], error.message) });
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.status(error.statusCode).send({ error: error.message });
  }
  request.log.error(error);
  return reply.status(500).send({ error: 'internal error' });
}
