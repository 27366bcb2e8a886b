import { isMultiNodeRow, MatrixError, generateTestConfig } from '../../matrix/index.js';
import type { MultiNodeRow } from '../../matrix/index.js';
import { recipeInTree } from '../../recipes/index.js';
import { once } from '../../util/once.js';
import type { Checkout } from './checkout.js';
import type { CloneRoute } from './clone-routes.js';
import { runsJobScript } from './job-script-frameworks.js';
import { launcherForLabel, reachedRoutes, treeLaunchers } from './read-launchers.js';
import type { Launcher } from './read-launchers.js';
import { multiNodeWorkflowEnv } from './workflow-env.js';

/**
 * Routing a checkout's multinode rows through its launchers: for every row that runs an
 * srt-slurm recipe, the clones its launcher can reach with the variables the workflow gives it.
 */

/**
 * Variables the launchers compute from the row's recipe before they route: USES_DCGM_POWER is 1
 * when the recipe in the checkout enables the dcgm-power telemetry lane (launch_gb200-nv.sh and
 * launch_gb300-nv.sh read its top-level `telemetry:` block with awk).
 */
const RECIPE_VARIABLES: Readonly<Record<string, (recipe: unknown) => string>> = {
  USES_DCGM_POWER: (recipe) => {
    const telemetry = (recipe as { telemetry?: { provider?: unknown; enabled?: unknown } } | undefined)?.telemetry;
    return telemetry?.provider === 'dcgm-power' && telemetry.enabled === true ? '1' : '0';
  },
};

function launcherDerived(tree: Checkout, configFile: string): Record<string, string> {
  const doc = tree.recipes.get(recipeInTree(configFile, tree.recipesDir).inTree)?.doc.value;
  return Object.fromEntries(Object.entries(RECIPE_VARIABLES).map(([name, of]) => [name, of(doc)]));
}

/** The recipes of the tree (relative to its recipes folder) for which a recipe variable has a value. */
export function recipesWhere(tree: Checkout, variable: string, value: string): string[] | undefined {
  const of = RECIPE_VARIABLES[variable];
  if (!of || !tree.recipesDir) return undefined;
  return [...tree.recipes.values()]
    .filter((file) => of(file.doc.value) === value)
    .map((file) => file.path.slice(tree.recipesDir!.length + 1))
    .sort();
}

export interface RoutedRow {
  key: string;
  row: MultiNodeRow;
  /** Its CONFIG_FILE. */
  recipe: string;
  launcher: Launcher;
  /** The clones the row reaches: `certain` when its condition holds, else it depends on what the file decides at run time. */
  reached: { route: CloneRoute; certain: boolean }[];
}

/** Every multinode row that runs an srt-slurm recipe through a launcher that clones srt-slurm. */
export function routedRows(tree: Checkout): Promise<RoutedRow[]> {
  return once(tree, 'routed-rows', async () => {
    const launchers = await treeLaunchers(tree);
    const out: RoutedRow[] = [];
    if (!tree.runners || ![...launchers.values()].some((l) => l.routes.length > 0)) return out;
    for (const [key, config] of tree.catalog.entries) {
      if (!config.multinode) continue;
      const launcher = launcherForLabel(tree, launchers, config.runner);
      if (!launcher || launcher.routes.length === 0) continue;
      let rows;
      try {
        rows = generateTestConfig(tree.catalog.entries, tree.runners, { configKeys: [key] });
      } catch (e) {
        if (e instanceof MatrixError) continue; // config/valid and changelog/sweep say why
        throw e;
      }
      for (const any of rows) {
        if (!isMultiNodeRow(any)) continue;
        // Agentic rows have no sequence lengths; the workflow passes them empty all the same.
        const row = any as MultiNodeRow;
        if (runsJobScript(row)) continue;
        const workflow = multiNodeWorkflowEnv(row, { resultFilename: '', runnerName: `${launcher.name}_0` });
        if (!workflow.CONFIG_FILE) continue;
        const env = { ...workflow, ...launcherDerived(tree, workflow.CONFIG_FILE) };
        out.push({ key, row, recipe: workflow.CONFIG_FILE, launcher, reached: reachedRoutes(launcher, env) });
      }
    }
    return out;
  });
}
