/**
 * A zod schema reduced to what decides whether a value is accepted, as plain JSON (`shapeOf`,
 * shape-of.ts): the build computes the catalog's shapes once (scripts/build.mjs), so a command that reads a valid file
 * never constructs the zod schemas, and `acceptor` answers for it in a fraction of zod's time.
 * zod stays the one definition of the schema and the one source of error messages: a value the
 * acceptor refuses goes to zod, which says why (schema-check.ts).
 *
 * The acceptor may refuse more than zod does (then zod accepts and nothing is lost but time); it
 * never accepts what zod refuses. The tests hold it to exactly zod's answer on every fixture and
 * on mutations of them.
 */
export type Shape =
  | { type: 'string'; checks: Check[] }
  | { type: 'number'; checks: Check[] }
  | { type: 'boolean' }
  | { type: 'literal'; values: (string | number | boolean | null)[] }
  | { type: 'array'; element: Shape; checks: Check[] }
  /** `strict`: a key outside `fields` is refused (zod's strictObject); else it is let through. */
  | { type: 'object'; fields: Record<string, Shape>; strict: boolean }
  | { type: 'record'; key: Shape; value: Shape }
  | { type: 'union'; options: Shape[] }
  | { type: 'optional'; inner: Shape };

export type Check =
  | { check: 'int' }
  | { check: 'min' | 'max'; value: number; inclusive: boolean }
  | { check: 'minLength'; value: number }
  | { check: 'regex'; source: string; flags: string };

export type Accept = (value: unknown) => boolean;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/** Code points, as zod counts a string's length (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const always: Accept = () => true;

/** One predicate for several: the checks of a schema all hold. */
function allOf(tests: Accept[]): Accept {
  if (tests.length <= 1) return tests[0] ?? always;
  return (value) => tests.every((test) => test(value));
}

/** A predicate that accepts what `shape` accepts (build it once, call it per value). */
export function acceptor(shape: Shape): Accept {
  switch (shape.type) {
    case 'string': {
      const check = allOf(shape.checks.map(checkAcceptor));
      return (value) => typeof value === 'string' && check(value);
    }
    case 'number': {
      const check = allOf(shape.checks.map(checkAcceptor));
      return (value) => typeof value === 'number' && Number.isFinite(value) && check(value);
    }
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'literal': {
      const values = new Set<unknown>(shape.values);
      return (value) => values.has(value);
    }
    case 'array': {
      const element = acceptor(shape.element);
      const check = allOf(shape.checks.map(checkAcceptor));
      return (value) => {
        if (!Array.isArray(value) || !check(value)) return false;
        // By index, not with every(): a hole is an undefined item to zod.
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
        return true;
      };
    }
    case 'object':
      return objectAcceptor(shape);
    case 'record': {
      const key = acceptor(shape.key);
      const item = acceptor(shape.value);
      return (value) => {
        if (!isPlainObject(value)) return false;
        for (const k in value) if (k === '__proto__' || !key(k) || !item(value[k])) return false;
        return true;
      };
    }
    case 'union':
      return anyOf(shape.options.map(acceptor));
    case 'optional': {
      const inner = acceptor(shape.inner);
      return (value) => value === undefined || inner(value);
    }
  }
}

function anyOf(options: Accept[]): Accept {
  return (value) => options.some((option) => option(value));
}

function objectAcceptor(shape: Extract<Shape, { type: 'object' }>): Accept {
  const fields = Object.entries(shape.fields).map(([key, field]) => ({
    key,
    accept: acceptor(field),
    optional: field.type === 'optional',
  }));
  return (value) => {
    if (!isPlainObject(value)) return false;
    let present = 0;
    for (const { key, accept, optional } of fields) {
      if (Object.hasOwn(value, key)) {
        if (!accept(value[key])) return false;
        present++;
      } else if (!optional) return false;
    }
    // Strict: no key beyond the fields, own or inherited (zod walks them with for…in).
    if (!shape.strict) return true;
    if (Object.keys(value).length !== present) return false;
    for (const key in value) if (!Object.hasOwn(value, key)) return false;
    return true;
  };
}

function checkAcceptor(check: Check): Accept {
  switch (check.check) {
    case 'int':
      return (value) => Number.isSafeInteger(value);
    case 'min':
      return check.inclusive ? (value) => (value as number) >= check.value : (value) => (value as number) > check.value;
    case 'max':
      return check.inclusive ? (value) => (value as number) <= check.value : (value) => (value as number) < check.value;
    case 'minLength':
      return (value) => {
        const { length } = value as string | unknown[];
        if (length < check.value) return false;
        return typeof value === 'string' && length < 2 * check.value ? codePoints(value) >= check.value : true;
      };
    case 'regex': {
      const pattern = new RegExp(check.source, check.flags);
      return (value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      };
    }
  }
}
