/**
 * A sign-off rule, shaped as review rules are (src/review/rule.ts): a stable id, a severity, a
 * line that says what it checks and a paragraph that says why and how to fix a finding. Each
 * re-derives one claim of the sign-off from the repository, the store and the recorded API data.
 */
import type { Checklist } from './checklist.js';
import type { SignoffInput } from './input.js';

export type CheckStatus = 'pass' | 'fail' | 'n/a';

export interface SignoffFinding {
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  /** The file (and 1-based line) the finding is about, when it is about one. */
  file?: string | undefined;
  line?: number | undefined;
  hint?: string | undefined;
}

/** What a rule concluded: its status, one line that says why, and the findings behind it. */
export interface RuleResult {
  status: CheckStatus;
  summary: string;
  /** Findings take the rule's severity unless they say otherwise. */
  findings: (Omit<SignoffFinding, 'rule' | 'severity'> & { severity?: SignoffFinding['severity'] })[];
}

export interface SignoffContext extends SignoffInput {
  /** The sign-off comment as a checklist. */
  signoff: Checklist;
  /** Where exceptions and declarations count: the additional detail section and the PR body, lowercased. */
  declarations: string;
}

export interface SignoffRule {
  /** Stable id, `signoff/<what>`. */
  id: string;
  /** The check of the reference verifier's prompt (.github/codeowner-signoff-verify-prompt.md) this rule decides. */
  checkNumber: number;
  /** Short name shown in the verdict. */
  name: string;
  severity: 'error' | 'warning';
  description: string;
  explanation: string;
  check(context: SignoffContext): RuleResult;
}

export const pass = (summary: string, findings: RuleResult['findings'] = []): RuleResult => ({
  status: 'pass',
  summary,
  findings,
});
export const notApplicable = (summary: string): RuleResult => ({ status: 'n/a', summary, findings: [] });
export const fail = (summary: string, findings: RuleResult['findings']): RuleResult => ({ status: 'fail', summary, findings });
