// Recipe globs (routing rules' `recipe`). `node:path`'s matchesGlob exists on Node 20.19 but is
// experimental there (it prints an ExperimentalWarning), so recipe globs use this small dialect: `**`
// as a whole path segment (any number of directories; at the end, anything below), `*` (any
// characters but `/`), `?` (one character but `/`); everything else is literal. Brackets and braces
// are rejected rather than silently taken literally.

const RECIPE_PREFIXES = ['recipes/', 'benchmarks/multi_node/srt-slurm-recipes/', 'srt-slurm-recipes/'];

/**
 * The path routing globs are matched against: a CONFIG_FILE value without its `:selector` and
 * without the recipes folder (`recipes/sglang/dsr1/x.yaml:override_a` → `sglang/dsr1/x.yaml`).
 */
export function recipeRoutePath(recipe: string): string {
  const colon = recipe.lastIndexOf(':');
  let path = colon > 0 && recipe.lastIndexOf('/') < colon ? recipe.slice(0, colon) : recipe;
  path = path.replace(/^\.\//, '');
  for (const prefix of RECIPE_PREFIXES) if (path.startsWith(prefix)) return path.slice(prefix.length);
  return path;
}

type Token =
  | { kind: 'lit'; char: string }
  | { kind: 'any1' }
  | { kind: 'star' }
  /** `**` at the end of a pattern: any string. */
  | { kind: 'globstar' }
  /** A `**` segment before others: zero or more whole directories. */
  | { kind: 'dirs' };

/** Why a recipe glob is not valid, or undefined when it is. */
export function globProblem(pattern: string): { message: string; hint: string } | undefined {
  if (pattern === '') return { message: 'an empty recipe glob', hint: 'write a glob such as "sglang/dsr1/**", or drop recipe' };
  if (/[[\]{}\\]/.test(pattern)) {
    return {
      message: `recipe glob "${pattern}" uses [ ], { } or \\, which recipe globs do not support`,
      hint: 'use ** (any directories), * (within a name) and ?; write one routing rule per alternative',
    };
  }
  if (pattern.startsWith('/')) {
    return { message: `recipe glob "${pattern}" is absolute`, hint: 'write it relative to the recipes folder: "sglang/dsr1/**"' };
  }
  const prefix = RECIPE_PREFIXES.find((p) => pattern.startsWith(p));
  if (prefix) {
    return {
      message: `recipe glob "${pattern}" starts with ${prefix}; recipe globs are relative to the recipes folder`,
      hint: `write "${pattern.slice(prefix.length)}"`,
    };
  }
  const bad = pattern.split('/').find((seg) => seg.includes('**') && seg !== '**');
  if (bad !== undefined) {
    return {
      message: `recipe glob "${pattern}": ** must be a whole path segment (got "${bad}")`,
      hint: 'write "**/" for any directories, or "*" for any characters within a name',
    };
  }
  return undefined;
}

function tokenize(pattern: string): Token[] {
  const out: Token[] = [];
  const segments = pattern.split('/');
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') {
      out.push(last ? { kind: 'globstar' } : { kind: 'dirs' });
      return;
    }
    for (const char of seg) out.push(char === '*' ? { kind: 'star' } : char === '?' ? { kind: 'any1' } : { kind: 'lit', char });
    if (!last) out.push({ kind: 'lit', char: '/' });
  });
  // Collapse `**` runs (`**/**/x`) and `*` runs: they mean the same.
  return out.filter((t, i) => !(i > 0 && t.kind === out[i - 1]!.kind && (t.kind === 'dirs' || t.kind === 'star')));
}

const compiled = new Map<string, RegExp>();

export function globToRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    const body = tokenize(pattern)
      .map((t) => {
        switch (t.kind) {
          case 'lit':
            return t.char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
          case 'any1':
            return '[^/]';
          case 'star':
            return '[^/]*';
          case 'globstar':
            return '.*';
          case 'dirs':
            return '(?:.*/)?';
        }
      })
      .join('');
    re = new RegExp(`^${body}$`);
    compiled.set(pattern, re);
  }
  return re;
}

export function globMatches(pattern: string, path: string): boolean {
  return globToRegExp(pattern).test(path);
}

/**
 * Whether every path `inner` matches is matched by `outer` (a sound check: when it says yes, it
 * is so; exotic overlaps may be missed). `outer` simulates `inner` token by token: a literal
 * or `?` of `inner` needs a literal, `?`, `*` or `**` of `outer` that produces it; a `*` of
 * `inner` needs a `*` or `**`; a `**` of `inner` needs a `**`. A `**` segment of `inner` before
 * others is empty or "anything, then a slash": `outer` must cover both forms.
 */
export function globCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  const a = tokenize(outer);
  return innerForms(tokenize(inner)).every((b) => simulates(a, b));
}

function innerForms(tokens: Token[]): Token[][] {
  const at = tokens.findIndex((t) => t.kind === 'dirs');
  if (at < 0) return [tokens];
  const before = tokens.slice(0, at);
  return innerForms(tokens.slice(at + 1)).flatMap((rest) => [
    [...before, ...rest],
    [...before, { kind: 'globstar' } as Token, { kind: 'lit', char: '/' } as Token, ...rest],
  ]);
}

/** Whether outer's tokens can produce every string inner's tokens (with no directory segment) can. */
function simulates(a: Token[], b: Token[]): boolean {
  const seen = new Set<string>();
  const isSlash = (t: Token | undefined): boolean => t?.kind === 'lit' && t.char === '/';
  // A single non-slash character (or `?`) of inner.
  const oneChar = (t: Token): boolean => t.kind === 'any1' || (t.kind === 'lit' && t.char !== '/');
  const visit = (i: number, j: number, inDirs: boolean): boolean => {
    const id = `${i}:${j}:${inDirs ? 1 : 0}`;
    if (seen.has(id)) return false;
    seen.add(id);
    const x = a[i];
    const y = b[j];
    if (inDirs) {
      // outer's directories segment, non-empty: any string, then a slash of inner ends it.
      if (y === undefined) return false;
      if (isSlash(y) && visit(i + 1, j + 1, false)) return true;
      return visit(i, j + 1, true);
    }
    if (x === undefined) return y === undefined;
    switch (x.kind) {
      case 'lit':
        return y?.kind === 'lit' && y.char === x.char && visit(i + 1, j + 1, false);
      case 'any1':
        return y !== undefined && oneChar(y) && visit(i + 1, j + 1, false);
      case 'star':
        if (visit(i + 1, j, false)) return true;
        return y !== undefined && (oneChar(y) || y.kind === 'star') && visit(i, j + 1, false);
      case 'globstar':
        if (visit(i + 1, j, false)) return true;
        return y !== undefined && visit(i, j + 1, false);
      case 'dirs':
        if (visit(i + 1, j, false)) return true;
        return visit(i, j, true);
    }
  };
  return visit(0, 0, false);
}
