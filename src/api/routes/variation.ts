/** GET /api/v1/variation: how much each metric varies from run to run, from official history. */
import { MEASURED_ENERGY_METRICS } from '../../contract/index.js';
import { COMPARED_METRICS, MIN_CONFIG_DF, variation } from '../../store/index.js';
import { querySchema, resultFilterParams } from '../schemas.js';
import { queryRoute } from './route.js';
import type { RouteContext } from './route.js';

/** The metrics estimated when the query names none: the ones a comparison judges. */
export const VARIATION_METRICS: readonly string[] = [...COMPARED_METRICS, ...MEASURED_ENERGY_METRICS];

export function variationRoutes(context: RouteContext): void {
  queryRoute(
    context,
    '/api/v1/variation',
    {
      summary:
        'Run-to-run variation from official history: each metric’s cv (sd of ln value) per hardware × framework (pooled) and per config ' +
        `with at least ${MIN_CONFIG_DF} degrees of freedom of its own, with the samples, groups and degrees of freedom it rests on`,
      querystring: querySchema({
        hardware: resultFilterParams.hardware,
        framework: resultFilterParams.framework,
        model: resultFilterParams.model,
        metrics: {
          ...resultFilterParams.metrics,
          description: `the metrics to estimate (comma-separated keys; default ${VARIATION_METRICS.join(', ')})`,
        },
      }),
    },
    async (query) =>
      variation(context.store, {
        hardware: query.hardware as string | undefined,
        framework: query.framework as string | undefined,
        model: query.model as string | undefined,
        metrics: typeof query.metrics === 'string' ? query.metrics.split(',') : VARIATION_METRICS,
      }),
  );
}
