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
        description: 'metric key → value (the metric catalog); with repeats, the mean',
      },
      n: {
        type: 'integer',
        minimum: 1,
        description: 'how many times the point was measured (frontier run --repeats); 1: one sample',
      },
      repeat_scope: {
        type: ['string', 'null'],
        enum: ['launch', 'point', null],
        description: 'launch: each repeat a fresh engine launch; point: the repeats shared one launch; null when n = 1',
      },
      stats: {
        type: 'object',
        additionalProperties: { $ref: '#/components/schemas/MetricStats' },
        description: 'metric key → its spread over the repeats; empty when n = 1',
      },
    },
  },
  MetricStats: {
    type: 'object',
    description:
      'a metric over a point’s repeats: mean, sample standard deviation, 95% interval of the mean (Student’s t) and each value',
    properties: {
      n: { type: 'integer' },
      mean: { type: 'number' },
      std: { type: ['number', 'null'] },
      ci95: { type: ['array', 'null'], items: { type: 'number' }, minItems: 2, maxItems: 2 },
      values: { type: 'array', items: { type: 'number' } },
    },
  },
  VariationRow: {
    type: 'object',
    description:
      'how much a metric varies from run to run in official history: for one config (scope config) or pooled over a hardware and framework (scope pooled)',
    properties: {
      config_id: { type: ['integer', 'null'], description: 'the config; null for a pooled estimate' },
      hardware: { type: 'string' },
      framework: { type: 'string' },
      metric: { type: 'string' },
      cv: { type: 'number', description: 'the standard deviation of ln(value) (≈ the relative standard deviation)' },
      samples: { type: 'integer', description: 'measurements behind the estimate' },
      groups: { type: 'integer', description: 'the points (config × isl × osl × conc) they were grouped by' },
      df: { type: 'integer', description: 'degrees of freedom: samples − groups' },
      scope: { type: 'string', enum: ['config', 'pooled'] },
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
  RunRow: {
    type: 'object',
    description:
      'a run: its identity, status, counts and conclusion (/api/v1/runs/{id} adds its run stats, launch attempts, logs and changelog)',
    properties: {
      run_id: { type: 'string' },
      attempt: { type: 'integer' },
      official: { type: 'boolean' },
      status: { type: 'string', description: 'completed, partial, failed, interrupted or running (as the run ended)' },
      date: { type: 'string', format: 'date' },
      conclusion: {
        type: ['string', 'null'],
        enum: ['success', 'failure', null],
        description:
          'its override’s conclusion, else its status’s (completed, partial: success; failed, interrupted: failure; running: null). Only a failure override takes its points out of latest points, baselines and trends',
      },
      conclusion_override: {
        type: ['object', 'null'],
        description: 'the conclusion set by hand (frontier runs override), null when none',
        properties: {
          conclusion: { type: 'string', enum: ['success', 'failure'] },
          reason: { type: 'string' },
          by: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  AuditEntry: {
    type: 'object',
    description:
      'a correction of the record: what was done to which run, by whom (the token’s name or --by), when, why, and the run as it was',
    properties: {
      id: { type: 'integer' },
      action: { type: 'string', enum: ['purge', 'unpurge', 'override', 'clear-override'] },
      run_id: { type: 'string' },
      attempt: { type: 'integer' },
      by: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      reason: { type: 'string' },
      run: { type: 'object', description: 'the run’s stored fields then (for unpurge: as it was purged)' },
      counts: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        description: 'its rows then: points, agentic_points, evals, run_stats, logs, attempts, changelog',
      },
      conclusion_from: { type: ['string', 'null'], enum: ['success', 'failure', null] },
      conclusion_to: { type: ['string', 'null'], enum: ['success', 'failure', null] },
    },
  },
  PowerSide: {
    type: ['object', 'null'],
    properties: { valid: POWER_FIELDS.power_valid!, source: POWER_FIELDS.power_source! },
  },
  Verdict: {
    type: 'string',
    enum: ['regression', 'improvement', 'no significant change', 'inconclusive'],
    description:
      'what a comparison concludes about a change: significant after Benjamini–Hochberg and at least the minimum effect, or not',
  },
  MetricDelta: {
    type: 'object',
    description: 'one metric of a run’s point against the official point',
    properties: {
      run: { type: ['number', 'null'], description: 'the run’s value (the mean of its repeats)' },
      baseline: { type: ['number', 'null'] },
      n_run: { type: 'integer', description: 'samples on the run’s side (0: none)' },
      n_baseline: { type: 'integer' },
      delta: { type: ['number', 'null'], description: 'run − baseline' },
      delta_pct: { type: ['number', 'null'], description: 'the change, % (of the geometric means)' },
      ci95_pct: {
        type: ['array', 'null'],
        items: { type: 'number' },
        minItems: 2,
        maxItems: 2,
        description: 'the change’s 95% confidence interval, %; null when it could not be tested',
      },
      test: { type: ['string', 'null'], enum: ['welch', 'moderated-t', null] },
      df: { type: ['number', 'null'] },
      p: { type: ['number', 'null'] },
      q: { type: ['number', 'null'], description: 'the Benjamini–Hochberg q-value across every metric of every point' },
      verdict: { $ref: '#/components/schemas/Verdict' },
      note: { type: 'string', description: 'why the verdict is inconclusive, and what would settle it' },
    },
  },
  Comparison: {
    type: 'object',
    properties: {
      run_id: { type: 'string' },
      method: {
        type: 'object',
        description: 'how the verdicts were reached',
        properties: {
          tests: { type: 'string' },
          fdr: { type: 'string', enum: ['benjamini-hochberg'] },
          alpha: { type: 'number', description: 'the false discovery rate' },
          min_effect_pct: { type: 'number', description: 'the smallest change called a regression or improvement, %' },
          resolution_pct: {
            type: 'number',
            description: 'a change whose interval reaches beyond ± this is inconclusive, not unchanged',
          },
        },
      },
      regressions: { type: 'integer' },
      unmatched: { type: 'integer', description: 'points with no official point to compare with' },
      verdicts: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        description: 'points per verdict (unmatched points are not counted)',
      },
      points: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            label: { type: 'string' },
            isl: { type: 'integer' },
            osl: { type: 'integer' },
            conc: { type: 'integer' },
            baseline_run_id: { type: ['string', 'null'] },
            baseline_date: { type: ['string', 'null'] },
            metrics: {
              type: 'object',
              additionalProperties: { $ref: '#/components/schemas/MetricDelta' },
              description:
                'metric → its change: throughput, interactivity, latencies, and the measured energy per token and per request (compared only when both points’ power is valid)',
            },
            power: {
              type: 'object',
              properties: {
                run: { $ref: '#/components/schemas/PowerSide' },
                baseline: { $ref: '#/components/schemas/PowerSide' },
              },
            },
            verdict: { $ref: '#/components/schemas/Verdict' },
          },
        },
      },
    },
  },
};

