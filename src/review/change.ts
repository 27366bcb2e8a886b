import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_CHANGELOG, readChange } from '../changelog/index.js';
import { subject } from './rule.js';
import { treeLaunchers } from '../clusters/index.js';
import { resolvedReferences } from './rules/shared.js';
import { powerWatchedFiles } from './rules/power-lane.js';
import { specdecWatchedFiles } from './rules/specdec.js';
import type { Tree } from './tree.js';
import type { TreeChange } from './tree-change.js';

export function isEmptyChange(change: TreeChange): boolean {
  const { keys, recipes, changelog, files, launchers } = change;
  return (
    [keys.added, keys.removed, keys.edited, recipes.added, recipes.removed, recipes.changed, files, launchers.changed].every(
      (l) => l.length === 0,
    ) && !changelog.changed
  );
}

export async function compareTrees(base: Tree, head: Tree): Promise<TreeChange> {
  const file = head.options.changelogFile ?? DEFAULT_CHANGELOG;
  const sorted = (items: Iterable<string>): string[] => [...items].sort();
  const keys = {
    added: sorted([...head.rawConfigs.keys()].filter((k) => !base.rawConfigs.has(k))),
    removed: sorted([...base.rawConfigs.keys()].filter((k) => !head.rawConfigs.has(k))),
    edited: sorted(
      [...head.rawConfigs.keys()].filter(
        (k) => base.rawConfigs.has(k) && !isDeepStrictEqual(base.rawConfigs.get(k), head.rawConfigs.get(k)),
      ),
    ),
  };
  const recipes = {
    added: sorted([...head.recipeBytes.keys()].filter((p) => !base.recipeBytes.has(p))),
    removed: sorted([...base.recipeBytes.keys()].filter((p) => !head.recipeBytes.has(p))),
    changed: sorted(
      [...head.recipeBytes.keys()].filter(
        (p) => base.recipeBytes.has(p) && !base.recipeBytes.get(p)!.equals(head.recipeBytes.get(p)!),
      ),
    ),
  };
  const [baseLog, headLog] = await Promise.all([base.snapshot.read(file), head.snapshot.read(file)]);
  let addedLines: number[] = [];
  if (headLog && !(baseLog ?? Buffer.alloc(0)).equals(headLog)) {
    const diff = await readChange(base.snapshot, head.snapshot, file);
    addedLines = diff.lines.filter((l) => l.kind === '+').map((l) => l.line);
  }
  const changelog = { file, changed: !(baseLog && headLog ? baseLog.equals(headLog) : baseLog === headLog), addedLines };
  return { keys, recipes, changelog, files: await changedCatalogFiles(base, head), launchers: await changedRoutes(base, head) };
}

/** The srt-slurm clones of the head's launchers whose text is not in the base's (new or edited). */
async function changedRoutes(base: Tree, head: Tree): Promise<TreeChange['launchers']> {
  const [before, after] = await Promise.all([treeLaunchers(base), treeLaunchers(head)]);
  const known = new Set([...before.values()].flatMap((l) => l.routes.map((r) => subject.route(l.path, r.signature))));
  const routes = new Set<string>();
  const changed = new Set<string>();
  for (const launcher of after.values()) {
    for (const route of launcher.routes) {
      const id = subject.route(launcher.path, route.signature);
      if (known.has(id)) continue;
      routes.add(id);
      changed.add(launcher.path);
    }
  }
  return { changed: [...changed].sort(), routes: [...routes].sort() };
}

async function changedCatalogFiles(base: Tree, head: Tree): Promise<string[]> {
  const paths = new Set([
    ...(head.options.configFiles ?? (await head.snapshot.masterConfigs())),
    ...(base.options.configFiles ?? (await base.snapshot.masterConfigs())),
    head.options.runnerConfig ?? 'configs/runners.yaml',
    ...head.clusterFiles,
    ...base.clusterFiles,
    ...[...(await treeLaunchers(head)).values(), ...(await treeLaunchers(base)).values()].map((l) => l.path),
    // Where the power rules can find a problem outside launchers and recipes (workflows, a copied pin).
    ...(await powerWatchedFiles(head)),
    // Benchmark scripts that pin synthetic acceptance, and the golden curves they are judged by.
    ...(await specdecWatchedFiles(head)),
    ...(await specdecWatchedFiles(base)),
  ]);
  const out: string[] = [];
  for (const path of paths) {
    const [a, b] = await Promise.all([base.snapshot.read(path), head.snapshot.read(path)]);
    if (!(a && b ? a.equals(b) : a === b)) out.push(head.snapshot.display(path));
  }
  return out.sort();
}

/**
 * The subjects a change touches: its keys, recipes, changelog lines and files, plus what refers
 * to them (keys whose CONFIG_FILE is a touched recipe, recipes a touched key runs).
 */
export async function touchedSubjects(change: TreeChange, head: Tree): Promise<Set<string>> {
  const touched = new Set<string>();
  const keys = new Set([...change.keys.added, ...change.keys.removed, ...change.keys.edited]);
  const recipes = new Set([...change.recipes.added, ...change.recipes.removed, ...change.recipes.changed]);
  for (const { reference, recipe } of await resolvedReferences(head)) {
    if (recipes.has(recipe.path)) touched.add(subject.config(reference.key));
    if (keys.has(reference.key)) touched.add(subject.recipe(recipe.path));
  }
  for (const key of keys) touched.add(subject.config(key));
  for (const path of recipes) touched.add(subject.recipe(path));
  for (const line of change.changelog.addedLines) touched.add(subject.changelogLine(line));
  if (change.changelog.changed) touched.add(subject.changelogChange);
  for (const file of change.files) touched.add(subject.file(file));
  for (const route of change.launchers.routes) touched.add(route);
  return touched;
}
