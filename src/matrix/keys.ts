import { MatrixError } from './types.js';

/**
 * Resolve `--config-keys`: exact names, or fnmatch globs (`*`, `?`, `[seq]`, `[!seq]`) that
 * match in catalog order. Results are de-duplicated in order; a missing key or an empty glob
 * is an error listing the available keys.
 */
export function expandConfigKeys(patterns: readonly string[], available: readonly string[]): string[] {
  const seen = new Set<string>();
  const availableSet = new Set(available);
  const listing = (): string => `Available keys: ${[...available].sort().join(', ')}`;
  for (const pattern of patterns) {
    if (pattern.includes('*') || pattern.includes('?')) {
      const re = fnmatchRegExp(pattern);
      const matches = available.filter((k) => re.test(k));
      if (matches.length === 0) throw new MatrixError(`Pattern '${pattern}' matched no config keys.\n${listing()}`);
      for (const m of matches) seen.add(m);
    } else {
      if (!availableSet.has(pattern)) throw new MatrixError(`Config key(s) not found: ${pattern}.\n${listing()}`);
      seen.add(pattern);
    }
  }
  return [...seen];
}

/** Python's fnmatch.translate: a whole-string match. */
export function fnmatchRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) {
        re += '\\[';
      } else {
        let body = pattern.slice(i + 1, j).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        else if (body.startsWith('^')) body = `\\${body}`;
        re += `[${body}]`;
        i = j;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^(?:${re})$`, 's');
}
