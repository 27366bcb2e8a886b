// Bash patterns (`[[ $X == pattern ]]`, `case` arms) as regular expressions.

const POSIX_CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9a-fA-F',
  space: '\\s',
  word: '\\w',
};
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** A character as itself inside a RegExp class. */
const classChar = (c: string): string => (/[\\\]^[-]/.test(c) ? `\\${c}` : c);
const compiledGlobs = new Map<string, RegExp>();

/** A bash pattern (`*`, `?`, `[...]`, `\x`) as a RegExp over a whole string. */
export function bashPatternRegExp(pattern: string): RegExp {
  let re = compiledGlobs.get(pattern);
  if (re) return re;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const bracket = c === '[' ? bracketExpression(pattern, i) : undefined;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (bracket) {
      source += bracket.source;
      i = bracket.end;
    } else source += escapeRegExp(c);
  }
  re = new RegExp(`^${source}$`);
  compiledGlobs.set(pattern, re);
  return re;
}

/** `[...]` from `open`: a RegExp class and the offset of its `]`, or undefined when unclosed (then `[` is literal). */
function bracketExpression(pattern: string, open: number): { source: string; end: number } | undefined {
  let i = open + 1;
  const negate = pattern[i] === '!' || pattern[i] === '^';
  if (negate) i++;
  let body = '';
  for (const first = i; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && i > first) return { source: `[${negate ? '^' : ''}${body}]`, end: i };
    const classEnd = c === '[' && pattern[i + 1] === ':' ? pattern.indexOf(':]', i + 2) : -1;
    if (classEnd > 0) {
      body += POSIX_CLASSES[pattern.slice(i + 2, classEnd)] ?? '';
      i = classEnd + 1;
    } else if (c === '\\' && i + 1 < pattern.length) body += classChar(pattern[++i]!);
    else body += c === '-' ? c : classChar(c);
  }
  return undefined;
}