/** The answer of a route, where the document describes it. */
const RESPONSES: Record<string, Record<string, unknown>> = {
  '/api/v1/runs': { type: 'array', items: { $ref: '#/components/schemas/RunRow' } },
  '/api/v1/runs/{id}': { $ref: '#/components/schemas/RunRow' },
  '/api/v1/runs/{id}/purge': { $ref: '#/components/schemas/AuditEntry' },
  '/api/v1/runs/{id}/unpurge': { $ref: '#/components/schemas/AuditEntry' },
  '/api/v1/runs/{id}/override': { $ref: '#/components/schemas/AuditEntry' },
  '/api/v1/audit': { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } },
  '/api/v1/benchmarks': { type: 'array', items: { $ref: '#/components/schemas/PointRow' } },
  '/api/v1/history': { type: 'array', items: { $ref: '#/components/schemas/PointRow' } },
  '/api/v1/compare': { $ref: '#/components/schemas/Comparison' },
  '/api/v1/variation': { type: 'array', items: { $ref: '#/components/schemas/VariationRow' } },
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
      // A write with a JSON body (a correction of the record), or an upload (ingest).
      const json = write && schema.body !== undefined;
      (paths[path] ??= {})[method.toLowerCase()] = {
        summary: schema.summary,
        parameters,
        ...(write
          ? {
              requestBody: {
                required: true,
                content: json
                  ? { 'application/json': { schema: schema.body } }
                  : { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
              },
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
          ...(json
            ? {
                '401': { description: 'no valid bearer token' },
                '404': { description: 'no such run (the message says where to look)' },
                '409': { description: 'refused as the record stands (the message says why): nothing was changed' },
              }
            : write
              ? {
                  '401': { description: 'no valid bearer token (answered before the body is read)' },
                  '409': { description: 'the run conflicts with the stored one (an older attempt, a purged run id)' },
                  '413': { description: 'the upload is larger than the server takes' },
                  '422': { description: 'the upload has problems; nothing was written' },
                }
              : path.endsWith('/health')
                ? {}
                : {
                    '503': { description: 'busy: too many heavy queries running and waiting; retry after Retry-After seconds' },
                  }),
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
