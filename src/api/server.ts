/**
 * The HTTP API over the store (Fastify): reads for everyone (or only token holders with
 * `private`), ingest for token holders. Every query string is checked against its route's schema
 * (unknown parameters are errors, not silently dropped); the OpenAPI document is generated from
 * those same schemas.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Readable } from 'node:stream';
import { configLabel, goalOf, latestSeries, paretoFront } from '../contract/index.js';
import type { ParetoAnswer } from '../contract/index.js';
import {
  IngestConflict,
  IngestError,
  agenticPoint,
  agenticPoints,
  availability,
  benchmarks,
  compareRun,
  evaluations,
  history,
  ingestBatch,
  readArtifacts,
  run,
  runLog,
  runs,
} from '../store/index.js';
import type { IngestOptions, ResultFilter, Store } from '../store/index.js';
import { holdGateSlot, requireToken } from './access.js';
import { ArchiveError, extractTarGz } from './archive.js';
import { serveDashboard } from './dashboard.js';
import { Gate } from './gate.js';
import { HttpError } from './http-error.js';
import { openApiCollector } from './openapi.js';
import { PredictedFrontierCache } from './predicted.js';
import type { PredictedFrontierQuery } from './predicted.js';
import { PageError, pageOf, pageParams, sendPage } from './paging.js';
import { SECURITY_HEADERS } from './security-headers.js';
import type { PageSize } from './paging.js';
import { dateParam, filterOf, intParam, querySchema, resultFilterParams, sourceParam, stringParam } from './schemas.js';
import type { Query } from './schemas.js';
import { UserError } from '../util/user-error.js';
import {
  DEFAULT_MAX_UPLOAD_MB,
  MAX_ARCHIVE_ENTRIES,
  UNPACKED_UPLOAD_FACTOR,
  UploadTooLarge,
  receiveUpload,
  removeTree,
  sweepStaleUploads,
  uploadDir,
} from './uploads.js';
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
/** Page sizes: rows of points (~1 KB each with every metric) and of runs. */
/** Rows a page of points (benchmarks, history, evaluations, availability) holds by default and at most. */
export const POINTS_PAGE: PageSize = { default: 1000, max: 10_000 };
/** Rows a page of runs holds by default and at most. */
export const RUNS_PAGE: PageSize = { default: 100, max: 1000 };

