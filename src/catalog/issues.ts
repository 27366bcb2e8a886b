import { formatPath } from './problems.js';
import type { PathSegment, Problem } from './problems.js';
import type { YamlDocument } from './yaml/index.js';

/** Where problems of one top-level key are reported: its document and the path prefix. */
export interface Subject {
  doc: YamlDocument;
  /** Path of the subject inside the document (`[configKey]`, or `[]` for a whole file). */
  base: PathSegment[];
  /** Key shown in messages (config key or runner label); none for a whole file. */
  key?: string;
}

export function problemAt(
  subject: Subject,
  path: readonly PathSegment[],
  message: string,
  extra: { rule: string; hint?: string | undefined; severity?: Problem['severity']; keyName?: string },
): Problem {
  const full = [...subject.base, ...path];
  const pos = extra.keyName !== undefined ? subject.doc.locateKey(full, extra.keyName) : subject.doc.locate(full);
  const shownPath = extra.keyName !== undefined ? [...path, extra.keyName] : path;
  return {
    severity: extra.severity ?? 'error',
    rule: extra.rule,
    file: subject.doc.file,
    line: pos.line,
    col: pos.col,
    key: subject.key,
    path: formatPath(shownPath),
    message,
    hint: extra.hint,
  };
}

/** The allowed name nearest to a misspelt one, if it is plausibly a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}
