import { formatCond } from '../bash/conditions.js';
import type { Cond } from '../bash/conditions.js';
import type { RouteMatch, RoutingRule } from '../route.js';

// The match of a routing rule that stands for a launcher's clone: its condition, read as rule fields.

/** The launcher variables a routing rule can match on, and the field that matches them. */
const FIELDS: Record<string, keyof RouteMatch> = {
  FRAMEWORK: 'framework',
  MODEL_PREFIX: 'modelPrefix',
  PRECISION: 'precision',
  SPEC_DECODING: 'specDecoding',
  IS_AGENTIC: 'scenario',
  CONFIG_FILE: 'recipe',
};

type Conjunct = RouteMatch | 'impossible';

/**
 * The rule matches a route's own test needs (disjunctions give several), or why it has none.
 * Negations are left out: in a first-match list they are the earlier branches of the chain.
 */
export function routeMatches(
  cond: Cond,
  recipesWhere: (variable: string, value: string) => string[] | undefined = () => undefined,
): { matches: RouteMatch[] } | { unsupported: string } {
  const dnf = (c: Cond): Conjunct[][] | string => {
    switch (c.kind) {
      case 'true':
        return [[{}]];
      case 'not':
        return [[{}]];
      case 'unknown':
        return `\`${c.text}\``;
      case 'test': {
        if (c.variable === 'IS_MULTINODE' && c.op === '==' && c.pattern === 'true') return [[{}]];
        // A variable the launcher computes from the recipe: the recipes for which it holds today.
        const recipes = c.op === '==' && !c.glob ? recipesWhere(c.variable, c.pattern) : undefined;
        if (recipes) return recipes.length > 0 ? recipes.map((recipe) => [{ recipe }]) : [['impossible']];
        const field = FIELDS[c.variable];
        if (!field || c.op !== '==' || (c.glob && field !== 'recipe')) return formatCond(c);
        if (field === 'scenario') return [[{ scenario: c.pattern === '1' ? 'agentic-coding' : 'fixed-seq-len' }]];
        if (field === 'recipe') return [[{ recipe: recipeGlob(c.pattern) }]];
        return [[{ [field]: c.pattern }]];
      }
      case 'and': {
        let out: Conjunct[][] = [[]];
        for (const item of c.items) {
          const part = dnf(item);
          if (typeof part === 'string') return part;
          out = out.flatMap((a) => part.map((b) => [...a, ...b]));
        }
        return out;
      }
      case 'or': {
        const out: Conjunct[][] = [];
        for (const item of c.items) {
          const part = dnf(item);
          if (typeof part === 'string') return part;
          out.push(...part);
        }
        return out;
      }
    }
  };
  const terms = dnf(cond);
  if (typeof terms === 'string') return { unsupported: terms };
  const matches: RouteMatch[] = [];
  for (const term of terms) {
    const merged = merge(term);
    if (merged !== 'impossible' && !matches.some((m) => JSON.stringify(m) === JSON.stringify(merged))) matches.push(merged);
  }
  return { matches };
}

function merge(term: Conjunct[]): Conjunct {
  const out: RouteMatch = {};
  for (const part of term) {
    if (part === 'impossible') return part;
    for (const [k, v] of Object.entries(part) as [keyof RouteMatch, string][]) {
      if (out[k] !== undefined && out[k] !== v) return 'impossible';
      out[k] = v;
    }
  }
  return out;
}

/**
 * A launcher's bash pattern on CONFIG_FILE as a recipe glob: relative to recipes/, `*` within a
 * name (bash's `*` also crosses `/`; the rows are checked both ways afterwards).
 */
const recipeGlob = (pattern: string): string => pattern.replace(/^recipes\//, '').replace(/\\(.)/g, '$1');

export interface ImportedRule {
  rule: RoutingRule;
  /** Where it came from, for the comment above it. */
  source: string;
  /** The ref as the launcher wrote it, when the commit is not a full one (it is written as is). */
  unpinned?: string | undefined;
}
