import { basename, dirname, join } from 'node:path';
import type { EmitResult } from './emit.js';

/** Where InferenceX keeps srt-slurm recipes in its tree (CONFIG_FILE=recipes/… resolves there). */
const TREE_RECIPES_DIR = join('benchmarks', 'multi_node', 'srt-slurm-recipes');

/**
 * The recipes folder for a master config written to `out`: the tree's srt-slurm recipes folder,
 * the tree being the folder above `out`'s when that is `configs/` (as in InferenceX), else `out`'s.
 */
export function defaultRecipesDir(out: string): string {
  const folder = dirname(out);
  return join(basename(folder) === 'configs' ? dirname(folder) : folder, TREE_RECIPES_DIR);
}

/**
 * The files an emitted master config goes to: the config itself at `out` (none without: it is
 * printed), its recipes under `recipesDir` (default with `out`: the tree's recipes folder). With
 * a warning when there are recipes and nowhere to write them.
 */
export function emittedFiles(
  emitted: EmitResult,
  where: { out?: string | undefined; recipesDir?: string | undefined },
): { files: [string, string][]; warning?: string } {
  const recipesDir = where.recipesDir ?? (where.out ? defaultRecipesDir(where.out) : undefined);
  const files: [string, string][] = [
    ...(where.out ? [[where.out, emitted.yaml] as [string, string]] : []),
    ...(recipesDir ? emitted.recipes.map((r): [string, string] => [join(recipesDir, r.path), r.yaml]) : []),
  ];
  if (recipesDir || emitted.recipes.length === 0) return { files };
  return {
    files,
    warning: `the config names ${emitted.recipes.length} srt-slurm recipe(s) it did not write: pass --out or --recipes-dir to write them`,
  };
}
