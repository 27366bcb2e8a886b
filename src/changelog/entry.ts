import * as z from 'zod';

/**
 * One perf-changelog.yaml entry (reference: `ChangelogEntry` in validation.py, `extra='forbid'`).
 * Appending an entry is what triggers a sweep of its config keys.
 */

const expect = (text: string) => ({ error: text });
const SCENARIO_TYPES = ['fixed-seq-len', 'agentic-coding'] as const;

export const ChangelogEntry = z.strictObject(
  {
    'config-keys': z
      .array(z.string(expect('a config key or glob')).min(1, expect('a config key or glob')), expect('a list of config keys'))
      .min(1, expect('a non-empty list of config keys')),
    description: z
      .array(z.string(expect('a string')), expect('a list of strings'))
      .min(1, expect('a non-empty list of description lines')),
    'pr-link': z.string(expect('a pull request URL')),
    'evals-only': z.boolean(expect('true or false')).optional(),
    'all-evals': z.boolean(expect('true or false')).optional(),
    'append-only': z.boolean(expect('true or false')).optional(),
    'eval-min-prefill-ep': z.int(expect('an integer >= 1')).gte(1, expect('an integer >= 1')).optional(),
    'scenario-type': z
      .array(z.enum(SCENARIO_TYPES, expect('"fixed-seq-len" or "agentic-coding"')), expect('a list of scenario types'))
      .min(1, expect('a non-empty list of scenario types'))
      .optional(),
  },
  expect('a mapping (a changelog entry)'),
);

export type ChangelogEntry = z.infer<typeof ChangelogEntry>;

/** Fields that select evals, which an append-only entry may not use. */
export const EVAL_SELECTION_FIELDS = ['evals-only', 'all-evals', 'eval-min-prefill-ep'] as const;

export const CANONICAL_PR_LINK = /^https:\/\/github\.com\/SemiAnalysisAI\/InferenceX\/pull\/\d+$/;
export const PR_LINK_PLACEHOLDERS = new Set(['XXX', 'https://github.com/SemiAnalysisAI/InferenceX/pull/XXX']);
export const prLink = (pr: number): string => `https://github.com/SemiAnalysisAI/InferenceX/pull/${pr}`;
