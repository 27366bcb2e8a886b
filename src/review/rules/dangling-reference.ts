import { DEFAULT_CHANGELOG } from '../../changelog/index.js';
import type { Finding, Rule, RuleContext } from '../rule.js';
import { subject } from '../rule.js';
import { once } from '../../util/once.js';
import { configLocation, resolvedReferences } from './shared.js';

/** Files searched for mentions of a deleted recipe (launchers, scripts, docs, other recipes). */
const TEXT_FILE = /\.(ya?ml|sh|bash|py|md|json|toml|txt|cfg|ini|j2|slurm|sbatch)$/;
/** Larger files are not searched (a text file in an InferenceX tree is under 100 KB; a bigger one is data). */
export const MAX_TEXT_BYTES = 1 << 20;

/** The spellings a recipe is referred to by: its tree path and the `recipes/…` path srtctl sees. */
function spellings(context: RuleContext, path: string): string[] {
  const dir = context.base?.recipesDir;
  const relative = dir && path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : undefined;
  return relative ? [path, `recipes/${relative}`] : [path];
}

/** Recipes the change deleted, by every spelling that refers to them. */
export function deletedRecipes(context: RuleContext): Map<string, string> {
  return once(context, 'deleted-recipes', () => {
    const bySpelling = new Map<string, string>();
    for (const path of context.change?.recipes.removed ?? []) for (const s of spellings(context, path)) bySpelling.set(s, path);
    return bySpelling;
  });
}

/** The recipe a CONFIG_FILE value names, when the change deleted it. */
export function deletedTarget(context: RuleContext, value: string): string | undefined {
  const colon = value.lastIndexOf(':');
  return deletedRecipes(context).get(colon > 0 ? value.slice(0, colon) : value);
}

export const danglingReference: Rule = {
  id: 'recipe/dangling-reference',
  severity: 'error',
  scope: 'change',
  description: 'a recipe the change deletes is no longer referenced anywhere',
  explanation:
    'A deleted recipe that a master config (CONFIG_FILE), a launcher, a script or another recipe still names fails the job that reaches it, usually after it has waited for its nodes. Point the reference at the recipe that replaces it, or keep the recipe.',
  check: async (context) => {
    const deleted = deletedRecipes(context);
    if (deleted.size === 0) return [];
    const { head } = context;
    const out: Finding[] = [];
    for (const { reference } of await resolvedReferences(head)) {
      const target = deletedTarget(context, reference.value);
      if (!target) continue;
      out.push({
        ...configLocation(head, reference.key, reference.settingPath),
        message: `${reference.setting}=${reference.value} names ${target}, which this change deletes`,
        hint: 'point the setting at the recipe that replaces it, or keep the recipe',
        subjects: [subject.config(reference.key), subject.recipe(target)],
      });
    }
    // Every other text file: scripts, launchers, docs, recipes. Loaded master configs were read
    // above, and changelog descriptions are history, not references.
    const skip = new Set([...head.catalog.origin.values()].map((doc) => doc.file));
    skip.add(head.options.changelogFile ?? DEFAULT_CHANGELOG);
    const paths = (await head.snapshot.list('')).filter((p) => TEXT_FILE.test(p) && !skip.has(p));
    const pattern = new RegExp([...deleted.keys()].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    for (const [path, bytes] of await head.snapshot.readMany(paths)) {
      if (bytes.length > MAX_TEXT_BYTES) continue;
      const lines = bytes.toString('utf8').split('\n');
      lines.forEach((text, i) => {
        for (const match of text.matchAll(pattern)) {
          const target = deleted.get(match[0])!;
          out.push({
            file: head.snapshot.display(path),
            line: i + 1,
            col: match.index + 1,
            message: `${match[0]} is mentioned here, but this change deletes ${target}`,
            hint: 'update the reference to the recipe that replaces it, or keep the recipe',
            subjects: [subject.recipe(target)],
          });
        }
      });
    }
    return out;
  },
};
