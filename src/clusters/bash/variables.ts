import { FALSE, TRUE, and, evaluate, not, or } from './conditions.js';
import type { Cond } from './conditions.js';
import type { Word } from './lexer.js';

// Variables with a literal value: substituted into words, and deciding the tests on them.

/** A variable's literal value, or null where the script gives it a non-literal or path-dependent one. */
export type Env = Map<string, string | null>;

/** A word after substituting literal variables; `resolved` when nothing was left as written. */
export interface Value {
  text: string;
  resolved: boolean;
}

export function expand(word: Word, env: Env): Value {
  let resolved = true;
  const text = word.parts
    .map((p) => {
      if (p.kind === 'lit') return p.text;
      const value = p.kind === 'var' ? env.get(p.name) : undefined;
      if (typeof value === 'string') return value;
      resolved = false;
      return p.raw;
    })
    .join('');
  return { text, resolved };
}

/** Tests on variables with a literal value decided; the rest as is. */
export function fold(cond: Cond, env: Env): Cond {
  switch (cond.kind) {
    case 'test': {
      const value = env.get(cond.variable);
      return typeof value === 'string' ? (evaluate(cond, { [cond.variable]: value }) ? TRUE : FALSE) : cond;
    }
    case 'and':
      return and(...cond.items.map((c) => fold(c, env)));
    case 'or':
      return or(...cond.items.map((c) => fold(c, env)));
    case 'not':
      return not(fold(cond.item, env));
    default:
      return cond;
  }
}
