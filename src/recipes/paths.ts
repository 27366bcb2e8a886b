/** Where an InferenceX tree keeps its srt-slurm recipes: the first of these that has files. */
export const RECIPE_DIRS = ['benchmarks/multi_node/srt-slurm-recipes', 'srt-slurm-recipes'];

const IN_TREE_PREFIX = 'benchmarks/multi_node/srt-slurm-recipes/';

/** The recipes folder of a tree: the one asked for, else the first of RECIPE_DIRS with files. */
export async function findRecipesDir(
  list: (dir: string) => Promise<string[]>,
  wanted: string | undefined,
): Promise<string | undefined> {
  if (wanted) return wanted.replace(/\/+$/, '');
  for (const dir of RECIPE_DIRS) if ((await list(dir)).length > 0) return dir;
  return undefined;
}

/**
 * A CONFIG_FILE value split into file and selector, with the path the file would have in the
 * tree: InferenceX overlays its recipes folder onto srt-slurm's `recipes/`, so
 * `recipes/<path>[:selector]` is `<recipesDir>/<path>` when the tree has it.
 */
export function recipeInTree(
  value: string,
  recipesDir: string | undefined,
): { file: string; selector: string | undefined; inTree: string } {
  const colon = value.lastIndexOf(':');
  const [file, selector] = colon > 0 ? [value.slice(0, colon), value.slice(colon + 1)] : [value, undefined];
  const relative = file.startsWith('recipes/')
    ? file.slice('recipes/'.length)
    : file.startsWith(IN_TREE_PREFIX)
      ? file.slice(IN_TREE_PREFIX.length)
      : undefined;
  return { file, selector, inTree: recipesDir && relative !== undefined ? `${recipesDir}/${relative}` : file };
}
