/** What the API answers when a query string does not fit its route's schema. */
import type { FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';

export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** With Ajv's verbose option: the parameter's schema and its value. */
  parentSchema?: { type?: string; minimum?: number; maximum?: number };
  data?: unknown;
}

/**
 * Ajv's findings as one line that names each parameter and what it takes: `unknown parameter "sort"`,
 * `isl: expected an integer from 1 to 10000000, got "lots"`.
 */
export function validationMessage(issues: ValidationIssue[], fallback: string): string {
  const parts = issues.map((issue) => {
    if (issue.keyword === 'additionalProperties') return `unknown parameter "${String(issue.params.additionalProperty)}"`;
    if (issue.keyword === 'required') return `missing parameter "${String(issue.params.missingProperty)}"`;
    const name = issue.instancePath.replace(/^\//, '') || 'value';
    const schema = issue.parentSchema;
    if (isNumeric(schema)) return numberMessage(name, schema, issue.data);
    if (issue.keyword === 'format' || (issue.keyword === 'pattern' && schema?.type === 'string' && name.includes('date')))
      return `${name}: expected a date that exists, YYYY-MM-DD, got ${JSON.stringify(String(issue.data))}`;
    return `${name}: ${issue.message ?? 'not valid'}${issue.keyword === 'enum' ? ` (${(issue.params.allowedValues as string[]).join(', ')})` : ''}`;
  });
  return parts.length > 0 ? parts.join('; ') : fallback;
}

type NumberSchema = { type: 'integer' | 'number'; minimum?: number; maximum?: number };
const isNumeric = (schema: { type?: string } | undefined): schema is NumberSchema =>
  schema?.type === 'integer' || schema?.type === 'number';
const numberMessage = (name: string, schema: NumberSchema, value: unknown): string =>
  `${name}: expected ${schema.type === 'integer' ? 'an integer' : 'a number'} from ${schema.minimum} to ${schema.maximum}, got ${JSON.stringify(String(value))}`;

/**
 * A preValidation hook. Ajv coerces "1e999" to Infinity and then lets it through its range checks:
 * numbers in the query string are plain decimals, checked here before the schema is.
 */
export async function plainDecimalNumbers(request: FastifyRequest): Promise<void> {
  const properties = (request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: string }> } | undefined)
    ?.properties;
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const schema = properties?.[name];
    if (isNumeric(schema) && (typeof value !== 'string' || !/^-?\d{1,12}(\.\d{1,12})?$/.test(value)))
      throw new HttpError(400, numberMessage(name, schema, value));
  }
}
