import { compareRun } from '../../store/index.js';
import { HttpError } from '../http-error.js';
import { querySchema, stringParam } from '../schemas.js';
import { queryRoute } from './route.js';
import type { RouteContext } from './route.js';

/** GET /api/v1/compare: a run against the official baseline. */
export function compareRoutes(context: RouteContext): void {
  queryRoute(
    context,
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
    async (query) => {
      const comparison = await compareRun(context.store, query.run as string, (query.threshold as number | undefined) ?? 5);
      if (!comparison) throw new HttpError(404, `no run ${query.run} in the store`);
      return comparison;
    },
  );
}
