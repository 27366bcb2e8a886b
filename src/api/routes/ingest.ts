/**
 * POST /api/v1/ingest: a run directory as a .tar.gz body. The token is checked before a byte of the
 * body is read; the body then streams to a file under the upload root, with the size limit enforced
 * as it arrives, and is unpacked, checked and written all or nothing.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { IngestConflict, IngestError, ingestBatch, readArtifacts } from '../../store/index.js';
import type { IngestOptions, IngestSummary, Staging, Store } from '../../store/index.js';
import { ArchiveError, extractTarGz } from '../archive.js';
import { HttpError } from '../http-error.js';
import { dateParam, intParam, querySchema, stringParam } from '../schemas.js';
import type { Query } from '../schemas.js';
import { MAX_ARCHIVE_ENTRIES, UploadTooLarge, receiveUpload, removeTree, uploadDir } from '../uploads.js';
import type { RouteContext } from './route.js';

export interface UploadSettings {
  /** Where uploads wait while checked. */
  uploadRoot: string;
  /** Largest upload (the .tar.gz), bytes. */
  maxUploadBytes: number;
  /** Largest unpacked upload, bytes. */
  maxUnpackedBytes: number;
  /** Per-eval thresholds for ingests (records pass/fail). */
  thresholdOf: IngestOptions['thresholdOf'];
}

const GZIP_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-tar+gzip'];
const NOT_GZIP = 'send the run directory as a .tar.gz body (Content-Type: application/gzip)';

export function ingestRoutes({ app, store, requireToken }: RouteContext, settings: UploadSettings): void {
  // The body is left a stream for the handler to read, after the token is checked.
  const passBody = (_: FastifyRequest, body: Readable, done: (err: Error | null, body?: Readable) => void) => done(null, body);
  for (const type of GZIP_TYPES) app.addContentTypeParser(type, passBody);
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
          stage_pr: intParam(
            'stage the run for this pull request (/stage-results): kept apart from official and unofficial runs; needs staged_by',
          ),
          staged_by: stringParam('with stage_pr: who staged it (a GitHub login)'),
        }),
      } as FastifySchema,
      onRequest: requireToken,
    },
    async (request, reply) => {
      const body = request.body as Readable | undefined;
      if (!body || typeof body.pipe !== 'function') throw new HttpError(415, NOT_GZIP);
      if (Number(request.headers['content-length'] ?? 0) > settings.maxUploadBytes) throw tooLarge(settings);
      stagingOf(request.query as Query);
      const summary = await ingestUpload(store, body, request.query as Query, settings);
      return reply
        .status(summary.benchmarks.new + summary.agentic.new + summary.evals.new > 0 && !summary.dry_run ? 201 : 200)
        .send(summary);
    },
  );
}

/** The staging the query asks for, checked before the body is read. */
function stagingOf(query: Query): Staging | undefined {
  const pr = query.stage_pr as number | undefined;
  const by = query.staged_by as string | undefined;
  if (pr === undefined && by === undefined) return undefined;
  if (pr === undefined || by === undefined)
    throw new HttpError(400, 'stage_pr and staged_by go together: the pull request and who staged it');
  if (query.official === true) throw new HttpError(400, 'a staged run is never official: drop official=true or stage_pr');
  return { pr, by };
}

const tooLarge = (settings: UploadSettings) =>
  new HttpError(
    413,
    `the upload is larger than the server takes (${settings.maxUploadBytes} bytes; frontier serve --max-upload-mb)`,
  );

/** Receive, unpack and ingest one upload in a directory of its own, removed after. */
async function ingestUpload(store: Store, body: Readable, query: Query, settings: UploadSettings): Promise<IngestSummary> {
  const dir = uploadDir(settings.uploadRoot);
  const files = join(dir, 'files');
  try {
    const archive = join(dir, 'upload.tar.gz');
    let size;
    try {
      size = await receiveUpload(body, archive, settings.maxUploadBytes);
    } catch (error) {
      if (error instanceof UploadTooLarge) throw tooLarge(settings);
      throw new HttpError(400, `the upload did not arrive whole: ${(error as Error).message}`);
    }
    if (size === 0) throw new HttpError(415, NOT_GZIP);
    mkdirSync(files);
    try {
      extractTarGz(readFileSync(archive), files, { maxBytes: settings.maxUnpackedBytes, maxEntries: MAX_ARCHIVE_ENTRIES });
    } catch (error) {
      if (error instanceof ArchiveError) throw new HttpError(400, error.message);
      throw new HttpError(400, `cannot unpack the archive: ${(error as Error).message}`);
    }
    const batch = readArtifacts(files, {
      official: query.official as boolean | undefined,
      stage: stagingOf(query),
      runId: query.run_id as string | undefined,
      attempt: query.attempt as number | undefined,
      sourceRun: query.source_run as string | undefined,
      date: query.date as string | undefined,
      thresholdOf: settings.thresholdOf,
    });
    return await ingestBatch(store, batch, { dryRun: query.dry_run === true });
  } catch (error) {
    if (error instanceof IngestError) {
      throw new HttpError(422, `the upload has ${error.problems.length} problem(s); nothing was written`, {
        problems: error.problems.map((problem) => ({
          ...problem,
          file: problem.file.startsWith(files) ? problem.file.slice(files.length + 1) : problem.file,
        })),
      });
    }
    if (error instanceof IngestConflict) throw new HttpError(409, error.message);
    throw error;
  } finally {
    removeTree(dir);
  }
}
