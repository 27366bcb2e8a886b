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

/** The power fields of a benchmark point (issue 21); see docs/power.md. */
const POWER_FIELDS: Record<string, Record<string, unknown>> = {
  power_valid: {
    type: ['boolean', 'null'],
    description:
      'the power step’s verdict on the point’s measured energy: true only with power_valid 1 and power_metric_schema_version 2 in the aggregate and a sidecar that agrees; null: the aggregate has no verdict. The measured energy keys (avg_power_w, joules_per_*…) are among metrics only when true',
  },
  power_schema_version: { type: ['integer', 'null'], description: 'the aggregate’s power_metric_schema_version' },
  power_reasons: {
    type: 'array',
    items: { type: 'string' },
    description: 'why the power is not valid: the power_validation sidecar’s reason codes, then the store’s own',
  },
  power_source: {
    type: ['string', 'null'],
    enum: ['measured', 'modelled', null],
    description: 'measured: GPU telemetry; modelled: Frontier’s simulated engine; null without a verdict',
  },
};

/** The components every benchmark point and comparison answer refers to. */
const SCHEMAS: Record<string, Record<string, unknown>> = {
  PointRow: {
    type: 'object',
    description: 'a benchmark point: its config’s fields, its run, isl/osl/conc, runner, its power verdict and its metrics',
    properties: {
      run_id: { type: 'string' },
      date: { type: 'string', format: 'date' },
      isl: { type: 'integer' },
      osl: { type: 'integer' },
      conc: { type: 'integer' },
      ...POWER_FIELDS,
      metrics: {
        type: 'object',
        additionalProperties: { type: 'number' },
        description: 'metric key → value (the metric catalog)',
      },
    },
  },
  NodeRow: {
    type: 'object',
    description: 'a node whose launch attempts failed for infrastructure reasons, on its cluster',
    properties: {
      cluster: { type: 'string' },
      node: { type: 'string' },
      failures: { type: 'integer', description: 'attempts on it that failed for infrastructure reasons' },
      attempts: { type: 'integer', description: 'every attempt that ran on it' },
      last_failure_reason: { type: 'string' },
      last_failure_at: { type: 'string', format: 'date-time' },
      last_failure_run: { type: 'string' },
      last_failure_launch: { type: 'string' },
      last_failure_job: { type: 'string', description: 'its Slurm job, "" if none' },
    },
  },
  PowerSide: {
    type: ['object', 'null'],
    properties: { valid: POWER_FIELDS.power_valid!, source: POWER_FIELDS.power_source! },
  },
  Comparison: {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      threshold_pct: { type: 'number' },
      regressions: { type: 'integer' },
      unmatched: { type: 'integer' },
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            label: { type: 'string' },
            metrics: {
              type: 'object',
              description:
                'metric → {run, baseline, delta, delta_pct, regression}: throughput, interactivity, latencies, and the measured energy per token and per request (compared only when both points’ power is valid)',
            },
            power: {
              type: 'object',
              properties: {
                run: { $ref: '#/components/schemas/PowerSide' },
                baseline: { $ref: '#/components/schemas/PowerSide' },
              },
            },
            regression: { type: 'boolean' },
          },
        },
      },
    },
  },
};

/** The answer of a route, where the document describes it. */
const RESPONSES: Record<string, Record<string, unknown>> = {
  '/api/v1/benchmarks': { type: 'array', items: { $ref: '#/components/schemas/PointRow' } },
  '/api/v1/history': { type: 'array', items: { $ref: '#/components/schemas/PointRow' } },
  '/api/v1/compare': { $ref: '#/components/schemas/Comparison' },
  '/api/v1/nodes': { type: 'array', items: { $ref: '#/components/schemas/NodeRow' } },
};

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
            content: { 'application/json': RESPONSES[path] ? { schema: RESPONSES[path] } : {} },
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
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: SCHEMAS },
      paths,
    }),
  };
}
