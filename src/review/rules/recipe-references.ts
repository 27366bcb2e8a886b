import type { Finding, Rule, RuleContext } from '../rule.js';
import { subject } from '../rule.js';
import { deletedTarget } from './dangling-reference.js';
import { configLocation, resolvedReferences } from './shared.js';

async function referenceFindings(context: RuleContext, statuses: string[]): Promise<Finding[]> {
  return (
    (await resolvedReferences(context.head))
      // A recipe the change deleted is recipe/dangling-reference's finding.
      .filter(({ recipe, reference }) => statuses.includes(recipe.status) && !deletedTarget(context, reference.value))
      .map(({ reference, recipe }) => ({
        ...configLocation(context.head, reference.key, reference.settingPath),
        message: `${reference.setting}=${reference.value}: ${recipe.status === 'found' ? '' : recipe.reason}`,
        hint: recipe.status === 'found' ? '' : recipe.hint,
        subjects: [subject.config(reference.key), subject.recipe(recipe.path)],
      }))
  );
}

export const configFileMissing: Rule = {
  id: 'recipe/config-file-missing',
  severity: 'error',
  scope: 'tree',
  description: 'every CONFIG_FILE names a recipe (and variant) that exists',
  explanation:
    'A multinode entry runs the srt-slurm recipe its CONFIG_FILE names; a missing file or variant fails the job after it has waited for its nodes. Add the recipe or fix the path or selector.',
  check: (context) => referenceFindings(context, ['missing', 'bad-selector', 'invalid']),
};

export const configFileUnverifiable: Rule = {
  id: 'recipe/config-file-unverifiable',
  severity: 'warning',
  scope: 'tree',
  description: 'a CONFIG_FILE outside the tree can only be checked against the srt-slurm checkout',
  explanation:
    "InferenceX's launchers overlay the tree's recipes onto a pinned srt-slurm checkout, so a recipes/… path that is not in the tree may be one of srt-slurm's own. Without that checkout (--toolchain-dir) nothing about it can be checked: it is reported, never assumed fine.",
  check: (context) => referenceFindings(context, ['unverifiable']),
};
