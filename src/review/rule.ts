import type { Problem } from '../catalog/index.js';
import type { NoSweep } from '../changelog/index.js';
import type { TreeChange } from './tree-change.js';
import type { Tree } from './tree.js';

/**
 * A review rule, in the manner of an ESLint rule: metadata that explains it, and a check that
 * returns findings with locations. The runner knows nothing about any particular rule.
 */
export interface Rule {
  /** Stable id, `<area>/<what>`, e.g. `recipe/dynamo-install-disabled`. */
  id: string;
  /** `error` blocks a change; `warning` is reported and does not. */
  severity: 'error' | 'warning';
  /** `tree` rules check any tree (`frontier lint`); `change` rules need the base too (`frontier review`). */
  scope: 'tree' | 'change';
  /** One line: what the rule checks. */
  description: string;
  /** One paragraph: why it matters and how to fix a finding. */
  explanation: string;
  check(context: RuleContext): Finding[] | Promise<Finding[]>;
}

/** A finding: a located problem, plus what it concerns (to tell new findings from pre-existing ones). */
export interface Finding extends Omit<Problem, 'severity' | 'rule'> {
  /**
   * What the finding is about: config keys, recipes, changelog lines, files (see `subject`). A
   * review counts a finding as the change's own when one of these was touched by it.
   */
  subjects: string[];
}

export interface RuleContext {
  /** The tree under review. */
  head: Tree;
  /** The tree before the change (review only; absent for `frontier lint`). */
  base?: Tree | undefined;
  /** What the change did (review only). */
  change?: TreeChange | undefined;
  /** Pull request number, for the changelog rules. */
  pr?: number | undefined;
  /** The change's opt-out of its sweep, for the pairing rules. */
  noSweep?: NoSweep | undefined;
}

/** A finding with its rule's id and severity: what reports show. */
export interface RuleFinding extends Finding {
  rule: string;
  severity: 'error' | 'warning';
}

export const subject = {
  config: (key: string): string => `config:${key}`,
  recipe: (path: string): string => `recipe:${path}`,
  /** A line of the head changelog. */
  changelogLine: (line: number): string => `changelog:${line}`,
  /** The changelog change as a whole (history, sweep and pairing findings). */
  changelogChange: 'changelog:change',
  /** An srt-slurm clone of a launcher, by its file and the signature of its text. */
  route: (path: string, signature: string): string => `route:${path}:${signature}`,
  /** A file as findings display it (catalog problems that belong to no key). */
  file: (display: string): string => `file:${display}`,
};
