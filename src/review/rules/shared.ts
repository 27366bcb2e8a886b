import type { PathSegment, Problem } from '../../catalog/index.js';
import { compareEntryWithRecipe, locateInRecipe, planRecipe } from '../../recipes/index.js';
import type { Mismatch, Plan, RecipeFile, Variant } from '../../recipes/index.js';
import type { Finding, RuleContext } from '../rule.js';
import { subject } from '../rule.js';
import { recipeReferences, resolveRecipe } from '../tree.js';
import type { RecipeRef, RecipeReference, Tree } from '../tree.js';
import { once } from '../../util/once.js';

// What several rules share: locations, and computations done once per tree (util/once.ts).

/** Where a config key's field is written, as a finding's location. */
export function configLocation(
  tree: Tree,
  key: string,
  path: PathSegment[],
): Pick<Finding, 'file' | 'line' | 'col' | 'key' | 'path'> {
  const doc = tree.catalog.origin.get(key)!;
  const pos = doc.locate([key, ...path]);
  return { file: tree.snapshot.display(doc.file), line: pos.line, col: pos.col, key, path: formatSegments(path) };
}

/** Where a recipe's field is written (dotted path, e.g. `resources.decode_nodes`). */
export function recipeLocation(
  tree: Tree,
  file: RecipeFile,
  dotted: string,
  variant?: Variant,
): Pick<Finding, 'file' | 'line' | 'col' | 'key' | 'path'> {
  const pos = locateInRecipe(file, dotted, variant);
  const display = tree.recipeBytes.has(file.path) ? tree.snapshot.display(file.path) : file.path;
  return { file: display, line: pos.line, col: pos.col, key: variant?.selector, path: dotted };
}

export function fromProblem(p: Problem, subjects: string[]): Finding {
  const { severity: _severity, rule: _rule, ...rest } = p;
  return { ...rest, subjects };
}

const formatSegments = (path: PathSegment[]): string =>
  path.reduce<string>((out, s) => (typeof s === 'number' ? `${out}[${s}]` : out ? `${out}.${s}` : s), '');

export interface ResolvedReference {
  reference: RecipeReference;
  recipe: RecipeRef;
}

/** Every CONFIG_FILE of the tree, resolved once. */
export function resolvedReferences(tree: Tree): Promise<ResolvedReference[]> {
  return once(tree, 'references', () =>
    Promise.all(recipeReferences(tree).map(async (reference) => ({ reference, recipe: await resolveRecipe(tree, reference) }))),
  );
}

export interface EntryMismatch {
  reference: RecipeReference;
  recipePath: string;
  mismatch: Mismatch;
}

/** Master config ↔ recipe mismatches of every resolvable CONFIG_FILE. */
export function entryMismatches(tree: Tree): Promise<EntryMismatch[]> {
  return once(tree, 'mismatches', async () => {
    const out: EntryMismatch[] = [];
    for (const { reference, recipe } of await resolvedReferences(tree)) {
      if (reference.setting !== 'CONFIG_FILE' || recipe.status !== 'found') continue;
      const view = {
        config: reference.config,
        entry: reference.entry as never,
        seq: reference.seq,
        path: reference.entryPath,
        intent: { tracksMaxConcurrency: TRACKS_MAX.test(entryComments(tree, reference)) },
      };
      for (const mismatch of compareEntryWithRecipe(view, recipe.variant.recipe))
        out.push({ reference, recipePath: recipe.path, mismatch });
    }
    return out;
  });
}

/** InferenceX's wording for a conc-list that holds only the recipe's largest concurrency ("matrix tracks the max"). */
const TRACKS_MAX = /\btracks\s+(?:only\s+)?the\s+max(?:imum)?\b(?!-)/i;

/**
 * The comments of a search-space entry: the comment lines directly above its `- ` line, and a
 * trailing comment on its conc-list line. InferenceX's master-config schema is strict, so what
 * an entry means beyond its fields can only be said there.
 */
function entryComments(tree: Tree, reference: RecipeReference): string {
  const doc = tree.catalog.origin.get(reference.key)!;
  const lines = once(doc, 'lines', () => doc.text.split(/\r?\n/));
  const comments: string[] = [];
  const path = [reference.key, ...reference.entryPath];
  for (let n = doc.locate(path).line - 2; n >= 0 && /^\s*#/.test(lines[n]!); n--) comments.push(lines[n]!);
  if ('conc-list' in reference.entry) {
    const trailing = /\s#.*$/.exec(lines[doc.locate([...path, 'conc-list']).line - 1] ?? '');
    if (trailing) comments.push(trailing[0]);
  }
  return comments.join('\n');
}

/**
 * One rule per mismatch kind, all reading the shared comparison. Several recipes disagreeing with
 * the same field in the same way (a key-level router pin, say) make one finding that names them all.
 */
export async function mismatchFindings(context: RuleContext, rule: string): Promise<Finding[]> {
  const grouped = new Map<string, { finding: Finding; recipes: string[] }>();
  for (const { reference, recipePath, mismatch } of await entryMismatches(context.head)) {
    if (mismatch.rule !== rule) continue;
    const finding = {
      ...configLocation(context.head, reference.key, mismatch.configPath),
      message: mismatch.message,
      subjects: [subject.config(reference.key)],
    };
    const id = `${finding.file}:${finding.line}:${finding.col}:${finding.message}`;
    const group = grouped.get(id) ?? { finding: { ...finding, hint: mismatch.hint }, recipes: [] };
    grouped.set(id, group);
    group.recipes.push(`${recipePath} (${mismatch.recipePath})`);
    group.finding.subjects.push(subject.recipe(recipePath));
  }
  return [...grouped.values()].map(({ finding, recipes }) => ({
    ...finding,
    hint: `${finding.hint}; recipe${recipes.length > 1 ? 's' : ''}: ${recipes.join(', ')}`,
  }));
}

export interface RecipePlan {
  file: RecipeFile;
  variant: Variant;
  plan: Plan;
}

/** The plan of every recipe variant in the tree. */
export function recipePlans(tree: Tree): RecipePlan[] {
  return once(tree, 'plans', () =>
    [...tree.recipes.values()]
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .flatMap((file) => file.variants.map((variant) => ({ file, variant, plan: planRecipe(variant.recipe) }))),
  );
}

/** One rule per plan finding kind. */
export function planFindings(context: RuleContext, rule: string): Finding[] {
  return recipePlans(context.head).flatMap(({ file, variant, plan }) =>
    plan.findings
      .filter((f) => f.rule === rule)
      .map((f) => ({
        ...recipeLocation(context.head, file, f.path, variant),
        message: f.message,
        hint: f.hint,
        subjects: [subject.recipe(file.path)],
      })),
  );
}
