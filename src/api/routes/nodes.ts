import { DEFAULT_MIN_FAILURES, failingNodes } from '../../store/index.js';
import type { PageSize } from '../paging.js';
import { intParam, querySchema, stringParam } from '../schemas.js';
import { pagedRoute } from './route.js';
import type { RouteContext } from './route.js';

/** Rows a page of nodes holds by default and at most. */
export const NODES_PAGE: PageSize = { default: 100, max: 1000 };

/** GET /api/v1/nodes: the nodes whose launches keep failing for infrastructure reasons. */
export function nodeRoutes(context: RouteContext): void {
  pagedRoute(
    context,
    '/api/v1/nodes',
    {
      summary:
        'Nodes whose launches failed repeatedly for infrastructure reasons (engine never healthy, node failure): failures, attempts and the latest failure, the most failures first',
      querystring: querySchema({
        cluster: stringParam('only this cluster’s nodes (the cluster profile’s name)'),
        min_failures: intParam(`only nodes with at least this many failures (default ${DEFAULT_MIN_FAILURES})`),
      }),
    },
    NODES_PAGE,
    async (query, page) =>
      failingNodes(context.store, {
        cluster: query.cluster as string | undefined,
        minFailures: query.min_failures as number | undefined,
        ...page,
      }),
  );
}
