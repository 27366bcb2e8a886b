import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkRunnerLabels, isPlainMapping, loadMasterConfigs, loadRunners, searchSpaceEntries } from '../catalog/index.js';
import type { Catalog, MasterConfigEntry, PathSegment, Problem, RunnerConfig } from '../catalog/index.js';
import type { CheckOptions, Snapshot } from '../changelog/index.js';
import { DESCRIPTIVE_FIELDS, descriptiveFields, profileFiles, readClusterProfiles } from '../clusters/index.js';
import type { ClusterProfileRead } from '../clusters/index.js';
import { findRecipesDir, loadRecipe, recipeInTree, selectVariant } from '../recipes/index.js';
import type { RecipeFile, Variant } from '../recipes/index.js';
import type { DescriptiveFields } from '../matrix/index.js';

/**
 * A repository tree as the review sees it: master configs, runners, the changelog and every
 * srt-slurm recipe, from a git revision or a directory (the InferenceX layout).
 */
export interface Tree {
  snapshot: Snapshot;
  catalog: Catalog;
  /** Config key → its value as written (invalid entries included), for comparing revisions. */
  rawConfigs: Map<string, unknown>;
  catalogProblems: Problem[];
  runners: RunnerConfig | undefined;
  /** Where the recipes are in this tree (undefined when there are none). */
  recipesDir: string | undefined;
  /** Recipe path (in the tree) → bytes, for every YAML file below the recipes directory. */
  recipeBytes: Map<string, Buffer>;
  recipes: Map<string, RecipeFile>;
  /** A local srt-slurm checkout, for CONFIG_FILEs that live there. */
  toolchainDir: string | undefined;
  toolchainRecipes: Map<string, RecipeFile | null>;
  /** Every file directly in clusters/ (profiles are its *.yaml); empty when the tree has no clusters/. */
  clusterFiles: string[];
  /** Each cluster profile as read: the profile when its shape is valid, and its problems. */
  clusters: ClusterProfileRead[];
  /** Problems of the clusters/ files, as displayed (clusters/valid and clusters/unpinned-toolchain report them). */
  clusterProblems: Problem[];
  /** How the tree was loaded (the changelog rules read the same files). */
  options: TreeOptions;
}

export interface TreeOptions {
  /** Recipes folder in the tree; default `benchmarks/multi_node/srt-slurm-recipes`, else `srt-slurm-recipes`. */
  recipesDir?: string | undefined;
  toolchainDir?: string | undefined;
  configFiles?: string[] | undefined;
  runnerConfig?: string | undefined;
  changelogFile?: string | undefined;
  /** A tree loaded before: recipes with the same bytes are taken from it instead of parsed again. */
  reuse?: Tree | undefined;
}

/** Cluster profiles live in clusters/ at the tree root, next to configs/. */
export const CLUSTERS_DIR = 'clusters';

export async function loadTree(snapshot: Snapshot, options: TreeOptions = {}): Promise<Tree> {
  const readFile = (path: string): Promise<Buffer | undefined> => snapshot.read(path);
  const configFiles = options.configFiles ?? (await snapshot.masterConfigs());
  const [catalog, runners, recipesDir, clusterFiles] = await Promise.all([
    loadMasterConfigs(configFiles, { readFile }),
    loadRunners(options.runnerConfig ?? 'configs/runners.yaml', { readFile }),
    findRecipesDir((dir) => snapshot.list(dir), options.recipesDir),
    snapshot.list(CLUSTERS_DIR).then((paths) => paths.filter((p) => !p.slice(CLUSTERS_DIR.length + 1).includes('/'))),
  ]);
  const profiles = profileFiles(clusterFiles);
  const clusters = await readClusterProfiles(profiles.files, { readFile });
  const rawConfigs = new Map<string, unknown>();
  for (const [key, doc] of catalog.value.origin) rawConfigs.set(key, (doc.value as Record<string, unknown>)[key]);
  const recipeBytes = await recipeFiles(snapshot, recipesDir);
  const loaded = await Promise.all(
    [...recipeBytes].map(async ([path, bytes]): Promise<[string, RecipeFile]> => {
      const known = options.reuse?.recipeBytes.get(path);
      const parsed = known?.equals(bytes) ? options.reuse!.recipes.get(path) : undefined;
      return [path, parsed ?? (await loadRecipe(path, bytes))];
    }),
  );
  const recipes = new Map(loaded);
  const display = (p: Problem): Problem => ({ ...p, file: snapshot.display(p.file) });
  const catalogProblems = [...catalog.problems, ...runners.problems].map(display);
  if (runners.value) catalogProblems.push(...checkRunnerLabels(catalog.value, runners.value).map(display));
  const clusterProblems = [...profiles.problems, ...clusters.flatMap((c) => c.problems)].map(display);
  return {
    snapshot,
    catalog: catalog.value,
    rawConfigs,
    catalogProblems,
    runners: runners.value,
    recipesDir,
    recipeBytes,
    recipes,
    toolchainDir: options.toolchainDir,
    toolchainRecipes: new Map(),
    clusterFiles,
    clusters,
    clusterProblems,
    options: { ...options, reuse: undefined },
  };
}

