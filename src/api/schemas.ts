/** Schemas of the query parameters, shared by routes, and the result filter they spell. */
import { DEFAULT_VERDICT_SETTINGS } from '../store/index.js';
import type { ResultFilter, Source, VerdictSettings } from '../store/index.js';

export const stringParam = (description: string) => ({ type: 'string', minLength: 1, maxLength: 200, description });
export const intParam = (description: string) => ({ type: 'integer', minimum: 1, maximum: 10_000_000, description });
export const dateParam = (description: string) => ({
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  format: 'date',
  description,
});
export const sourceParam = {
  type: 'string',
  enum: ['official', 'unofficial', 'staged', 'all'],
  description:
    'which runs count when no run is named (default official); staged: runs staged from pull requests (/stage-results); all: official and unofficial (staged runs only when asked for)',
};
export const resultFilterParams = {
  model: stringParam('model prefix (dsr1) or model path (deepseek-ai/DeepSeek-R1-0528)'),
  isl: intParam('input sequence length'),
  osl: intParam('output sequence length'),
  hardware: stringParam('GPU (h200, b200, …)'),
  framework: stringParam('engine (vllm, sglang, dynamo-trt, …)'),
  precision: stringParam('fp8, fp4, bf16, …'),
  run: stringParam('only this run’s rows'),
  source: sourceParam,
  date: dateParam('as of this date (YYYY-MM-DD): the latest row on or before it'),
  exact: { type: 'boolean', description: 'with date: only rows of that date' },
  metrics: {
    type: 'string',
    pattern: '^[a-z0-9_.]+(,[a-z0-9_.]+)*$',
    maxLength: 2000,
    description: 'only these metrics in each row (comma-separated keys)',
  },
};

/** A query string's schema: these parameters and no others. */
export const querySchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** A query string as its schema has checked and coerced it. */
export type Query = Record<string, string | number | boolean | undefined>;

export function filterOf(query: Query): ResultFilter {
  return {
    model: query.model as string | undefined,
    isl: query.isl as number | undefined,
    osl: query.osl as number | undefined,
    hardware: query.hardware as string | undefined,
    framework: query.framework as string | undefined,
    precision: query.precision as string | undefined,
    run: query.run as string | undefined,
    source: query.source as Source | undefined,
    date: query.date as string | undefined,
    exact: query.exact as boolean | undefined,
    metrics: typeof query.metrics === 'string' ? query.metrics.split(',') : undefined,
  };
}

/** What a comparison may be asked to use: the smallest change called a change, and the false discovery rate (the API's min-effect and alpha, the MCP server's min_effect and alpha). */
export const VERDICT_PARAMS = {
  minEffect: {
    type: 'number' as const,
    minimum: 0,
    maximum: 100,
    description: `the smallest change called a regression or improvement, % (default ${DEFAULT_VERDICT_SETTINGS.minEffectPct})`,
  },
  alpha: {
    type: 'number' as const,
    minimum: 0.0001,
    maximum: 0.5,
    description: `the false discovery rate across every metric of every point (default ${DEFAULT_VERDICT_SETTINGS.alpha})`,
  },
};

/** The verdict settings asked for, the defaults where not. */
export const verdictSettingsFrom = (minEffect: unknown, alpha: unknown): VerdictSettings => ({
  minEffectPct: (minEffect as number | undefined) ?? DEFAULT_VERDICT_SETTINGS.minEffectPct,
  alpha: (alpha as number | undefined) ?? DEFAULT_VERDICT_SETTINGS.alpha,
});
