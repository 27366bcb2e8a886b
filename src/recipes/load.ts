import { parseYaml, problemAt } from '../catalog/index.js';
import { schemaProblems } from '../catalog/schema-problems.js';
import type { PathSegment, Problem, YamlDocument } from '../catalog/index.js';
import { Recipe } from './schema.js';
import { VariantError, fileVariants, isOverrideFile } from './variants.js';
import type { Variant } from './variants.js';

/** A recipe file as read: its document, the variants it defines, and what is wrong with it. */
export interface RecipeFile {
  /** Path in the repository, e.g. `benchmarks/multi_node/srt-slurm-recipes/vllm/…/x.yaml`. */
  path: string;
  doc: YamlDocument;
  /** One for a plain recipe; the override and zip variants of an override file. */
  variants: Variant[];
  problems: Problem[];
}

/** Parse and validate a recipe (every variant of an override file). */
export async function loadRecipe(path: string, source: string | Buffer): Promise<RecipeFile> {
  const doc = await parseYaml(source, path);
  const file: RecipeFile = { path, doc, variants: [], problems: doc.problems.map((p) => ({ ...p, rule: 'recipe/schema' })) };
  // Syntax errors leave no value; duplicate keys do (PyYAML's: the last one wins).
  if (doc.value === null && doc.problems.length > 0) return file;
  const subject = { doc, base: [] as PathSegment[] };
  if (typeof doc.value !== 'object' || doc.value === null || Array.isArray(doc.value)) {
    file.problems.push(
      problemAt(subject, [], 'a recipe must be a mapping', {
        rule: 'recipe/schema',
        hint: 'start with name:, model:, resources:',
      }),
    );
    return file;
  }
  try {
    file.variants = fileVariants(doc.value);
  } catch (e) {
    if (!(e instanceof VariantError)) throw e;
    file.problems.push(
      problemAt(subject, [], e.message, {
        rule: 'recipe/schema',
        hint: 'see srtctl override files: base, override_<name>, zip_override_<group>',
      }),
    );
    return file;
  }
  const override = isOverrideFile(doc.value);
  const seen = new Set<string>();
  for (const variant of file.variants) {
    const result = Recipe.safeParse(variant.recipe);
    if (result.success) continue;
    for (const problem of schemaProblems(subject, Recipe, variant.recipe, result.error.issues)) {
      // An override file's variants share their base: report each problem once, at the base.
      const where = override ? relocate(doc, problem, variant) : problem;
      const id = `${where.line}:${where.col}:${where.message}`;
      if (seen.has(id)) continue;
      seen.add(id);
      file.problems.push({ ...where, rule: 'recipe/schema' });
    }
  }
  return file;
}

/** Locate an override variant's problem in the file: under `base:`, else at its override section. */
function relocate(doc: YamlDocument, problem: Problem, variant: Variant): Problem {
  const segments = (problem.path ?? '').split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '');
  const path = segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const section = variant.selector?.replace(/\[\d+\]$/, '');
  const inBase = doc.locate(['base', ...path]);
  const atSection = section ? doc.locate([section]) : inBase;
  const pos = inBase.line > 1 || !section ? inBase : atSection;
  return { ...problem, line: pos.line, col: pos.col, key: variant.selector };
}

/**
 * Where a recipe field (dotted path, e.g. `resources.decode_nodes`) is written: in an override
 * variant's own section when it sets it, else under `base:`.
 */
export function locateInRecipe(file: RecipeFile, dotted: string, variant?: Variant): { line: number; col: number } {
  const segments = dotted.split('.').filter(Boolean);
  const section = variant?.selector?.replace(/\[\d+\]$/, '');
  if (!section) return file.doc.locate(segments);
  const has = (path: string[]): boolean => {
    let node: unknown = file.doc.value;
    for (const s of path) {
      if (typeof node !== 'object' || node === null || !Object.prototype.hasOwnProperty.call(node, s)) return false;
      node = (node as Record<string, unknown>)[s];
    }
    return true;
  };
  const inBase = ['base', ...segments];
  return file.doc.locate(!has([section, ...segments]) && has(inBase) ? inBase : [section, ...segments]);
}
