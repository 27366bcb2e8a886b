import { recipeRoutePath, routeRecipe } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import { recipeReferences, recipeTreePath } from '../tree.js';
import type { Tree } from '../tree.js';
import { clusterFile } from './cluster-location.js';
import { configLocation } from './shared.js';

/**
 * The clusters a runner label runs on, as far as routing is concerned: the profiles that list it,
 * else every Slurm profile. Simulated clusters run no recipe, so they route nothing. Undefined
 * when a profile that could not be read may be one of them (nothing can be said then).
 */
function routingClusters(tree: Tree, runner: string): ClusterProfile[] | undefined {
  const profiles = tree.clusters.flatMap((c) => (c.profile ? [c.profile] : []));
  const unreadable = tree.clusters.filter((c) => !c.profile);
  if (unreadable.some((c) => c.runners?.includes(runner))) return undefined;
  let serving = profiles.filter((p) => p.runners.includes(runner));
  if (serving.length === 0) {
    if (unreadable.some((c) => c.runners === undefined)) return undefined;
    serving = profiles.filter((p) => p.scheduler === 'slurm');
  }
  return serving.filter((p) => !p.simulate);
}

/** A glob a new rule could use: the recipe's first two directories (framework and model), and everything below. */
function suggestedGlob(path: string): string {
  const dirs = path.split('/').slice(0, -1);
  return dirs.length === 0 ? path : `${dirs.slice(0, 2).join('/')}/**`;
}

export const recipeUnrouted: Rule = {
  id: 'clusters/recipe-unrouted',
  severity: 'error',
  scope: 'tree',
  description: "every recipe a config runs is routed to a toolchain by the cluster profiles that serve the config's runner",
  explanation:
    "A multinode row runs the srt-slurm recipe its CONFIG_FILE names, with the toolchain (repository and pinned commit) the first matching routing rule of its cluster names. The clusters of a row are the profiles whose runners list the row's runner, or every Slurm profile when none does (simulated clusters run no recipe). A recipe no rule routes cannot run there: InferenceX's launchers fall through to a default branch of srt-slurm instead. Add a routing rule (match on framework, model-prefix, precision or a recipe glob) with the toolchain to that cluster's profile.",
  check: ({ head }) => {
    if (head.clusters.length === 0) return [];
    const out: Finding[] = [];
    for (const reference of recipeReferences(head)) {
      const { config } = reference;
      const clusters = routingClusters(head, config.runner);
      if (!clusters) continue;
      const recipe = recipeRoutePath(reference.value);
      for (const profile of clusters) {
        const request = {
          framework: config.framework,
          modelPrefix: config['model-prefix'],
          precision: config.precision,
          scenario: String(reference.entryPath[1]),
          specDecoding: String(reference.entry['spec-decoding'] ?? 'none'),
          recipe,
        };
        if (routeRecipe(profile, request)) continue;
        const file = clusterFile(head, profile);
        out.push({
          ...configLocation(head, reference.key, reference.settingPath),
          message: `${reference.setting}=${reference.value}: no routing rule of cluster ${profile.name} (${file}) matches ${config.framework} ${config['model-prefix']} ${config.precision} recipe ${recipe}`,
          hint: `add a routing rule to ${file}, e.g. { match: { framework: ${config.framework}, recipe: "${suggestedGlob(recipe)}" }, toolchain: { repo: <srt-slurm URL>, commit: <full 40-hex commit> } }`,
          subjects: [
            subject.config(reference.key),
            subject.recipe(recipeTreePath(head, reference.value).inTree),
            subject.file(file),
          ],
        });
      }
    }
    return out;
  },
};