/** Reads that run at once, and that wait for a slot, before a request is answered 503 (docs/api.md, "Heavy queries"). */
export const MAX_CONCURRENT_QUERIES = 4;
export const MAX_QUEUED_QUERIES = 32;

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const { store } = options;
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_MB * MiB;
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

  const authenticated = requireToken(store);
  // Heavy reads hold a slot of the gate from before their query until their answer is sent (or the client is gone).
  const heavy = holdGateSlot(gate);
  const read = { preHandler: options.private ? [authenticated, heavy] : [heavy] };

  app.setErrorHandler((error: Error & { validation?: unknown; statusCode?: number }, request, reply: FastifyReply) => {
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
  });
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

  const route = (
    path: string,
    schema: FastifySchema & Record<string, unknown>,
    handler: (q: Query, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) => app.get(path, { schema, ...read }, async (request, reply) => handler(request.query as Query, request, reply));
  /** A list route: its answer comes in pages of `size`. */
  const paged = (
    path: string,
    schema: FastifySchema & { querystring: { properties: Record<string, unknown> } } & Record<string, unknown>,
    size: PageSize,
    rows: (q: Query, page: { limit: number; offset: number }) => Promise<unknown[]>,
  ) =>
    route(
      path,
      {
        ...schema,
        querystring: { ...schema.querystring, properties: { ...schema.querystring.properties, ...pageParams(size) } },
      },
      async (q, request, reply) => {
        const page = pageOf(q, size);
        // One row more than the page says whether another page follows.
        return sendPage(request, reply, await rows(q, { limit: page.limit + 1, offset: page.offset }), page);
      },
    );

  // Liveness stays outside the gate: it answers while heavy queries run or wait.
  app.get(
    '/api/v1/health',
    {
      schema: { summary: 'Liveness: the store answers', querystring: querySchema({}) } as FastifySchema,
      ...(options.private ? { preHandler: authenticated } : {}),
    },
    async () => {
      await store.db.selectFrom('runs').select('id').limit(1).execute();
      return { ok: true, dialect: store.dialect, queries: gate.load };
    },
  );

  const predicted = new PredictedFrontierCache();
  route(
    '/api/v1/predicted-frontier',
    {
      summary:
        "The planner's predicted frontier (throughput per GPU against interactivity) from the simulator, for a model, GPU, precision and ISL/OSL; computed on first request, then cached",
      querystring: querySchema(
        {
          model: stringParam('model: a simulator id (minimax-m3) or Hugging Face name'),
          hardware: stringParam('GPU or runner label (b300, h200-dgxc)'),
          precision: stringParam('bf16, fp8 or fp4'),
          isl: intParam('input tokens per request'),
          osl: intParam('output tokens per request'),
          engine: stringParam('serving framework as InferenceX names it (vllm, sglang, trt…; default vllm)'),
        },
        ['model', 'hardware', 'precision', 'isl', 'osl'],
      ),
    },
    async (q) => {
      try {
        return predicted.get(q as unknown as PredictedFrontierQuery);
      } catch (e) {
        if (e instanceof UserError) throw new HttpError(404, e.message);
        throw e;
      }
    },
  );

  paged(
    '/api/v1/availability',
    {
      summary: 'What the official results cover: models, sequences, hardware, engines, precisions and dates',
      querystring: querySchema({}),
    },
    POINTS_PAGE,
    async (_, page) => availability(store, page),
  );

  paged(
    '/api/v1/benchmarks',
    {
      summary:
        'Benchmark points: the latest of each config and conc (as of a date), or one run’s; each with its power verdict (measured energy only when valid)',
      querystring: querySchema(resultFilterParams),
    },
    POINTS_PAGE,
    async (q, page) => benchmarks(store, { ...filterOf(q), ...page }),
  );

  route(
    '/api/v1/pareto',
    {
      summary: 'The Pareto frontier of each series (hardware × framework × precision × spec decoding × disagg, per sequence)',
      querystring: querySchema({
        ...resultFilterParams,
        x: { ...stringParam('x metric (default median_intvty)'), pattern: '^[a-z0-9_.]+$' },
        y: { ...stringParam('y metric (default tput_per_gpu)'), pattern: '^[a-z0-9_.]+$' },
      }),
    },
    async (q): Promise<ParetoAnswer> => {
      const x = (q.x as string | undefined) ?? 'median_intvty';
      const y = (q.y as string | undefined) ?? 'tput_per_gpu';
      let goals;
      try {
        goals = { x: goalOf(x), y: goalOf(y) };
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      const rows = await benchmarks(store, filterOf(q));
      return {
        x,
        y,
        goals,
        series: [...latestSeries(rows)].map(([key, points]) => {
          const xs = points.map((p) => p.metrics[x] ?? NaN);
          const ys = points.map((p) => p.metrics[y] ?? NaN);
          const p0 = points[0]!;
          return {
            key,
            hardware: p0.hardware,
            framework: p0.framework,
            precision: p0.precision,
            spec_method: p0.spec_method,
            disagg: p0.disagg,
            isl: p0.isl,
            osl: p0.osl,
            date: p0.date,
            points: points.map((p, i) => ({
              config_id: p.config_id,
              label: configLabel(p),
              conc: p.conc,
              run_id: p.run_id,
              x: xs[i] ?? null,
              y: ys[i] ?? null,
            })),
            frontier: paretoFront(xs, ys, goals),
          };
        }),
      };
    },
  );

  paged(
    '/api/v1/history',
    {
      summary:
        'Points over time, in every run of the chosen kind: one config’s (config) or a model’s (model and the filters); oldest first',
      querystring: querySchema({
        config: intParam('config id (config_id of a benchmark row)'),
        model: resultFilterParams.model,
        isl: resultFilterParams.isl,
        osl: resultFilterParams.osl,
        hardware: resultFilterParams.hardware,
        framework: resultFilterParams.framework,
        precision: resultFilterParams.precision,
        conc: intParam('concurrency'),
        source: sourceParam,
        metrics: resultFilterParams.metrics,
      }),
    },
    POINTS_PAGE,
    async (q, page) => {
      if (q.config === undefined && q.model === undefined) throw new HttpError(400, 'missing parameter: config or model');
      return history(store, {
        ...filterOf(q),
        ...page,
        config: q.config as number | undefined,
        conc: q.conc as number | undefined,
      });
    },
  );

  paged(
    '/api/v1/evaluations',
    {
      summary: 'Eval results (every task): the latest of each config, task and conc, or one run’s',
      querystring: querySchema({ ...resultFilterParams, task: stringParam('eval task (gsm8k, gpqa_diamond_cot_n_shot, aime…)') }),
    },
    POINTS_PAGE,
    async (q, page) => evaluations(store, { ...filterOf(q), ...page, task: q.task as string | undefined }),
  );

  paged(
    '/api/v1/agentic',
    {
      summary:
        'Agentic points (coding-agent trace replay): the latest of each config, KV offloading and conc (as of a date), or one run’s',
      querystring: querySchema({
        model: resultFilterParams.model,
        hardware: resultFilterParams.hardware,
        framework: resultFilterParams.framework,
        precision: resultFilterParams.precision,
        run: resultFilterParams.run,
        source: sourceParam,
        date: resultFilterParams.date,
        exact: resultFilterParams.exact,
      }),
    },
    POINTS_PAGE,
    async (q, page) => {
      const { isl: _, osl: __, metrics: ___, ...f } = filterOf(q);
      return agenticPoints(store, { ...f, ...page });
    },
  );

  app.get(
    '/api/v1/agentic/:id',
    {
      schema: {
        summary: 'One agentic point: its headline numbers, its whole aggregate and its TTFT by context length',
        params: {
          type: 'object',
          properties: { id: intParam('point id (point_id of an agentic row)') },
          required: ['id'],
          additionalProperties: false,
        },
        querystring: querySchema({}),
      } as FastifySchema,
      ...read,
    },
    async (request) => {
      const { id } = request.params as { id: number };
      const found = await agenticPoint(store, id);
      if (!found) throw new HttpError(404, `no agentic point ${id} in the store`);
      return found;
    },
  );

  paged(
    '/api/v1/runs',
    {
      summary: 'Runs, newest first, with point and eval counts and success rate',
      querystring: querySchema({ source: { ...sourceParam, description: 'official, unofficial or all (default all)' } }),
    },
    RUNS_PAGE,
    async (q, page) => runs(store, { source: (q.source as ResultFilter['source']) ?? 'all', ...page }),
  );

  app.get(
    '/api/v1/runs/:id',
    {
      schema: {
        summary: 'One run: its metadata, run stats, changelog and the names of its engine logs',
        params: { type: 'object', properties: { id: stringParam('run id') }, required: ['id'], additionalProperties: false },
        querystring: querySchema({}),
      } as FastifySchema,
      ...read,
    },
    async (request) => {
      const found = await run(store, (request.params as { id: string }).id);
      if (!found) throw new HttpError(404, `no run ${(request.params as { id: string }).id} in the store`);
      return found;
    },
  );

  app.get(
    '/api/v1/runs/:id/log',
    {
      schema: {
        summary: 'One of a run’s engine logs, as text (its end, when it was larger than the store keeps)',
        params: { type: 'object', properties: { id: stringParam('run id') }, required: ['id'], additionalProperties: false },
        querystring: querySchema(
          {
            name: { type: 'string', minLength: 1, maxLength: 1000, description: 'the log’s name, as /api/v1/runs/:id lists it' },
          },
          ['name'],
        ),
      } as FastifySchema,
      ...read,
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { name } = request.query as { name: string };
      const text = await runLog(store, id, name);
      if (text === undefined) throw new HttpError(404, `no log ${name} for run ${id}`);
      return reply.type('text/plain; charset=utf-8').send(text);
    },
  );

  route(
    '/api/v1/compare',
    {
      summary:
        'Each point of a run against the latest official point of the same config and conc, with deltas (measured energy where both have valid power)',
      querystring: querySchema(
        {
          run: stringParam('the run to compare'),
          threshold: { type: 'number', minimum: 0, maximum: 1000, description: 'regression threshold, % (default 5)' },
        },
        ['run'],
      ),
    },
    async (q) => {
      const c = await compareRun(store, q.run as string, (q.threshold as number | undefined) ?? 5);
      if (!c) throw new HttpError(404, `no run ${q.run} in the store`);
      return c;
    },
  );

  // Ingest: a run directory as a .tar.gz body. The token is checked before a byte of the body is
  // read; the body then streams to a file under the upload root, with the size limit enforced as it arrives.
  const passBody = (_: FastifyRequest, body: Readable, done: (err: Error | null, body?: Readable) => void) => done(null, body);
  for (const type of ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-tar+gzip']) {
    app.addContentTypeParser(type, passBody);
  }
  const tooLarge = () =>
    new HttpError(413, `the upload is larger than the server takes (${maxUpload} bytes; frontier serve --max-upload-mb)`);
  app.post(
    '/api/v1/ingest',
    {
      schema: {
        summary: 'Ingest a run directory uploaded as a .tar.gz (needs a token); all or nothing',
        querystring: querySchema({
          official: { type: 'boolean', description: 'mark the run official (default false)' },
          run_id: stringParam('the run id (required for an InferenceX artifact set)'),
          attempt: intParam('the run attempt (default 1); a later attempt replaces an earlier one'),
          source_run: stringParam('reuse: the run whose results these are'),
          date: dateParam('the results’ date (default: the run’s)'),
          dry_run: { type: 'boolean', description: 'check and count, write nothing' },
        }),
      } as FastifySchema,
      onRequest: authenticated,
    },
    async (request, reply) => {
      const body = request.body as Readable | undefined;
      if (!body || typeof body.pipe !== 'function') {
        throw new HttpError(415, 'send the run directory as a .tar.gz body (Content-Type: application/gzip)');
      }
      if (Number(request.headers['content-length'] ?? 0) > maxUpload) throw tooLarge();
      const q = request.query as Query;
      const dir = uploadDir(uploadRoot);
      const files = join(dir, 'files');
      try {
        const archive = join(dir, 'upload.tar.gz');
        let size;
        try {
          size = await receiveUpload(body, archive, maxUpload);
        } catch (e) {
          if (e instanceof UploadTooLarge) throw tooLarge();
          throw new HttpError(400, `the upload did not arrive whole: ${(e as Error).message}`);
        }
        if (size === 0) throw new HttpError(415, 'send the run directory as a .tar.gz body (Content-Type: application/gzip)');
        mkdirSync(files);
        try {
          extractTarGz(readFileSync(archive), files, {
            maxBytes: options.maxUnpackedBytes ?? UNPACKED_UPLOAD_FACTOR * maxUpload,
            maxEntries: MAX_ARCHIVE_ENTRIES,
          });
        } catch (e) {
          if (e instanceof ArchiveError) throw new HttpError(400, e.message);
          throw new HttpError(400, `cannot unpack the archive: ${(e as Error).message}`);
        }
        const batch = readArtifacts(files, {
          official: q.official as boolean | undefined,
          runId: q.run_id as string | undefined,
          attempt: q.attempt as number | undefined,
          sourceRun: q.source_run as string | undefined,
          date: q.date as string | undefined,
          thresholdOf: options.thresholdOf,
        });
        const summary = await ingestBatch(store, batch, { dryRun: q.dry_run === true });
        return reply
          .status(summary.benchmarks.new + summary.agentic.new + summary.evals.new > 0 && !summary.dry_run ? 201 : 200)
          .send(summary);
      } catch (e) {
        if (e instanceof IngestError) {
          throw new HttpError(422, `the upload has ${e.problems.length} problem(s); nothing was written`, {
            problems: e.problems.map((p) => ({ ...p, file: p.file.startsWith(files) ? p.file.slice(files.length + 1) : p.file })),
          });
        }
        if (e instanceof IngestConflict) throw new HttpError(409, e.message);
        throw e;
      } finally {
        removeTree(dir);
      }
    },
  );

  app.get('/api/openapi.json', async () => openapi.document());
  if (options.webDir) serveDashboard(app, options.webDir);
  await app.ready();
  return app;
}
