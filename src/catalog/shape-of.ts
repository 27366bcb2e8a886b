import type * as z from 'zod';
import type { Check, Shape } from './shape.js';

type ZodInternals = z.core.$ZodType['_zod'] & { def: Record<string, unknown> };
const internals = (schema: unknown): ZodInternals => (schema as z.core.$ZodType)._zod as ZodInternals;

/**
 * The shape of a zod schema. Throws on what has no shape (a refine, a transform, a default): the
 * build fails rather than an acceptor deciding without it. Express such a check as a regex, or
 * as a cross-field rule (rules.ts), which runs after the schema.
 */
export function shapeOf(schema: z.ZodType, path = '(root)'): Shape {
  const zod = internals(schema);
  const def = zod.def;
  const checks = (): Check[] => checksOf(zod, path);
  switch (def.type) {
    case 'string':
      if (def.format !== undefined) break;
      return { type: 'string', checks: checks() };
    case 'number':
      return { type: 'number', checks: checks() };
    case 'boolean':
      return { type: 'boolean' };
    case 'literal':
      return { type: 'literal', values: [...(def.values as (string | number | boolean | null)[])] };
    case 'enum':
      return { type: 'literal', values: Object.values(def.entries as Record<string, string | number>) };
    case 'array':
      return { type: 'array', element: shapeOf(def.element as z.ZodType, `${path}[]`), checks: checks() };
    case 'object': {
      const catchall = def.catchall === undefined ? undefined : internals(def.catchall).def.type;
      if (catchall !== undefined && catchall !== 'never') break;
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, shapeOf(field, `${path}.${key}`)]));
      return { type: 'object', fields, strict: catchall === 'never' };
    }
    case 'record':
      if (def.mode !== undefined || internals(def.keyType).values !== undefined) break;
      return {
        type: 'record',
        key: shapeOf(def.keyType as z.ZodType, `${path} key`),
        value: shapeOf(def.valueType as z.ZodType, `${path}.*`),
      };
    case 'union':
      if (def.inclusive === false) break;
      return { type: 'union', options: (def.options as z.ZodType[]).map((option) => shapeOf(option, path)) };
    case 'optional':
      return { type: 'optional', inner: shapeOf(def.innerType as z.ZodType, path) };
  }
  throw new Error(`${path}: a zod ${String(def.type)} schema of this kind has no precompiled shape`);
}

function checksOf(zod: ZodInternals, path: string): Check[] {
  const own = zod.traits.has('$ZodCheck') ? [{ _zod: zod }] : [];
  const all = [...own, ...((zod.def.checks ?? []) as unknown as { _zod: { def: Record<string, unknown> } }[])];
  return all.map(({ _zod: { def } }): Check => {
    switch (def.check) {
      case 'number_format':
        if (def.format === 'safeint') return { check: 'int' };
        break;
      case 'greater_than':
        return { check: 'min', value: def.value as number, inclusive: def.inclusive as boolean };
      case 'less_than':
        return { check: 'max', value: def.value as number, inclusive: def.inclusive as boolean };
      case 'min_length':
        return { check: 'minLength', value: def.minimum as number };
      case 'string_format':
        if (def.format === 'regex' && def.when === undefined) {
          const pattern = def.pattern as RegExp;
          return { check: 'regex', source: pattern.source, flags: pattern.flags };
        }
    }
    throw new Error(`${path}: the check ${String(def.check)} (${String(def.format ?? '')}) has no precompiled shape`);
  });
}
