/**
 * Corrections of the record over HTTP (docs/api.md): POST /api/v1/runs/:id/purge, /unpurge and
 * /override, each with a token (who corrected it is the token's name) and a JSON body with the
 * reason; GET /api/v1/audit reads the audit like any other read (public unless the server is private).
 */
import type { FastifyRequest, FastifySchema } from 'fastify';
import { CorrectionRefused, audit, overrideConclusion, purgeRun, unpurgeRun } from '../../store/index.js';
import type { Correction } from '../../store/index.js';
import type { AuditEntry, RunConclusion } from '../../contract/index.js';
import { tokenHolder } from '../access.js';
import { HttpError } from '../http-error.js';
import type { PageSize } from '../paging.js';
import { querySchema, stringParam } from '../schemas.js';
import { pagedRoute } from './route.js';
import type { RouteContext } from './route.js';

/** Entries a page of the audit holds by default and at most. */
export const AUDIT_PAGE: PageSize = { default: 100, max: 1000 };

const reason = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  pattern: '\\S',
  description: 'why (required, kept in the audit)',
};

const params = {
  type: 'object',
  properties: { id: stringParam('run id') },
  required: ['id'],
  additionalProperties: false,
};

const body = (properties: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { reason, ...properties },
  required: ['reason'],
  additionalProperties: false,
});

type Act = (runId: string, request: FastifyRequest, correction: Correction) => Promise<AuditEntry>;

export function correctionRoutes(context: RouteContext): void {
  const { app, store, requireToken } = context;
  const post = (action: string, summary: string, schemaBody: Record<string, unknown>, act: Act) =>
    app.post(
      `/api/v1/runs/:id/${action}`,
      { schema: { summary, params, body: schemaBody } as FastifySchema, onRequest: requireToken },
      async (request) => {
        const { id } = request.params as { id: string };
        const { reason: why } = request.body as { reason: string };
        try {
          return await act(id, request, { by: tokenHolder(request), reason: why });
        } catch (error) {
          if (error instanceof CorrectionRefused)
            throw new HttpError(error.kind === 'unknown' ? 404 : 409, error.message + (error.hint ? ` (${error.hint})` : ''));
          throw error;
        }
      },
    );

  post(
    'purge',
    'Purge a run (needs a token): deleted from every table and view, its run id refused by ingest until un-purged; audited',
    body(),
    (id, _request, c) => purgeRun(store, id, c),
  );
  post('unpurge', 'Let a purged run id be ingested again (needs a token); audited', body(), (id, _request, c) =>
    unpurgeRun(store, id, c),
  );
  post(
    'override',
    'Override a run’s conclusion, or clear the override (needs a token): failure takes its points out of latest points, baselines and trends; audited',
    body({
      conclusion: { type: 'string', enum: ['success', 'failure'], description: 'the run’s conclusion (or clear: true)' },
      clear: { type: 'boolean', description: 'remove the override: the run’s status decides again' },
    }),
    (id, request, c) => {
      const { conclusion, clear } = request.body as { conclusion?: RunConclusion; clear?: boolean };
      if ((conclusion === undefined) === (clear !== true))
        throw new HttpError(400, 'give conclusion ("success" or "failure") or clear: true, not both');
      return overrideConclusion(store, id, conclusion ?? null, c);
    },
  );

  pagedRoute(
    context,
    '/api/v1/audit',
    {
      summary:
        'Every correction of the record (purge, unpurge, override, clear-override), newest first: who, when, why, and the run as it was',
      querystring: querySchema({ run: stringParam('only this run id’s corrections') }),
    },
    AUDIT_PAGE,
    async (query, page) => audit(store, { run: query.run as string | undefined, ...page }),
  );
}
