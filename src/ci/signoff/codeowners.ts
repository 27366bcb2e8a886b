/**
 * `.github/CODEOWNERS` with GitHub's semantics: gitignore-style patterns (anchored when they hold
 * a `/` other than a trailing one, `*` within a path segment, `**` across segments, a trailing `/`
 * for a directory's contents), owners as `@user`, `@org/team` or an email, and the LAST matching
 * line wins. A line with a pattern and no owners un-owns what it matches.
 */

export interface OwnerRule {
  pattern: string;
  owners: string[];
  /** 1-based line in the file. */
  line: number;
  regex: RegExp;
}

export interface CodeownersProblem {
  line: number;
  message: string;
}

export interface Codeowners {
  rules: OwnerRule[];
  /** Lines GitHub skips as invalid (it reports them and ignores them). */
  problems: CodeownersProblem[];
}

const USER = /^@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const TEAM = /^@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\/[A-Za-z0-9._-]+$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export const isTeam = (owner: string): boolean => TEAM.test(owner);

/** The regular expression a CODEOWNERS pattern matches repository-relative paths with. */
export function patternRegex(pattern: string): RegExp {
  const directoryOnly = pattern.endsWith('/');
  let p = pattern.replace(/\/+$/, '');
  const anchored = p.startsWith('/') || p.includes('/');
  p = p.replace(/^\/+/, '');
  let body = '';
  for (let i = 0; i < p.length;) {
    if (p.startsWith('**/', i) && (i === 0 || p[i - 1] === '/')) {
      body += '(?:.*/)?';
      i += 3;
    } else if (p.startsWith('**', i) && (i === 0 || p[i - 1] === '/') && i + 2 === p.length) {
      body += '.*';
      i += 2;
    } else if (p[i] === '*') {
      body += '[^/]*';
      i += 1;
    } else if (p[i] === '?') {
      body += '[^/]';
      i += 1;
    } else {
      body += p[i]!.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  const prefix = anchored ? '' : '(?:.*/)?';
  // A pattern naming a directory owns everything below it; `dir/*` owns only dir's direct files (GitHub's documented exception).
  const suffix = directoryOnly ? '/.*' : p.endsWith('/*') ? '' : '(?:/.*)?';
  return new RegExp(`^${prefix}${body}${suffix}$`);
}

function invalidPattern(pattern: string): string | undefined {
  if (pattern.startsWith('!')) return 'negation (`!`) is not supported in CODEOWNERS';
  if (/[[\]]/.test(pattern)) return 'character ranges (`[...]`) are not supported in CODEOWNERS';
  if (pattern.startsWith('\\#')) return 'escaping a leading `#` is not supported in CODEOWNERS';
  return undefined;
}

export function parseCodeowners(text: string): Codeowners {
  const rules: OwnerRule[] = [];
  const problems: CodeownersProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const content = raw.replace(/(^|\s)#.*$/, '').trim();
    if (content === '') return;
    const [pattern, ...owners] = content.split(/\s+/) as [string, ...string[]];
    const bad =
      invalidPattern(pattern) ??
      owners
        .map((o) => (USER.test(o) || TEAM.test(o) || EMAIL.test(o) ? '' : `"${o}" is not @user, @org/team or an email`))
        .find(Boolean);
    if (bad) {
      problems.push({ line, message: `${pattern}: ${bad}; GitHub skips this line` });
      return;
    }
    rules.push({ pattern, owners, line, regex: patternRegex(pattern) });
  });
  return { rules, problems };
}

/** The rule that decides `path`'s owners (the last that matches), or undefined when none matches. */
export function ruleFor(codeowners: Codeowners, path: string): OwnerRule | undefined {
  for (let i = codeowners.rules.length - 1; i >= 0; i--) {
    const rule = codeowners.rules[i]!;
    if (rule.regex.test(path)) return rule;
  }
  return undefined;
}

/** `path`'s owners (empty: nobody owns it). */
export function ownersOf(codeowners: Codeowners, path: string): string[] {
  return ruleFor(codeowners, path)?.owners ?? [];
}

/** A catch-all rule (`*`, `**`, `/**`) is a default owner, not a per-file gatekeeper. */
export const isCatchAll = (rule: OwnerRule): boolean => ['*', '**', '/*', '/**', '/'].includes(rule.pattern);

/** Every owner named anywhere in the file. */
export function allOwners(codeowners: Codeowners): Set<string> {
  return new Set(codeowners.rules.flatMap((r) => r.owners));
}
