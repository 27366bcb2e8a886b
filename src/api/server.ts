/**
 * The HTTP API over the store (Fastify): reads for everyone (or only token holders with
 * `private`), ingest for token holders. Every query string is checked against its route's schema
 * (unknown parameters are errors, not silently dropped); the OpenAPI document is generated from
 * those same schemas.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
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
  verifyToken,
} from '../store/index.js';
import type { IngestOptions, ResultFilter, Store } from '../store/index.js';
import { ArchiveError, extractTarGz } from './archive.js';
import { Gate } from './gate.js';
import { openApiCollector } from './openapi.js';
import { PredictedFrontierCache } from './predicted.js';
import type { PredictedFrontierQuery } from './predicted.js';
import { PageError, pageOf, pageParams, sendPage } from './paging.js';
import { SECURITY_HEADERS } from './security-headers.js';
import type { PageSize } from './paging.js';
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

// Schemas of the query parameters, shared by routes.
const str = (description: string) => ({ type: 'string', minLength: 1, maxLength: 200, description });
const int = (description: string) => ({ type: 'integer', minimum: 1, maximum: 10_000_000, description });
const date = (description: string) => ({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date', description });
const source = {
  type: 'string',
  enum: ['official', 'unofficial', 'all'],
  description: 'which runs count when no run is named (default official)',
};
const resultFilter = {
  model: str('model prefix (dsr1) or model path (deepseek-ai/DeepSeek-R1-0528)'),
  isl: int('input sequence length'),
  osl: int('output sequence length'),
  hardware: str('GPU (h200, b200, …)'),
  framework: str('engine (vllm, sglang, dynamo-trt, …)'),
  precision: str('fp8, fp4, bf16, …'),
  run: str('only this run’s rows'),
  source,
  date: date('as of this date (YYYY-MM-DD): the latest row on or before it'),
  exact: { type: 'boolean', description: 'with date: only rows of that date' },
  metrics: {
    type: 'string',
    pattern: '^[a-z0-9_.]+(,[a-z0-9_.]+)*$',
    maxLength: 2000,
    description: 'only these metrics in each row (comma-separated keys)',
  },
};
const query = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

type Query = Record<string, string | number | boolean | undefined>;

function filterOf(q: Query): ResultFilter {
  return {
    model: q.model as string | undefined,
    isl: q.isl as number | undefined,
    osl: q.osl as number | undefined,
    hardware: q.hardware as string | undefined,
    framework: q.framework as string | undefined,
    precision: q.precision as string | undefined,
    run: q.run as string | undefined,
    source: q.source as ResultFilter['source'],
    date: q.date as string | undefined,
    exact: q.exact as boolean | undefined,
    metrics: typeof q.metrics === 'string' ? q.metrics.split(',') : undefined,
  };
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** With Ajv's verbose option: the parameter's schema and its value. */
  parentSchema?: { type?: string; minimum?: number; maximum?: number };
  data?: unknown;
}

/**
 * Ajv's findings as one line that names each parameter and what it takes: `unknown parameter "sort"`,
 * `isl: expected an integer from 1 to 10000000, got "lots"`.
 */
