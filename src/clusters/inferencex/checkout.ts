import type { Catalog, RunnerConfig } from '../../catalog/index.js';
import type { RecipeFile } from '../../recipes/index.js';

/**
 * An InferenceX checkout as reading its launchers needs it: its files, master configs, runners
 * and srt-slurm recipes (a review's tree is one).
 */
export interface Checkout {
  snapshot: {
    /** Every file below a directory, as repository-relative paths, sorted. */
    list(dir: string): Promise<string[]>;
    /** Many files at once: path → bytes, absent paths left out. */
    readMany(paths: readonly string[]): Promise<Map<string, Buffer>>;
  };
  catalog: Catalog;
  runners: RunnerConfig | undefined;
  /** Where the recipes are in the checkout (undefined when there are none). */
  recipesDir: string | undefined;
  /** Recipe path (in the checkout) → the recipe. */
  recipes: ReadonlyMap<string, RecipeFile>;
}
