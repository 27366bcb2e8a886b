/** What every route module is given, and the two shapes most reads take: one answer, or pages of rows. */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Store } from '../../store/index.js';
import type { AccessHook } from '../access.js';
import type { Gate } from '../gate.js';
import { pageOf, pageParams, sendPage } from '../paging.js';
import type { Page, PageSize } from '../paging.js';
import type { Query } from '../schemas.js';

export interface RouteContext {
  app: FastifyInstance;
  store: Store;
  /** The cap on heavy reads (health reports its load). */
  gate: Gate;
  /** Reads need a token too (`frontier serve --private`). */
  private: boolean;
  /** Answers 401 without a valid bearer token. */
  requireToken: AccessHook;
  /** The options of a heavy read's route: the token when private, then a slot of the gate. */
  heavyRead: { preHandler: AccessHook[] };
}

type RouteSchema = FastifySchema & Record<string, unknown>;

/** A heavy GET read answered with what `handler` returns. */
export function queryRoute(
  context: RouteContext,
  path: string,
  schema: RouteSchema,
  handler: (query: Query, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  context.app.get(path, { schema, ...context.heavyRead }, async (request, reply) =>
    handler(request.query as Query, request, reply),
  );
}

/** A heavy GET read whose answer, the rows of a list, comes in pages of `size`. */
export function pagedRoute(
  context: RouteContext,
  path: string,
  schema: RouteSchema & { querystring: { properties: Record<string, unknown> } },
  size: PageSize,
  rows: (query: Query, page: Page) => Promise<unknown[]>,
): void {
  queryRoute(
    context,
    path,
    { ...schema, querystring: { ...schema.querystring, properties: { ...schema.querystring.properties, ...pageParams(size) } } },
    async (query, request, reply) => {
      const page = pageOf(query, size);
      // One row more than the page says whether another page follows.
      return sendPage(request, reply, await rows(query, { limit: page.limit + 1, offset: page.offset }), page);
    },
  );
}
