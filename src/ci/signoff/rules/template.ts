import { SIGNOFF_PHRASE, compareChecklist, parseChecklist, templateBlock } from '../checklist.js';
import { CHECKLIST_FILE } from '../input.js';
import { fail, pass } from '../rule.js';
import type { RuleResult, SignoffRule } from '../rule.js';

/** An item as findings quote it: links as their text, cut to a line. */
function short(item: string): string {
  const text = item.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text.length > 90 ? `${text.slice(0, 87)}...` : text;
}

export const templateRule: SignoffRule = {
  id: 'signoff/template',
  checkNumber: 5,
  name: 'latest template',
  severity: 'error',
  description: `the sign-off carries every item of the current ${CHECKLIST_FILE} template, checked`,
  explanation: `The sign-off's items are paired with the template's (markup ignored, small wording drift tolerated). A template item the sign-off lacks means an old copy was pasted; an unchecked item must be explained in the additional detail section; an item no longer in the template is reported as stale. Fix: paste the current template from ${CHECKLIST_FILE} and check or explain every item.`,
  check(context) {
    const block = context.checklist === undefined ? undefined : templateBlock(context.checklist);
    if (block === undefined)
      return fail(`no template in ${CHECKLIST_FILE} on the default branch`, [
        { message: `${CHECKLIST_FILE} on the default branch has no fenced block under "## Template"`, file: CHECKLIST_FILE },
      ]);
    const findings: RuleResult['findings'] = [];
    if (!context.comment.body.includes(SIGNOFF_PHRASE))
      findings.push({ severity: 'error', message: `the comment does not open with "${SIGNOFF_PHRASE}"` });
    const template = parseChecklist(block);
    // Items are numbered within the block; findings point at the line of the file.
    const offset = context.checklist!.slice(0, context.checklist!.indexOf(block)).split('\n').length - 1;
    const { missing, stale, unchecked } = compareChecklist(template, context.signoff);
    for (const item of missing)
      findings.push({
        severity: 'error',
        message: `missing item: "${short(item.text)}"`,
        file: CHECKLIST_FILE,
        line: item.line + offset,
        hint: `paste the current template from ${CHECKLIST_FILE}`,
      });
    const explained = context.signoff.details.length > 0;
    for (const item of unchecked)
      findings.push({
        severity: explained ? 'warning' : 'error',
        message: `unchecked item: "${short(item.text)}"${explained ? ' (the additional detail section is filled in; read it for the reason)' : ''}`,
        hint: explained ? undefined : 'check the item, or say in the additional detail section why it cannot be satisfied',
      });
    for (const item of stale)
      findings.push({ severity: 'warning', message: `item no longer in the template: "${short(item.text)}"` });
    const signer = context.comment.author.toLowerCase();
    if (context.signoff.signed === '')
      findings.push({
        severity: 'error',
        message: 'the "Signed:" line is missing or still the placeholder',
        hint: 'sign with your GitHub username',
      });
    else if (context.signoff.signed.replace(/^@/, '').toLowerCase() !== signer)
      findings.push({
        severity: 'warning',
        message: `signed "${context.signoff.signed}", but the comment is by @${context.comment.author}`,
      });
    const errors = findings.filter((f) => f.severity === 'error');
    if (errors.length > 0)
      return fail(
        errors
          .map((f) => f.message)
          .slice(0, 2)
          .join('; ') + (errors.length > 2 ? `; and ${errors.length - 2} more` : ''),
        findings,
      );
    return pass(
      `all ${template.items.length} template items present${unchecked.length > 0 ? `, ${unchecked.length} unchecked with an explanation` : ''}`,
      findings,
    );
  },
};
