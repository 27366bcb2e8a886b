/** The reads of benchmark and eval points: what the results cover, the points, their Pareto frontiers and their history. */
import { configLabel, goalOf, seriesFrontiers } from '../../contract/index.js';
import type { ParetoAnswer } from '../../contract/index.js';
import { availability, benchmarks, evaluations, history } from '../../store/index.js';
import type { Store } from '../../store/index.js';
import { HttpError } from '../http-error.js';
import type { PageSize } from '../paging.js';
import { filterOf, intParam, querySchema, resultFilterParams, sourceParam, stringParam } from '../schemas.js';
import type { Query } from '../schemas.js';
import { pagedRoute, queryRoute } from './route.js';
import type { RouteContext } from './route.js';

/** Rows a page of points (benchmarks, history, evaluations, availability) holds by default and at most (~1 KB each with every metric). */
export const POINTS_PAGE: PageSize = { default: 1000, max: 10_000 };

/** GET /api/v1/availability, /benchmarks, /pareto, /history and /evaluations. */
export function pointRoutes(context: RouteContext): void {
  const { store } = context;
  pagedRoute(
    context,
    '/api/v1/availability',
    {
      summary: 'What the official results cover: models, sequences, hardware, engines, precisions and dates',
      querystring: querySchema({}),
    },
    POINTS_PAGE,
    async (_query, page) => availability(store, page),
  );

  pagedRoute(
    context,
    '/api/v1/benchmarks',
    {
      summary:
        'Benchmark points: the latest of each config and conc (as of a date), or one run’s; each with its power verdict (measured energy only when valid)',
      querystring: querySchema(resultFilterParams),
    },
    POINTS_PAGE,
    async (query, page) => benchmarks(store, { ...filterOf(query), ...page }),
  );

  queryRoute(
    context,
    '/api/v1/pareto',
    {
      summary: 'The Pareto frontier of each series (hardware × framework × precision × spec decoding × disagg, per sequence)',
      querystring: querySchema({
        ...resultFilterParams,
        x: { ...stringParam('x metric (default median_intvty)'), pattern: '^[a-z0-9_.]+$' },
        y: { ...stringParam('y metric (default tput_per_gpu)'), pattern: '^[a-z0-9_.]+$' },
      }),
    },
    async (query) => paretoAnswer(store, query),
  );

  pagedRoute(
    context,
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
    async (query, page) => {
      if (query.config === undefined && query.model === undefined) throw new HttpError(400, 'missing parameter: config or model');
      return history(store, {
        ...filterOf(query),
        ...page,
        config: query.config as number | undefined,
        conc: query.conc as number | undefined,
      });
    },
  );

  pagedRoute(
    context,
    '/api/v1/evaluations',
    {
      summary: 'Eval results (every task): the latest of each config, task and conc, or one run’s',
      querystring: querySchema({ ...resultFilterParams, task: stringParam('eval task (gsm8k, gpqa_diamond_cot_n_shot, aime…)') }),
    },
    POINTS_PAGE,
    async (query, page) => evaluations(store, { ...filterOf(query), ...page, task: query.task as string | undefined }),
  );
}

/** Each series' points on the x and y metrics asked for (median interactivity and throughput per GPU by default), with its frontier. */
async function paretoAnswer(store: Store, query: Query): Promise<ParetoAnswer> {
  const x = (query.x as string | undefined) ?? 'median_intvty';
  const y = (query.y as string | undefined) ?? 'tput_per_gpu';
  let goals;
  try {
    goals = { x: goalOf(x), y: goalOf(y) };
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
  const rows = await benchmarks(store, filterOf(query));
  return {
    x,
    y,
    goals,
    series: seriesFrontiers(rows, x, y, goals).map(({ key, identity, points, xs, ys, frontier }) => {
      return {
        key,
        ...identity,
        points: points.map((point, i) => ({
          config_id: point.config_id,
          label: configLabel(point),
          conc: point.conc,
          run_id: point.run_id,
          x: xs[i] ?? null,
          y: ys[i] ?? null,
        })),
        frontier,
      };
    }),
  };
}