/** A CONFIG_FILE value resolved: the recipe variant it runs, or why it cannot be checked. */
export type RecipeRef =
  | { status: 'found'; value: string; path: string; file: RecipeFile; variant: Variant; source: 'tree' | 'toolchain' }
  | {
      status: 'missing' | 'bad-selector' | 'unverifiable' | 'invalid';
      value: string;
      path: string;
      reason: string;
      hint: string;
    };

const SRT_SLURM_FRAMEWORK = /^dynamo-/;

/**
 * Resolve `recipes/<fw>/<model>/x.yaml[:selector]` (InferenceX overlays its recipes folder onto
 * srt-slurm's `recipes/`) or an in-tree path. A `recipes/…` file not in the tree may live in
 * srt-slurm itself: it is checked in the toolchain checkout when one is given, else unverifiable.
 * Frameworks that do not run srt-slurm (llm-d) read other paths from their own launcher folder.
 */
export async function resolveRecipe(tree: Tree, reference: Pick<RecipeReference, 'value' | 'config'>): Promise<RecipeRef> {
  const { value } = reference;
  const { file, selector, inTree } = recipeTreePath(tree, value);
  let recipe = tree.recipes.get(inTree);
  let source: 'tree' | 'toolchain' = 'tree';
  if (!recipe) {
    const fix = 'add the recipe, or point the setting at an existing one';
    if (!file.startsWith('recipes/')) {
      const framework = reference.config.framework;
      if (!SRT_SLURM_FRAMEWORK.test(framework) && !file.includes('/')) {
        const reason = `${file} is not a recipes/… path: ${framework} reads it from its own launcher folder, which is not checked`;
        return { status: 'unverifiable', value, path: file, reason, hint: `check it where the ${framework} launcher reads it` };
      }
      return { status: 'missing', value, path: inTree, reason: `${inTree} does not exist in the tree`, hint: fix };
    }
    if (!tree.toolchainDir) {
      const reason = `${file} is not in the tree; it may be one of srt-slurm's own recipes`;
      return {
        status: 'unverifiable',
        value,
        path: file,
        reason,
        hint: 'point --toolchain-dir at the srt-slurm checkout the launcher pins, or add the recipe to the tree',
      };
    }
    recipe = (await toolchainRecipe(tree, file)) ?? undefined;
    if (!recipe)
      return {
        status: 'missing',
        value,
        path: file,
        reason: `${file} is neither in the tree nor in the toolchain checkout ${tree.toolchainDir}`,
        hint: fix,
      };
    source = 'toolchain';
  }
  if (recipe.variants.length === 0)
    return {
      status: 'invalid',
      value,
      path: recipe.path,
      reason: `${recipe.path} is not a valid recipe`,
      hint: 'fix the problems recipe/schema reports in it',
    };
  try {
    return {
      status: 'found',
      value,
      path: recipe.path,
      file: recipe,
      variant: selectVariant(recipe.doc.value, selector),
      source,
    };
  } catch (e) {
    return {
      status: 'bad-selector',
      value,
      path: recipe.path,
      reason: (e as Error).message,
      hint: 'name an existing variant: override_<name> or zip_override_<group>[<index>]',
    };
  }
}

