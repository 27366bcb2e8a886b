import { rowScenario } from '../matrix/index.js';
import type { MultiNodeAgenticRow, MultiNodeRow } from '../matrix/index.js';
import { globCovers, globMatches, recipeRoutePath } from './recipe-glob.js';

/**
 * Routing rules of a cluster profile: which toolchain (srt-slurm or a fork, at a pinned commit)
 * runs a multi-node recipe. Pure logic: first-match routing, and whether one rule's match covers
 * another's (a later rule it covers can never match); the recipe globs are recipe-glob.ts's.
 */

/** What a routing rule matches; an absent field matches anything. */
export interface RouteMatch {
  framework?: string | undefined;
  modelPrefix?: string | undefined;
  precision?: string | undefined;
  /** `fixed-seq-len` or `agentic-coding` (InferenceX's launchers test IS_AGENTIC). */
  scenario?: string | undefined;
  /** The row's spec-decoding (`mtp`, `none`, …; the launchers test SPEC_DECODING). */
  specDecoding?: string | undefined;
  /** A glob over the recipe path relative to the recipes folder, e.g. `sglang/dsr1/**`. */
  recipe?: string | undefined;
}

export interface Toolchain {
  /** Repository URL, e.g. `https://github.com/NVIDIA/srt-slurm.git`. */
  repo: string;
  /** Full 40-hex commit. */
  commit: string;
}

/** An extra switch for the toolchain (e.g. `skip-preflight`), with why this route needs it. */
export interface RouteFlag {
  flag: string;
  reason: string;
}

export interface RoutingRule {
  match: RouteMatch;
  toolchain: Toolchain;
  flags: RouteFlag[];
}

/** The row a recipe runs for, as routing sees it. */
export interface RouteRequest {
  framework: string;
  modelPrefix: string;
  precision: string;
  scenario: string;
  specDecoding: string;
  /** The recipe: a CONFIG_FILE value (`recipes/…yaml[:selector]`) or a path relative to the recipes folder. */
  recipe: string;
}

export interface Route {
  rule: RoutingRule;
  /** Index of the rule in the profile's `routing` list. */
  index: number;
}

/** What routing sees of a multinode row that runs `recipe`. */
export function rowRouteRequest(row: MultiNodeRow | MultiNodeAgenticRow, recipe: string): RouteRequest {
  return {
    framework: row.framework,
    modelPrefix: row['model-prefix'],
    precision: row.precision,
    scenario: rowScenario(row),
    specDecoding: row['spec-decoding'],
    recipe,
  };
}

/** First matching rule wins; undefined when no rule matches. */
export function routeRecipe(profile: { routing: readonly RoutingRule[] }, request: RouteRequest): Route | undefined {
  const path = recipeRoutePath(request.recipe);
  for (const [index, rule] of profile.routing.entries()) {
    const { match } = rule;
    if (match.framework !== undefined && match.framework !== request.framework) continue;
    if (match.modelPrefix !== undefined && match.modelPrefix !== request.modelPrefix) continue;
    if (match.precision !== undefined && match.precision !== request.precision) continue;
    if (match.scenario !== undefined && match.scenario !== request.scenario) continue;
    if (match.specDecoding !== undefined && match.specDecoding !== request.specDecoding) continue;
    if (match.recipe !== undefined && !globMatches(match.recipe, path)) continue;
    return { rule, index };
  }
  return undefined;
}

/**
 * Whether `earlier` matches everything `later` matches: each field of `earlier` is absent, or
 * equal to (a glob covering) the same field of `later`.
 */
export function matchCovers(earlier: RouteMatch, later: RouteMatch): boolean {
  for (const field of ['framework', 'modelPrefix', 'precision', 'scenario', 'specDecoding'] as const) {
    if (earlier[field] !== undefined && earlier[field] !== later[field]) return false;
  }
  if (earlier.recipe === undefined) return true;
  return later.recipe !== undefined && globCovers(earlier.recipe, later.recipe);
}
