import { allOwners, isCatchAll, isTeam, parseCodeowners, ruleFor } from '../codeowners.js';
import type { Codeowners } from '../codeowners.js';
import { CODEOWNERS_FILE } from '../input.js';
import { fail, pass } from '../rule.js';
import type { SignoffContext, SignoffRule } from '../rule.js';

const login = (owner: string): string => owner.replace(/^@/, '').toLowerCase();

/** Whether `signer` is one of `owners`: named, or a member of a named team whose members were given. */
function ownsBy(owners: readonly string[], signer: string, teams: Record<string, string[]> | undefined): boolean {
  return owners.some((o) =>
    isTeam(o) ? (teams?.[login(o)] ?? teams?.[o.slice(1)] ?? []).some((m) => login(m) === signer) : login(o) === signer,
  );
}

function unresolvedTeams(owners: readonly string[], teams: Record<string, string[]> | undefined): string[] {
  return owners.filter((o) => isTeam(o) && teams?.[login(o)] === undefined && teams?.[o.slice(1)] === undefined);
}

function checkOwner(context: SignoffContext, codeowners: Codeowners) {
  const signer = login(context.comment.author);
  const recognized = ownsBy([...allOwners(codeowners)], signer, context.teams);
  const findings: { message: string; file: string; hint: string }[] = [];
  for (const file of context.files) {
    const rule = ruleFor(codeowners, file.path);
    if (!rule || rule.owners.length === 0) continue;
    const covered = isCatchAll(rule) ? recognized : ownsBy(rule.owners, signer, context.teams);
    if (covered) continue;
    const teams = unresolvedTeams(isCatchAll(rule) ? [...allOwners(codeowners)] : rule.owners, context.teams);
    findings.push({
      message: `${file.path} is owned by ${rule.owners.join(' ')} (${CODEOWNERS_FILE} line ${rule.line}, \`${rule.pattern}\`); @${context.comment.author} is not one of them`,
      file: file.path,
      hint:
        teams.length > 0
          ? `if @${context.comment.author} is in ${teams.join(' or ')}, pass the team's members with --teams (gh api orgs/ORG/teams/TEAM/members); otherwise one of the owners signs off`
          : 'one of the owners of this path signs off',
    });
  }
  return findings;
}

export const ownerRule: SignoffRule = {
  id: 'signoff/owner',
  checkNumber: 0,
  name: 'CODEOWNER',
  severity: 'error',
  description: 'the sign-off author owns every changed file (CODEOWNERS, last matching line wins)',
  explanation:
    "Each changed path's owners are those of the last CODEOWNERS line that matches it (owners do not accumulate; a line without owners leaves a path unowned). A path owned by a specific line needs one of that line's owners; a path owned only by the catch-all (`*`) is covered by anyone CODEOWNERS names. Team membership counts only when given with --teams (the token that runs the check often cannot read it). Fix: have an owner of the named path sign off.",
  check(context) {
    if (context.codeowners === undefined)
      return fail(`no ${CODEOWNERS_FILE} on the default branch`, [
        { message: `the default branch has no ${CODEOWNERS_FILE}: nobody can be confirmed as an owner`, file: CODEOWNERS_FILE },
      ]);
    const codeowners = parseCodeowners(context.codeowners);
    const findings = checkOwner(context, codeowners);
    if (findings.length > 0) return fail(`@${context.comment.author} does not own ${findings.length} changed file(s)`, findings);
    return pass(`@${context.comment.author} owns the ${context.files.length} changed file(s)`);
  },
};
