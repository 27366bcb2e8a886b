import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PyRegexError, compilePy } from '../../src/pycompat/index.js';

interface PyErrorCase {
  type: string;
  msg: string;
  pos: number | null;
}
interface RegexCase {
  pattern: string;
  flags: string;
  input?: string;
  groups?: number;
  findall?: (string | string[])[];
  sub?: string;
  error?: PyErrorCase;
}
interface Golden {
  python: string;
  regex: RegexCase[];
  unsupported: { pattern: string; input: string; findall: (string | string[])[]; sub: string }[];
  templates: { pattern: string; input: string; repl: string; result?: string; error?: PyErrorCase }[];
  classes: Record<'w' | 'd' | 's' | 'unassigned', [number, number][]>;
}

/** Made by scripts/pycompat-golden.py (Python 3.11). */
const golden = JSON.parse(readFileSync(new URL('../fixtures/pycompat/golden.json', import.meta.url), 'utf8')) as Golden;

/**
 * Where JavaScript's matcher cannot give Python's answer (documented in regex.ts): the pattern
 * and input, and what findall gives here instead.
 */
const KNOWN_DIFFERENCES = new Map<string, (string | string[])[]>([
  // A group inside a repeated group is reset at each repetition (Python: [['b', 'a']]).
  ['((a)|b)+\0ab', [['b', '']]],
  // An iteration that matches '' ends a repeat without taking part (Python: the group is that last '').
  ['(a*)*\0aab', ['aa', '', '']],
  // A backreference to a group that did not take part matches '' (Python: no match).
  ['(a)?b\\1\0b', ['']],
  // JavaScript's `i` folds U+0345 to ι before testing [\p{L}\p{N}_] (Python: []).
  ['(?i)\\w\0\u0345', ['\u0345']],
  // (?i) backreferences compare by simple case folding; Python compares lower case, and İ lowers to i (Python: ['i', 'i']).
  ['(?i)(i)\\1\0iİ iI', ['i']],
]);

const key = (c: { pattern: string; input?: string }): string => `${c.pattern}\0${c.input ?? ''}`;
const show = (c: RegexCase): string =>
  `${JSON.stringify(c.pattern)}${c.flags ? ` (${c.flags})` : ''} on ${JSON.stringify(c.input)}`;

function thrown(f: () => unknown): PyRegexError {
  try {
    f();
  } catch (e) {
    if (e instanceof PyRegexError) return e;
    throw e;
  }
  throw new Error('expected a PyRegexError');
}

describe('compilePy against Python re (golden)', () => {
  it('was made by Python 3.11', () => {
    expect(golden.python).toMatch(/^3\.11\./);
  });

  const matching = golden.regex.filter((c) => !c.error);
  it.each(matching.map((c) => [show(c), c] as const))('%s', (_, c) => {
    const r = compilePy(c.pattern, { ignoreCase: c.flags.includes('i') });
    expect(r.groups).toBe(c.groups);
    expect(r.pattern).toBe(c.pattern);
    const known = KNOWN_DIFFERENCES.get(key(c));
    if (known) {
      expect(c.findall).not.toEqual(known);
      expect(r.findall(c.input!)).toEqual(known);
      return;
    }
    expect(r.findall(c.input!)).toEqual(c.findall);
    expect(r.sub(c.input!, '')).toBe(c.sub);
  });

  const invalid = golden.regex.filter((c) => c.error);
  it.each(invalid.map((c) => [c.pattern, c.error!] as const))('rejects %j as Python does', (pattern, error) => {
    const e = thrown(() => compilePy(pattern));
    expect(e.unsupported).toBe(false);
    expect(e.pythonMessage).toBe(error.msg);
    expect(e.position ?? null).toBe(error.pos);
    expect(e.message).toContain(pattern);
  });

  it.each(golden.templates.map((c) => [`${c.pattern} ${c.repl}`, c] as const))('re.sub template %s', (_, c) => {
    const r = compilePy(c.pattern);
    if (c.error) {
      const e = thrown(() => r.sub(c.input, c.repl));
      expect(e.pythonMessage).toBe(c.error.msg);
      expect(e.position ?? null).toBe(c.error.pos);
      expect(e.replacement).toBe(c.repl);
    } else {
      expect(r.sub(c.input, c.repl)).toBe(c.result);
    }
  });
});

