import type { FastifySchema } from 'fastify';
import { run, runLog, runs } from '../../store/index.js';
import type { Source } from '../../store/index.js';
import { HttpError } from '../http-error.js';
import type { PageSize } from '../paging.js';
import { intParam, querySchema, sourceParam, stringParam } from '../schemas.js';
import { pagedRoute } from './route.js';
import type { RouteContext } from './route.js';

/** Rows a page of runs holds by default and at most. */
export const RUNS_PAGE: PageSize = { default: 100, max: 1000 };

const runIdParams = {
  type: 'object',
  properties: { id: stringParam('run id') },
  required: ['id'],
  additionalProperties: false,
};

/** GET /api/v1/runs, /api/v1/runs/:id and /api/v1/runs/:id/log. */
export function runRoutes(context: RouteContext): void {
  const { app, store, heavyRead } = context;
  pagedRoute(
    context,
    '/api/v1/runs',
    {
      summary:
        'Runs, newest first, with point and eval counts and success rate; staged runs (staged_pr, staged_by, staged_at) only with source=staged or pr',
      querystring: querySchema({
        source: {
          ...sourceParam,
          description:
            'official, unofficial, staged (runs staged from pull requests by /stage-results) or all (default: official and unofficial)',
        },
        pr: intParam('only the runs staged from this pull request'),
      }),
    },
    RUNS_PAGE,
    async (query, page) =>
      runs(store, { source: (query.source as Source | undefined) ?? 'all', pr: query.pr as number | undefined, ...page }),
  );

  app.get(
    '/api/v1/runs/:id',
    {
      schema: {
        summary:
          'One run: its metadata, run stats, every launch attempt (nodes, outcome, reason), changelog and the names of its engine logs',
        params: runIdParams,
        querystring: querySchema({}),
      } as FastifySchema,
      ...heavyRead,
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const found = await run(store, id);
      if (!found) throw new HttpError(404, `no run ${id} in the store`);
      return found;
    },
  );

  app.get(
    '/api/v1/runs/:id/log',
    {
      schema: {
        summary: 'One of a run’s engine logs, as text (its end, when it was larger than the store keeps)',
        params: runIdParams,
        querystring: querySchema(
          {
            name: { type: 'string', minLength: 1, maxLength: 1000, description: 'the log’s name, as /api/v1/runs/:id lists it' },
          },
          ['name'],
        ),
      } as FastifySchema,
      ...heavyRead,
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { name } = request.query as { name: string };
      const text = await runLog(store, id, name);
      if (text === undefined) throw new HttpError(404, `no log ${name} for run ${id}`);
      return reply.type('text/plain; charset=utf-8').send(text);
    },
  );
}
