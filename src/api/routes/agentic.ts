import type { FastifySchema } from 'fastify';
import { agenticPoint, agenticPoints } from '../../store/index.js';
import { HttpError } from '../http-error.js';
import { filterOf, intParam, querySchema, resultFilterParams, sourceParam } from '../schemas.js';
import { POINTS_PAGE } from './points.js';
import { pagedRoute } from './route.js';
import type { RouteContext } from './route.js';

/** GET /api/v1/agentic and /api/v1/agentic/:id: the points of coding-agent trace replays. */
export function agenticRoutes(context: RouteContext): void {
  const { app, store } = context;
  pagedRoute(
    context,
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
    async (query, page) => {
      const { isl: _isl, osl: _osl, metrics: _metrics, ...filter } = filterOf(query);
      return agenticPoints(store, { ...filter, ...page });
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
      ...context.heavyRead,
    },
    async (request) => {
      const { id } = request.params as { id: number };
      const found = await agenticPoint(store, id);
      if (!found) throw new HttpError(404, `no agentic point ${id} in the store`);
      return found;
    },
  );
}
