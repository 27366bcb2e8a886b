import { isMultiNodeRow, MatrixError, generateTestConfig } from '../matrix/index.js';
import type { MultiNodeRow } from '../matrix/index.js';
import { evaluate, launcherOf, multiNodeWorkflowEnv, readCloneRoutes, runsJobScript } from '../launch/inferencex/index.js';
import type { CloneRoute, CloneRoutes } from '../launch/inferencex/index.js';
import { once } from '../util/once.js';
import { recipeTreePath } from './tree.js';
import type { Tree } from './tree.js';

/**
 * InferenceX's launchers (`runners/launch_<name>.sh`) as the review reads them: the srt-slurm
 * clones of each and, for every multinode row that runs an srt-slurm recipe, the clones its
 * launcher can reach with the variables the workflow gives it.
 */

const RUNNERS_DIR = 'runners';
const LAUNCHER = /^runners\/launch_(.+)\.sh$/;

export interface Launcher {
  /** `b200-dgxc`, from `runners/launch_b200-dgxc.sh`. */
  name: string;
  /** The file read: the launcher, or the one it links to (`launch_b200-dgxc-slurm.sh` → `launch_b200-dgxc.sh`). */
  path: string;
  routes: CloneRoute[];
  problems: CloneRoutes['problems'];
}

/** Every launcher of the tree, by name. */
export function treeLaunchers(tree: Tree): Promise<Map<string, Launcher>> {
  return once(tree, 'launchers', async () => {
    const paths = (await tree.snapshot.list(RUNNERS_DIR)).filter((p) => LAUNCHER.test(p));
    const texts = await tree.snapshot.readMany(paths);
    const read = new Map<string, CloneRoutes>();
    const out = new Map<string, Launcher>();
    for (const path of paths) {
      let file = path;
      let text = texts.get(path)?.toString('utf8') ?? '';
      // A symbolic link, as git stores it: the name of the file it points to.
      const target = /^(launch_[\w.-]+\.sh)\n?$/.exec(text)?.[1];
      if (target && texts.has(`${RUNNERS_DIR}/${target}`)) {
        file = `${RUNNERS_DIR}/${target}`;
        text = texts.get(file)!.toString('utf8');
      }
      if (!read.has(file)) read.set(file, readCloneRoutes(text));
      const { routes, problems } = read.get(file)!;
      out.set(LAUNCHER.exec(path)![1]!, { name: LAUNCHER.exec(path)![1]!, path: file, routes, problems });
    }
    return out;
  });
}

/**
 * The launcher a runner label runs: its first runner's (`configs/runners.yaml`, `h200-cw_00` →
 * `h200-cw`), else for a label the file does not list (`cluster:h200-dgxc`) the launcher it names,
 * `launch_<name>.sh` or `launch_<name>-slurm.sh`.
 */
function launcherForLabel(tree: Tree, launchers: ReadonlyMap<string, Launcher>, label: string): Launcher | undefined {
  const first = tree.runners?.labels[label]?.[0];
  if (first && launchers.has(launcherOf(first))) return launchers.get(launcherOf(first));
  const bare = label.replace(/^cluster:/, '');
  return launchers.get(bare) ?? launchers.get(`${bare}-slurm`);
}

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

function launcherDerived(tree: Tree, configFile: string): Record<string, string> {
  const doc = tree.recipes.get(recipeTreePath(tree, configFile).inTree)?.doc.value;
  return Object.fromEntries(Object.entries(RECIPE_VARIABLES).map(([name, of]) => [name, of(doc)]));
}

/** The recipes of the tree (relative to its recipes folder) for which a recipe variable has a value. */
export function recipesWhere(tree: Tree, variable: string, value: string): string[] | undefined {
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
export function routedRows(tree: Tree): Promise<RoutedRow[]> {
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
        const reached = launcher.routes.flatMap((route) => {
          const value = evaluate(route.condition, env);
          return value === false ? [] : [{ route, certain: value === true }];
        });
        out.push({ key, row, recipe: workflow.CONFIG_FILE, launcher, reached });
      }
    }
    return out;
  });
}
