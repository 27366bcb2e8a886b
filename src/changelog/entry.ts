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

/** The repository whose pull requests entries link to, unless a check is told another (`--repository`). */
export const DEFAULT_REPOSITORY = 'SemiAnalysisAI/InferenceX';

/** A pull request's canonical link in `repository` (owner/name); `pr` may be a placeholder (XXX). */
export const prLink = (pr: number | string, repository = DEFAULT_REPOSITORY): string =>
  `https://github.com/${repository}/pull/${pr}`;

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `link` is a canonical pull-request link of `repository`. */
export const isCanonicalPrLink = (link: string, repository = DEFAULT_REPOSITORY): boolean =>
  new RegExp(`^https://github\\.com/${escaped(repository)}/pull/\\d+$`).test(link);

/** Whether `link` stands for "this pull request, once it exists": XXX, or the repository's pull/XXX. */
export const isPrLinkPlaceholder = (link: string, repository = DEFAULT_REPOSITORY): boolean =>
  link === 'XXX' || link === prLink('XXX', repository);
