/** The sign-off verdict: every rule run over the gathered input, and the comment that reports it. */
import { parseChecklist } from './checklist.js';
import type { SignoffInput } from './input.js';
import type { CheckStatus, SignoffContext, SignoffFinding, SignoffRule } from './rule.js';
import { SIGNOFF_RULES } from './rules/index.js';

export interface RuleVerdict {
  id: string;
  check: number;
  name: string;
  status: CheckStatus;
  summary: string;
}

export interface SignoffVerdict {
  verdict: 'pass' | 'fail';
  headSha: string;
  author: string;
  rules: RuleVerdict[];
  findings: SignoffFinding[];
  /** What the reference verifier also asks that no rule here decides (a reviewer's judgement, or the network). */
  notChecked: string[];
}

/** Claims of the checklist a deterministic check cannot settle; the verdict names them so nobody reads PASS as covering them. */
export const NOT_CHECKED = [
  'Check 2: that the eval run used the same image as the changed config',
  'Check 3: that the linked recipe PR is merged and its major server args match (needs the network)',
  'Check 7: deprecated models and scenarios in MODELS.md',
  'Check 8: whether a declared architecture override cuts FLOPs',
  'Check 10: monkey-patching by means the diff does not show',
  'Check 11: that the pinned simulated acceptance length equals the committed golden curve',
  'Check 12: append-only changes touch only the appended points',
  'general code quality',
];

export function contextOf(input: SignoffInput): SignoffContext {
  const signoff = parseChecklist(input.comment.body);
  return { ...input, signoff, declarations: `${signoff.details.join('\n')}\n${input.pr.body}`.toLowerCase() };
}

export function verifySignoff(input: SignoffInput, rules: readonly SignoffRule[] = SIGNOFF_RULES): SignoffVerdict {
  const context = contextOf(input);
  const verdicts: RuleVerdict[] = [];
  const findings: SignoffFinding[] = [];
  for (const rule of rules) {
    const result = rule.check(context);
    verdicts.push({ id: rule.id, check: rule.checkNumber, name: rule.name, status: result.status, summary: result.summary });
    for (const f of result.findings) findings.push({ rule: rule.id, ...f, severity: f.severity ?? rule.severity });
  }
  return {
    verdict: verdicts.some((v) => v.status === 'fail') ? 'fail' : 'pass',
    headSha: input.pr.headSha,
    author: input.comment.author,
    rules: verdicts,
    findings,
    notChecked: NOT_CHECKED,
  };
}

/** The marker the reference's status step finds the verdict comment of a head commit by. */
export const verdictMarker = (headSha: string): string => `<!-- codeowner-signoff-verify sha=${headSha} -->`;

const EMOJI: Record<CheckStatus, string> = { pass: '✅', fail: '❌', 'n/a': '➖' };
const WORD: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', 'n/a': 'N/A' };

/** The verdict as the PR comment, in the reference verifier's layout (marker, header, one line per check). */
export function verdictMarkdown(v: SignoffVerdict): string {
  const lines = [verdictMarker(v.headSha)];
  if (v.verdict === 'pass') lines.push('## ✅✅✅ **Verdict: PASS** ✅✅✅', '');
  else {
    const failed = v.rules.filter((r) => r.status === 'fail');
    lines.push(
      '## ❌❌❌ **REJECTED** ❌❌❌',
      '',
      `@${v.author}: ${failed.map((r) => `${r.name} (\`${r.id}\`)`).join(', ')} not to standard.`,
      '',
    );
  }
  for (const r of v.rules) {
    lines.push(`${EMOJI[r.status]} Check ${r.check} (${r.name}): ${WORD[r.status]} — ${r.summary} \`${r.id}\``);
    if (r.status !== 'fail') continue;
    for (const f of v.findings.filter((x) => x.rule === r.id && x.severity === 'error')) {
      const at = f.file ? ` (${f.file}${f.line ? `:${f.line}` : ''})` : '';
      lines.push(`  - ${f.message}${at}${f.hint ? ` — fix: ${f.hint}` : ''}`);
    }
  }
  const warnings = v.findings.filter((f) => f.severity === 'warning');
  if (warnings.length > 0)
    lines.push(
      '',
      '<details><summary>Notes</summary>',
      '',
      ...warnings.map((w) => `- \`${w.rule}\`: ${w.message}`),
      '',
      '</details>',
    );
  lines.push('', `Not decided by this check (the reviewer's sign-off stands for them): ${v.notChecked.join('; ')}.`);
  return `${lines.join('\n')}\n`;
}