/** A CONFIG_FILE value split into file and selector, with the path the file would have in the tree. */
export const recipeTreePath = (tree: Tree, value: string): ReturnType<typeof recipeInTree> =>
  recipeInTree(value, tree.recipesDir);

async function toolchainRecipe(tree: Tree, file: string): Promise<RecipeFile | null> {
  if (!tree.toolchainRecipes.has(file)) {
    const path = join(tree.toolchainDir!, file);
    const text = await readFile(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
      throw e;
    });
    tree.toolchainRecipes.set(file, text === undefined ? null : await loadRecipe(path, text));
  }
  return tree.toolchainRecipes.get(file) ?? null;
}

/** A CONFIG_FILE reference in a master config, with where it is written. */
export interface RecipeReference {
  key: string;
  config: MasterConfigEntry;
  entry: Record<string, unknown>;
  /** Path of the search-space entry in the config key. */
  entryPath: PathSegment[];
  /** Path of the setting itself. */
  settingPath: PathSegment[];
  setting: 'CONFIG_FILE' | 'EVAL_CONFIG_FILE';
  value: string;
  seq: { isl: number; osl: number } | undefined;
}

/** Every CONFIG_FILE / EVAL_CONFIG_FILE setting of the valid master configs. */
export function recipeReferences(tree: Tree): RecipeReference[] {
  const out: RecipeReference[] = [];
  for (const [key, config] of tree.catalog.entries) {
    for (const { entry, path } of searchSpaceEntries(config)) {
      const e = entry as Record<string, unknown>;
      for (const role of ['prefill', 'decode'] as const) {
        const worker = e[role];
        if (!isPlainMapping(worker)) continue;
        ((worker['additional-settings'] ?? []) as string[]).forEach((setting, k) => {
          const m = /^(CONFIG_FILE|EVAL_CONFIG_FILE)=(.+)$/.exec(setting);
          if (!m) return;
          const seq = path[1] === 'fixed-seq-len' ? config.scenarios['fixed-seq-len']![path[2] as number] : undefined;
          out.push({
            key,
            config,
            entry: e,
            entryPath: path,
            settingPath: [...path, role, 'additional-settings', k],
            setting: m[1] as 'CONFIG_FILE' | 'EVAL_CONFIG_FILE',
            value: m[2]!,
            seq: seq ? { isl: seq.isl, osl: seq.osl } : undefined,
          });
        });
      }
    }
  }
  return out;
}

/** The bytes of every YAML file below the recipes folder (none without one). */
async function recipeFiles(snapshot: Snapshot, recipesDir: string | undefined): Promise<Map<string, Buffer>> {
  const paths = recipesDir ? (await snapshot.list(recipesDir)).filter((p) => /\.ya?ml$/.test(p)) : [];
  return snapshot.readMany(paths);
}

/**
 * For the changelog gate outside a review: each side's descriptive row fields, read (runners,
 * launch material and recipe bytes, nothing parsed beyond runners.yaml) only when the gate
 * compares rows: a change that edits a config.
 */
export function descriptiveSides(
  base: Snapshot,
  head: Snapshot,
  options: TreeOptions = {},
): NonNullable<CheckOptions['descriptive']> {
  const side = async (snapshot: Snapshot): Promise<DescriptiveFields> => {
    const readFile = (path: string): Promise<Buffer | undefined> => snapshot.read(path);
    const [runners, recipesDir] = await Promise.all([
      loadRunners(options.runnerConfig ?? 'configs/runners.yaml', { readFile }),
      findRecipesDir((dir) => snapshot.list(dir), options.recipesDir),
    ]);
    return descriptiveFields({
      snapshot,
      runners: runners.value,
      recipesDir,
      recipeBytes: await recipeFiles(snapshot, recipesDir),
    });
  };
  return { fields: DESCRIPTIVE_FIELDS, base: () => side(base), head: () => side(head) };
}
