import type { MultiNodeRow } from '../../matrix/index.js';
import { expandPath, routeRecipe, rowRouteRequest } from '../../clusters/index.js';
import type { ClusterProfile, SrtctlSettings } from '../../clusters/index.js';
import { RECIPES_DIR } from './recipe-plan.js';
import type { RecipePlan } from './recipe-plan.js';

/** The checkout srtctl runs in: the profile's root, `{commit}` the recipe's routed toolchain commit. */
export function srtctlRoot(s: SrtctlSettings, cluster: ClusterProfile, row: MultiNodeRow, recipe: string): string {
  if (!s.root.includes('{commit}')) return expandPath(s.root);
  const route = routeRecipe(cluster, rowRouteRequest(row, recipe));
  if (!route)
    throw new Error(
      `cluster ${cluster.name} has no routing rule for recipe ${recipe}, so srtctl's root ${s.root} names no commit: add one to its routing:`,
    );
  return expandPath(s.root.replaceAll('{commit}', route.rule.toolchain.commit));
}

export const relativeOf = (plan: RecipePlan): string => `recipes/${plan.path.slice(RECIPES_DIR.length + 1)}`;

/**
 * The command that submits a row's recipe (in srtctl's checkout, where `placeRecipe` puts the
 * checkout's copy, or where the routed checkout has it): CONFIG_FILE is already `recipes/<path>[:selector]`.
 */
export function srtctlApply(configFile: string, row: MultiNodeRow, s: SrtctlSettings): string[] {
  return [
    ...s.command,
    'apply',
    '--no-preflight',
    '-f',
    configFile,
    '--tags',
    `frontier,${row['model-prefix']},${row.precision},${row.isl}x${row.osl}`,
  ];
}
