import { compareRun } from '../../store/index.js';
import { HttpError } from '../http-error.js';
import { VERDICT_PARAMS, querySchema, stringParam, verdictSettingsFrom } from '../schemas.js';
import { queryRoute } from './route.js';
import type { RouteContext } from './route.js';

/** GET /api/v1/compare: a run against the official baseline. */
export function compareRoutes(context: RouteContext): void {
  queryRoute(
    context,
    '/api/v1/compare',
    {
      summary:
        'Each point of a run against the latest official point of the same config and conc: every change with its 95% interval, test, q-value and verdict (measured energy where both have valid power)',
      querystring: querySchema(
        {
          run: stringParam('the run to compare'),
          'min-effect': VERDICT_PARAMS.minEffect,
          alpha: VERDICT_PARAMS.alpha,
        },
        ['run'],
      ),
    },
    async (query) => {
      const settings = verdictSettingsFrom(query['min-effect'], query.alpha);
      const comparison = await compareRun(context.store, query.run as string, settings);
      if (!comparison) throw new HttpError(404, `no run ${query.run} in the store`);
      return comparison;
    },
  );
}
