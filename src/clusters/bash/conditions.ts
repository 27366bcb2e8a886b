import { bashPatternRegExp } from './pattern.js';

// Conditions of bash tests, as far as they can be read statically: built (and simplified) by the
// parser, evaluated three-valued against the variables a row sets, and written out for messages.

/** A bash test condition, as far as it can be read statically. */
export type Cond =
  | { kind: 'true' }
  | { kind: 'and'; items: Cond[] }
  | { kind: 'or'; items: Cond[] }
  | { kind: 'not'; item: Cond }
  /**
   * `[[ $VAR == pattern ]]` / `!=` / `=`; glob: the pattern is a bash glob (it has unquoted `*`, `?`
   * or `[..]`; quoted metacharacters in it are then backslash-escaped); `-n`/`-z` on a variable
   * as op 'set'/'empty'.
   */
  | { kind: 'test'; variable: string; op: '==' | '!=' | 'set' | 'empty'; pattern: string; glob: boolean }
  /** Anything else: -f/-d tests, commands, arithmetic…, with its source text. */
  | { kind: 'unknown'; text: string };

export const TRUE: Cond = { kind: 'true' };
export const FALSE: Cond = { kind: 'not', item: TRUE };
export const isFalse = (c: Cond): boolean => c.kind === 'not' && c.item.kind === 'true';
export const unknown = (text: string): Cond => ({ kind: 'unknown', text });

export function and(...items: Cond[]): Cond {
  const flat = items.flatMap((c) => (c.kind === 'and' ? c.items : c.kind === 'true' ? [] : [c]));
  if (flat.some(isFalse)) return FALSE;
  return flat.length === 0 ? TRUE : flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
}

export function or(...items: Cond[]): Cond {
  const flat = items.flatMap((c) => (c.kind === 'or' ? c.items : isFalse(c) ? [] : [c]));
  if (flat.some((c) => c.kind === 'true')) return TRUE;
  return flat.length === 0 ? FALSE : flat.length === 1 ? flat[0]! : { kind: 'or', items: flat };
}

export const not = (c: Cond): Cond => (c.kind === 'not' ? c.item : { kind: 'not', item: c });

/**
 * Three-valued evaluation against the variables a row sets: variables absent from env are unknown
 * ('unknown' propagates through and/or/not as Kleene logic). Bash glob semantics for glob
 * patterns (`*` matches `/` too).
 */
export function evaluate(cond: Cond, env: Readonly<Record<string, string | undefined>>): boolean | 'unknown' {
  switch (cond.kind) {
    case 'true':
      return true;
    case 'unknown':
      return 'unknown';
    case 'not': {
      const value = evaluate(cond.item, env);
      return value === 'unknown' ? value : !value;
    }
    case 'and':
    case 'or': {
      // The value that decides (false for and, true for or) wins over unknown.
      const decisive = cond.kind === 'or';
      let result: boolean | 'unknown' = !decisive;
      for (const item of cond.items) {
        const value = evaluate(item, env);
        if (value === decisive) return decisive;
        if (value === 'unknown') result = 'unknown';
      }
      return result;
    }
    case 'test': {
      const value = Object.hasOwn(env, cond.variable) ? env[cond.variable] : undefined;
      if (value === undefined) return 'unknown';
      if (cond.op === 'set') return value !== '';
      if (cond.op === 'empty') return value === '';
      const matches = cond.glob ? bashPatternRegExp(cond.pattern).test(value) : value === cond.pattern;
      return cond.op === '==' ? matches : !matches;
    }
  }
}

/** The condition as short readable text (for messages): `FRAMEWORK == dynamo-vllm && !(IS_AGENTIC == 1)`. */
export function formatCond(cond: Cond): string {
  switch (cond.kind) {
    case 'true':
      return 'true';
    case 'unknown':
      return `\`${cond.text}\``;
    case 'not':
      return cond.item.kind === 'true' ? 'false' : `!(${formatCond(cond.item)})`;
    case 'and':
    case 'or': {
      if (cond.items.length === 0) return cond.kind === 'and' ? 'true' : 'false';
      const other = cond.kind === 'and' ? 'or' : 'and';
      const parts = cond.items.map((c) => (c.kind === other ? `(${formatCond(c)})` : formatCond(c)));
      return parts.join(cond.kind === 'and' ? ' && ' : ' || ');
    }
    case 'test': {
      if (cond.op === 'set' || cond.op === 'empty') return `${cond.op === 'set' ? '-n' : '-z'} ${cond.variable}`;
      const pattern = cond.pattern === '' || /\s/.test(cond.pattern) ? JSON.stringify(cond.pattern) : cond.pattern;
      return `${cond.variable} ${cond.op} ${pattern}`;
    }
  }
}
