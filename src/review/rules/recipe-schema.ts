import type { Rule } from '../rule.js';
import { subject } from '../rule.js';
import { fromProblem } from './shared.js';

export const recipeSchema: Rule = {
  id: 'recipe/schema',
  severity: 'error',
  scope: 'tree',
  description: 'every srt-slurm recipe is valid YAML and a valid srtctl recipe (no unknown keys)',
  explanation:
    'srtctl rejects a recipe with an unknown or mistyped field only when the job is submitted, and PyYAML silently keeps the last of two duplicate keys. Fix the field the finding names (the hint suggests the likely intended key).',
  check: ({ head }) =>
    [...head.recipes.values()].flatMap((file) =>
      file.problems.map((p) => fromProblem({ ...p, file: head.snapshot.display(p.file) }, [subject.recipe(file.path)])),
    ),
};
