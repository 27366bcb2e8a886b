import type { FastifySchema } from 'fastify';
import { querySchema } from '../schemas.js';
import type { RouteContext } from './route.js';

/** GET /api/v1/health. Liveness stays outside the gate: it answers while heavy queries run or wait. */
export function healthRoutes({ app, store, gate, private: isPrivate, requireToken }: RouteContext): void {
  app.get(
    '/api/v1/health',
    {
      schema: { summary: 'Liveness: the store answers', querystring: querySchema({}) } as FastifySchema,
      ...(isPrivate ? { preHandler: requireToken } : {}),
    },
    async () => {
      await store.db.selectFrom('runs').select('id').limit(1).execute();
      return { ok: true, dialect: store.dialect, queries: gate.load };
    },
  );
}
