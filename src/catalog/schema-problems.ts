import * as z from 'zod';
import { closest, problemAt } from './issues.js';
import type { Subject } from './issues.js';
import { describeValue } from './problems.js';
import type { PathSegment, Problem } from './problems.js';

/** Turn zod issues into located problems with `expected …, got …` messages and fixes. */
export function schemaProblems(subject: Subject, schema: z.ZodType, value: unknown, issues: z.core.$ZodIssue[]): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const path = issue.path as PathSegment[];
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeys(schemaAt(schema, path));
      for (const key of issue.keys) {
        const near = closest(key, allowed);
        out.push(
          problemAt(subject, path, `unknown field "${key}"`, {
            rule: 'schema',
            keyName: key,
            hint: near ? `did you mean "${near}"?` : allowed.length ? `allowed fields: ${allowed.join(', ')}` : undefined,
          }),
        );
      }
      continue;
    }
    if (issue.code === 'invalid_key') {
      const key = String(path[path.length - 1]);
      const expected = issue.issues[0]?.message ?? 'a valid key';
      out.push(
        problemAt(subject, path.slice(0, -1), `"${key}" is not a valid key here: expected ${expected}`, {
          rule: 'schema',
          keyName: key,
          hint: `rename "${key}" to ${expected}`,
        }),
      );
      continue;
    }
    const got = valueAt(value, path);
    const field = path[path.length - 1];
    if (got === undefined && issue.code === 'invalid_type') {
      out.push(
        problemAt(subject, path, `missing required field "${String(field)}" (${issue.message})`, {
          rule: 'schema',
          hint: `add ${String(field)}: <${issue.message}>`,
        }),
      );
      continue;
    }
    out.push(
      problemAt(subject, path, `expected ${issue.message}, got ${describeValue(got)}`, {
        rule: 'schema',
        hint: typeHint(got, issue.message) ?? `set ${String(field ?? 'it')} to ${issue.message}`,
      }),
    );
  }
  return out;
}

function typeHint(got: unknown, expected: string): string | undefined {
  if (typeof got === 'string' && /integer|number/.test(expected) && /^-?\d+(\.\d+)?$/.test(got)) {
    return 'remove the quotes: a quoted number is a string';
  }
  if (typeof got === 'string' && expected === 'true or false' && /^(true|false|yes|no|on|off)$/i.test(got)) {
    return 'remove the quotes: a quoted boolean is a string';
  }
  if (got === null) return 'remove the field to use its default, or give a value';
  return undefined;
}

function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let node = value;
  for (const seg of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PathSegment, unknown>)[seg];
  }
  return node;
}

/** The sub-schema a path leads to, following objects, arrays, records, unions and wrappers. */
function schemaAt(schema: z.ZodType, path: readonly PathSegment[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const seg of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) current = current.shape[seg as string] as z.ZodType | undefined;
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return undefined;
  }
  return unwrap(current);
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault || s instanceof z.ZodUnion) {
    // A union's mapping option is the one a mapping's fields belong to (e.g. a range { min, max }).
    s =
      s instanceof z.ZodUnion
        ? ((s.options as z.ZodType[]).find((o) => o instanceof z.ZodObject) ?? undefined)
        : (s.unwrap() as z.ZodType);
  }
  return s;
}

function allowedKeys(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}