describe('compilePy refuses what it cannot run', () => {
  const FEATURES: [pattern: string, message: string][] = [
    ['(?i:a)b', 'Python regex /(?i:a)b/ at position 0: scoped inline flags (?flags:…) and (?-flags:…) are not supported'],
    ['(?-i:a)', 'Python regex /(?-i:a)/ at position 0: scoped inline flags (?flags:…) and (?-flags:…) are not supported'],
    ['(?>a+)b', 'Python regex /(?>a+)b/ at position 0: (?>…) atomic groups are not supported'],
    ['a*+', 'Python regex /a*+/ at position 1: possessive quantifiers (*+, ++, ?+, {m,n}+) are not supported'],
    ['a++', 'Python regex /a++/ at position 1: possessive quantifiers (*+, ++, ?+, {m,n}+) are not supported'],
    ['a?+', 'Python regex /a?+/ at position 1: possessive quantifiers (*+, ++, ?+, {m,n}+) are not supported'],
    ['a{1,2}+', 'Python regex /a{1,2}+/ at position 1: possessive quantifiers (*+, ++, ?+, {m,n}+) are not supported'],
    ['(a)?(?(1)b|c)', 'Python regex /(a)?(?(1)b|c)/ at position 4: (?(…)…|…) conditionals are not supported'],
    ['\\N{DIGIT ONE}', 'Python regex /\\N{DIGIT ONE}/ at position 0: \\N{…} named characters are not supported'],
    ['[\\N{DIGIT ONE}]', 'Python regex /[\\N{DIGIT ONE}]/ at position 1: \\N{…} named characters are not supported'],
    ['(?ai)(a)\\1', 'Python regex /(?ai)(a)\\1/: backreferences under (?a) with IGNORECASE are not supported'],
    ['(?t)a', 'Python regex /(?t)a/ at position 0: (?t) template flags are not supported'],
  ];

  it('covers every unsupported case of the golden (which Python runs)', () => {
    expect(golden.unsupported.map((c) => c.pattern)).toEqual(FEATURES.map(([p]) => p));
  });

  it.each(FEATURES)('%s', (pattern, message) => {
    const e = thrown(() => compilePy(pattern));
    expect(e.unsupported).toBe(true);
    expect(e.message).toBe(message);
  });

  it('names Python errors with the pattern and the position', () => {
    expect(thrown(() => compilePy('a{2,1}')).message).toBe(
      'invalid Python regex /a{2,1}/: min repeat greater than max repeat at position 2',
    );
    expect(thrown(() => compilePy('(?<=a*)b')).message).toBe(
      'invalid Python regex /(?<=a*)b/: look-behind requires fixed-width pattern',
    );
    expect(thrown(() => compilePy('a').sub('a', '\\q')).message).toBe(
      "invalid replacement '\\\\q' for Python regex /a/: bad escape \\q at position 0",
    );
  });
});

describe('\\w, \\d and \\s are the character sets of Python 3.11', () => {
  const inRanges = (ranges: [number, number][]): ((cp: number) => boolean) => {
    const set = new Uint8Array(0x110000);
    for (const [lo, hi] of ranges) set.fill(1, lo, hi + 1);
    return (cp) => set[cp] === 1;
  };
  const unassigned = inRanges(golden.classes.unassigned);

  it.each(['w', 'd', 's'] as const)('\\%s and \\%s in and out of a class', (name) => {
    const python = inRanges(golden.classes[name]);
    const upper = name.toUpperCase();
    const regexes = [`\\${name}`, `[\\${name}]`, `[^\\${upper}]`].map((p) => compilePy(p).regexp);
    const complements = [`\\${upper}`, `[\\${upper}]`, `[^\\${name}]`].map((p) => compilePy(p).regexp);
    const wrong: string[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      // Node's Unicode tables are newer than Python 3.11's: a character Python does not know may count here.
      const expected = python(cp);
      for (const r of regexes)
        if (r.test(ch) !== expected && (expected || !unassigned(cp))) wrong.push(`${r.source} ${cp.toString(16)}`);
      for (const r of complements)
        if (r.test(ch) === expected && (expected || !unassigned(cp))) wrong.push(`${r.source} ${cp.toString(16)}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('(?a) makes them ASCII', () => {
    const [w, d, s] = ['\\w', '\\d', '\\s'].map((p) => compilePy(`(?a)${p}`).regexp);
    for (let cp = 0; cp < 0x3000; cp++) {
      const ch = String.fromCodePoint(cp);
      expect(w!.test(ch)).toBe(/^[0-9A-Za-z_]$/.test(ch));
      expect(d!.test(ch)).toBe(/^[0-9]$/.test(ch));
      expect(s!.test(ch)).toBe(/^[ \t\n\r\v\f]$/.test(ch));
    }
  });
});