function validationMessage(issues: ValidationIssue[], fallback: string): string {
  const parts = issues.map((v) => {
    if (v.keyword === 'additionalProperties') return `unknown parameter "${String(v.params.additionalProperty)}"`;
    if (v.keyword === 'required') return `missing parameter "${String(v.params.missingProperty)}"`;
    const name = v.instancePath.replace(/^\//, '') || 'value';
    const s = v.parentSchema;
    if (isNumeric(s)) return numberMessage(name, s, v.data);
    if (v.keyword === 'format' || (v.keyword === 'pattern' && s?.type === 'string' && name.includes('date')))
      return `${name}: expected a date that exists, YYYY-MM-DD, got ${JSON.stringify(String(v.data))}`;
    return `${name}: ${v.message ?? 'not valid'}${v.keyword === 'enum' ? ` (${(v.params.allowedValues as string[]).join(', ')})` : ''}`;
  });
  return parts.length > 0 ? parts.join('; ') : fallback;
}

type NumberSchema = { type: 'integer' | 'number'; minimum?: number; maximum?: number };
const isNumeric = (s: { type?: string } | undefined): s is NumberSchema => s?.type === 'integer' || s?.type === 'number';
const numberMessage = (name: string, s: NumberSchema, value: unknown): string =>
  `${name}: expected ${s.type === 'integer' ? 'an integer' : 'a number'} from ${s.minimum} to ${s.maximum}, got ${JSON.stringify(String(value))}`;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

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
  // Ajv coerces "1e999" to Infinity and then lets it through its range checks: numbers in the query
  // string are plain decimals, checked here before the schema is.
  app.addHook('preValidation', async (request) => {
    const properties = (
      request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: string }> } | undefined
    )?.properties;
    for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
      const s = properties?.[name];
      if (isNumeric(s) && (typeof value !== 'string' || !/^-?\d{1,12}(\.\d{1,12})?$/.test(value)))
        throw new HttpError(400, numberMessage(name, s, value));
    }
  });
  // On every answer, errors and 404s included: the dashboard's pages, its assets and the API.
  app.addHook('onSend', async (_request, reply) => {
    void reply.headers(SECURITY_HEADERS);
  });
  const swept = sweepStaleUploads(uploadRoot);
  if (swept.length > 0) app.log.info(`removed ${swept.length} upload dir(s) left by a stopped server: ${swept.join(', ')}`);

  const authenticated = async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m)
      throw new HttpError(
        401,
        'a bearer token is required: Authorization: Bearer <token> (create one with frontier token create NAME)',
      );
    const name = await verifyToken(store, m[1]!);
    if (!name) throw new HttpError(401, 'the token is not valid (unknown or revoked)');
  };
  // Heavy reads hold a slot of the gate from before their query until their answer is sent (or the client is gone).
  const heavy = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // The answer may end (the client gone) while the request waits for a slot: then the slot goes back at once.
    const slot: { release?: (() => void) | undefined; closed?: boolean } = {};
    reply.raw.once('close', () => {
      slot.closed = true;
      slot.release?.();
    });
    const release = (slot.release = await gate.enter());
    if (!release) {
      const { running, queued } = gate.load;
      throw new HttpError(
        503,
        `the server is busy (${running} heavy queries running, ${queued} waiting): retry after a second`,
        {},
        { 'retry-after': '1' },
      );
    }
    if (slot.closed) release();
    // Run the query in a later turn of the event loop: requests that arrived together are all
    // admitted (or turned away) first, and /health, which waits for no slot, is answered between
    // queries. SQLite's queries are synchronous: without this, every request already read ran its
    // query before the next was looked at (100 heavy requests kept /health waiting 14 s).
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
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
      schema: { summary: 'Liveness: the store answers', querystring: query({}) } as FastifySchema,
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
      querystring: query(
        {
          model: str('model: a simulator id (minimax-m3) or Hugging Face name'),
          hardware: str('GPU or runner label (b300, h200-dgxc)'),
          precision: str('bf16, fp8 or fp4'),
          isl: int('input tokens per request'),
          osl: int('output tokens per request'),
          engine: str('serving framework as InferenceX names it (vllm, sglang, trt…; default vllm)'),
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
      querystring: query({}),
    },
    POINTS_PAGE,
    async (_, page) => availability(store, page),
  );

  paged(
    '/api/v1/benchmarks',
    {
      summary:
        'Benchmark points: the latest of each config and conc (as of a date), or one run’s; each with its power verdict (measured energy only when valid)',
      querystring: query(resultFilter),
    },
    POINTS_PAGE,
    async (q, page) => benchmarks(store, { ...filterOf(q), ...page }),
  );

  route(
    '/api/v1/pareto',
    {
      summary: 'The Pareto frontier of each series (hardware × framework × precision × spec decoding × disagg, per sequence)',
      querystring: query({
        ...resultFilter,
        x: { ...str('x metric (default median_intvty)'), pattern: '^[a-z0-9_.]+$' },
        y: { ...str('y metric (default tput_per_gpu)'), pattern: '^[a-z0-9_.]+$' },
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
      querystring: query({
        config: int('config id (config_id of a benchmark row)'),
        model: resultFilter.model,
        isl: resultFilter.isl,
        osl: resultFilter.osl,
        hardware: resultFilter.hardware,
        framework: resultFilter.framework,
        precision: resultFilter.precision,
        conc: int('concurrency'),
        source,
        metrics: resultFilter.metrics,
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
      querystring: query({ ...resultFilter, task: str('eval task (gsm8k, gpqa_diamond_cot_n_shot, aime…)') }),
    },
    POINTS_PAGE,
    async (q, page) => evaluations(store, { ...filterOf(q), ...page, task: q.task as string | undefined }),
  );

  paged(
    '/api/v1/agentic',
    {
      summary:
        'Agentic points (coding-agent trace replay): the latest of each config, KV offloading and conc (as of a date), or one run’s',
      querystring: query({
        model: resultFilter.model,
        hardware: resultFilter.hardware,
        framework: resultFilter.framework,
        precision: resultFilter.precision,
        run: resultFilter.run,
        source,
        date: resultFilter.date,
        exact: resultFilter.exact,
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
          properties: { id: int('point id (point_id of an agentic row)') },
          required: ['id'],
          additionalProperties: false,
        },
        querystring: query({}),
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
      querystring: query({ source: { ...source, description: 'official, unofficial or all (default all)' } }),
    },
    RUNS_PAGE,
    async (q, page) => runs(store, { source: (q.source as ResultFilter['source']) ?? 'all', ...page }),
  );

  app.get(
    '/api/v1/runs/:id',
    {
      schema: {
        summary: 'One run: its metadata, run stats, changelog and the names of its engine logs',
        params: { type: 'object', properties: { id: str('run id') }, required: ['id'], additionalProperties: false },
        querystring: query({}),
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
        params: { type: 'object', properties: { id: str('run id') }, required: ['id'], additionalProperties: false },
        querystring: query(
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
      querystring: query(
        {
          run: str('the run to compare'),
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
        querystring: query({
          official: { type: 'boolean', description: 'mark the run official (default false)' },
          run_id: str('the run id (required for an InferenceX artifact set)'),
          attempt: int('the run attempt (default 1); a later attempt replaces an earlier one'),
          source_run: str('reuse: the run whose results these are'),
          date: date('the results’ date (default: the run’s)'),
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

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/**
 * The dashboard's files; any other path outside /api is a page of the single-page app, so it gets
 * index.html (the app reads the path). Hashed assets are cached for good, the page never.
 */
function serveDashboard(app: FastifyInstance, webDir: string): void {
  const root = resolve(webDir);
  const index = join(root, 'index.html');
  if (!existsSync(index)) throw new Error(`no dashboard in ${root} (npm run build builds it)`);
  app.get('/*', async (request, reply) => {
    const path = decodeURIComponent(request.url.split('?')[0]!);
    if (path.startsWith('/api/')) throw new HttpError(404, `no such endpoint: GET ${path}`);
    const file = resolve(root, `.${path}`);
    const inside = file.startsWith(root + sep);
    if (inside && existsSync(file) && statSync(file).isFile()) {
      void reply.type(MIME[extname(file)] ?? 'application/octet-stream');
      void reply.header('cache-control', path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      return reply.send(readFileSync(file));
    }
    return reply.type(MIME['.html']!).header('cache-control', 'no-cache').send(readFileSync(index));
  });
}
