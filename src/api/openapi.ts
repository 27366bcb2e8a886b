/**
 * An OpenAPI 3.1 document built from the routes' own schemas as Fastify registers them, so the
 * document cannot drift from what the server validates.
 */
import type { FastifyInstance } from 'fastify';

declare const FRONTIER_VERSION: string;

interface ObjectSchema {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}

export function openApiCollector(app: FastifyInstance): { document(): Record<string, unknown> } {
  const paths: Record<string, Record<string, unknown>> = {};
  app.addHook('onRoute', (route) => {
    const schema = route.schema as (Record<string, unknown> & { querystring?: ObjectSchema; params?: ObjectSchema }) | undefined;
    if (!schema || !route.url.startsWith('/api/')) return;
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    const parameters = [
      ...Object.entries(schema.params?.properties ?? {}).map(([name, s]) => ({
        name,
        in: 'path',
        required: true,
        schema: s,
        description: s.description,
      })),
      ...Object.entries(schema.querystring?.properties ?? {}).map(([name, s]) => ({
        name,
        in: 'query',
        required: schema.querystring?.required?.includes(name) ?? false,
        schema: s,
        description: s.description,
      })),
    ];
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const write = method === 'POST';
      (paths[path] ??= {})[method.toLowerCase()] = {
        summary: schema.summary,
        parameters,
        ...(write
          ? {
              requestBody: { required: true, content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } },
              security: [{ bearer: [] }],
            }
          : {}),
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': {} },
            ...(schema.querystring?.properties?.cursor
              ? {
                  headers: {
                    'X-Next-Cursor': {
                      description: 'the cursor of the next page; absent on the last',
                      schema: { type: 'string' },
                    },
                    Link: { description: '<the next page’s URL>; rel="next"; absent on the last', schema: { type: 'string' } },
                  },
                }
              : {}),
          },
          '400': { description: 'a parameter is not valid (the message says which and why)' },
          ...(write
            ? {
                '401': { description: 'no valid bearer token (answered before the body is read)' },
                '413': { description: 'the upload is larger than the server takes' },
                '422': { description: 'the upload has problems; nothing was written' },
              }
            : path.endsWith('/health')
              ? {}
              : { '503': { description: 'busy: too many heavy queries running and waiting; retry after Retry-After seconds' } }),
        },
      };
    }
  });
  return {
    document: () => ({
      openapi: '3.1.0',
      info: { title: 'Frontier API', version: typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      paths,
    }),
  };
}
