import { DEFAULT_VERDICT_SETTINGS, compareRun } from '../../store/index.js';
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
        'Each point of a run against the latest official point of the same config and conc: every change with its 95% interval, test, q-value and verdict (measured energy where both have valid power)',
      querystring: querySchema(
        {
          run: stringParam('the run to compare'),
          'min-effect': {
            type: 'number',
            minimum: 0,
            maximum: 100,
            description: `the smallest change called a regression or improvement, % (default ${DEFAULT_VERDICT_SETTINGS.minEffectPct})`,
          },
          alpha: {
            type: 'number',
            minimum: 0.0001,
            maximum: 0.5,
            description: `the false discovery rate across every metric of every point (default ${DEFAULT_VERDICT_SETTINGS.alpha})`,
          },
        },
        ['run'],
      ),
    },
    async (query) => {
      const comparison = await compareRun(context.store, query.run as string, {
        minEffectPct: (query['min-effect'] as number | undefined) ?? DEFAULT_VERDICT_SETTINGS.minEffectPct,
        alpha: (query.alpha as number | undefined) ?? DEFAULT_VERDICT_SETTINGS.alpha,
      });
      if (!comparison) throw new HttpError(404, `no run ${query.run} in the store`);
      return comparison;
    },
  );
}
