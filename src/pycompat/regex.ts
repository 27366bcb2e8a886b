/**
 * Python's `re` (3.11, str patterns) run by JavaScript's RegExp: `compilePy` parses the pattern as
 * `re._parser` does (same errors, same positions) and writes an equivalent `u` RegExp; `findall`
 * and `sub` walk the matches as `_sre` does (an empty match may follow a non-empty one; after an
 * empty match the next one must not be empty at the same place), on a worker thread within
 * PY_REGEX_TIME_LIMIT_MS (`regex-runner.ts`): a pattern that backtracks without end on a text
 * throws PyRegexTimeoutError instead of hanging the process.
 *
 * What JavaScript cannot do is refused with a PyRegexError naming the feature: atomic groups,
 * possessive quantifiers, conditionals, scoped flags `(?i:…)`, `\N{…}`, `(?t)`, and backreferences
 * under ASCII + IGNORECASE. Known differences, all from JavaScript's matcher:
 * - a group inside a repeated group is reset at each repetition (`((a)|b)+` on "ab": Python's
 *   group 2 is "a", here it did not take part: "");
 * - a repetition that matches "" is dropped (`(a*)*` on "aab": Python's group 1 is the last, empty
 *   repetition "", here "aa");
 * - a backreference to a group that did not take part matches "" (Python fails: `(a)?b\1` on "b");
 * - `(?i)\w` also matches U+0345 (JavaScript folds it to ι before testing the class);
 * - `(?i)` backreferences compare by simple case folding (Python compares lower case: "i" vs "İ");
 * - `\w`, `\d` and case folding follow Node's Unicode tables, so characters assigned after Unicode
 *   14.0 (Python 3.11's) count as letters and digits here and not in Python.
 */
import { pyIntFromString, pyRepr } from './builtins.js';
import { boundedMatches } from './regex-runner.js';

/** The pattern is invalid in Python (`pythonMessage` is `re.error`'s text), or uses a feature not supported here. */
export class PyRegexError extends Error {
  constructor(
    readonly pattern: string,
    readonly pythonMessage: string,
    readonly position: number | undefined,
    readonly unsupported = false,
    /** Set when the error is in re.sub's replacement template (`position` is then within it). */
    readonly replacement?: string,
  ) {
    const where = position === undefined ? '' : ` at position ${position}`;
    const what =
      replacement === undefined
        ? `Python regex /${pattern}/`
        : `replacement ${pyRepr(replacement)} for Python regex /${pattern}/`;
    super(unsupported ? `${what}${where}: ${pythonMessage}` : `invalid ${what}: ${pythonMessage}${where}`);
    this.name = 'PyRegexError';
  }
}

export interface PyRegex {
  /** The Python pattern as given. */
  readonly pattern: string;
  /** The number of capturing groups (Python's `.groups`). */
  readonly groups: number;
  /** The JavaScript translation (without the `g` flag). */
  readonly regexp: RegExp;
  /** re.findall: no groups → whole matches; one group → that group ('' when it did not take part); several → an array per match. */
  findall(s: string): (string | string[])[];
  /**
   * re.sub(pattern, repl, s): `repl` is a Python template (`\1`, `\g<name>`, `\n`…; a group that did
   * not take part gives ''), so a literal backslash is written `\\`.
   */
  sub(s: string, repl: string): string;
}

const MAXREPEAT = 4294967295;
const DIGITS = new Set('0123456789');
const OCTDIGITS = new Set('01234567');
const HEXDIGITS = new Set('0123456789abcdefABCDEF');
const WHITESPACE = new Set(' \t\n\r\v\f');
const SPECIAL = new Set('.\\[{()*+?^$|');
const REPEAT = new Set('*+?{');
const FLAG_CHARS = new Set('iLmsxatu');
const ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
const isAsciiLetter = (c: string): boolean => /^[A-Za-z]$/.test(c);
const isIdentifier = (name: string): boolean => /^[\p{XID_Start}_]\p{XID_Continue}*$/u.test(name);
const cpLength = (s: string): number => Array.from(s).length;

/** The same four letters under Python's IGNORECASE (JavaScript folds only I/i together). */
const TURKISH_I = [0x49, 0x69, 0x130, 0x131];

const SYNTAX = new Set('^$\\.*+?()[]{}|/');
/** A code point as `u`-mode RegExp text: syntax escaped (and `-` in a class), controls and separators as \u{…}. */
function char(c: number, inClass = false): string {
  const s = String.fromCodePoint(c);
  if (SYNTAX.has(s) || (inClass && s === '-')) return `\\${s}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(s) ? s : `\\u{${c.toString(16)}}`;
}

const PY_SPACE = '\\t-\\r\\u{1c}-\\u{20}\\u{85}\\u{a0}\\u{1680}\\u{2000}-\\u{200a}\\u{2028}\\u{2029}\\u{202f}\\u{205f}\\u{3000}';
/** Class bodies of \d, \s, \w: str.isdecimal, str.isspace, str.isalnum or "_" (Python's unicode tables). */
const CATEGORY_BODY = {
  unicode: { d: '\\p{Nd}', s: PY_SPACE, w: '\\p{L}\\p{N}_' },
  ascii: { d: '0-9', s: '\\t-\\r ', w: '0-9A-Za-z_' },
};

type Kind = 'unit' | 'at' | 'repeat' | 'group' | 'assert' | 'ref';
/** One item of a sequence: its RegExp text (a single atom unless an assertion) and its width, as Python's getwidth. */
interface Item {
  js: string;
  kind: Kind;
  min: number;
  max: number;
}
interface Alternation {
  js: string;
  min: number;
  max: number;
}
type ClassCode = { lit: number } | { cat: string };

/** The pattern as `re._parser.Tokenizer` reads it: one character, or a backslash and the next. */
class Source {
  private readonly chars: string[];
  private index = 0;
  private width = 0;
  next: string | undefined;

  constructor(
    readonly pattern: string,
    private readonly replacement?: string,
  ) {
    this.chars = Array.from(replacement ?? pattern);
    this.advance();
  }

  private advance(): void {
    const c = this.chars[this.index];
    if (c === undefined) {
      this.next = undefined;
      this.width = 0;
      return;
    }
    if (c !== '\\') {
      this.next = c;
      this.width = 1;
    } else {
      const d = this.chars[this.index + 1];
      if (d === undefined) throw this.errorAt('bad escape (end of pattern)', this.chars.length - 1);
      this.next = c + d;
      this.width = 2;
    }
    this.index += this.width;
  }

  match(c: string): boolean {
    if (this.next !== c) return false;
    this.advance();
    return true;
  }

  get(): string | undefined {
    const t = this.next;
    this.advance();
    return t;
  }

  getwhile(n: number, set: Set<string>): string {
    let result = '';
    for (let i = 0; i < n && this.next !== undefined && set.has(this.next); i++) result += this.get();
    return result;
  }

  getuntil(terminator: string, name: string): string {
    let result = '';
    for (;;) {
      const c = this.get();
      if (c === undefined) {
        if (!result) throw this.error(`missing ${name}`);
        throw this.error(`missing ${terminator}, unterminated name`, cpLength(result));
      }
      if (c === terminator) {
        if (!result) throw this.error(`missing ${name}`, 1);
        return result;
      }
      result += c;
    }
  }

  tell(): number {
    return this.index - this.width;
  }

  seek(index: number): void {
    this.index = index;
    this.advance();
  }

  error(message: string, offset = 0): PyRegexError {
    return this.errorAt(message, this.tell() - offset);
  }

  errorAt(message: string, position: number | undefined): PyRegexError {
    return new PyRegexError(this.pattern, message, position, false, this.replacement);
  }

  unsupported(feature: string, at: number): PyRegexError {
    return new PyRegexError(this.pattern, `${feature} are not supported`, at, true);
  }
}

/** A character class as code-point ranges, positive class bodies (\d…) and complemented ones (\D…). */
class ClassSet {
  ranges: [number, number][] = [];
  bodies: string[] = [];
  complements: string[] = [];
}

class Parser {
  private readonly src: Source;
  private ignoreCase: boolean;
  private dotAll = false;
  private multiline = false;
  private verbose = false;
  private ascii = false;
  /** JavaScript name of each group (index 0 unused): Python's name, or `$n` (not a Python identifier). */
  readonly names: string[] = [''];
  /** Python's groupindex. */
  readonly byName = new Map<string, number>();
  /** Width of each closed group; undefined while open. */
  private readonly widths: ([number, number] | undefined)[] = [undefined];
  private lookbehindGroups: number | undefined;
  private variableLookbehind = false;
  private hasBackref = false;
  /**
   * Whether a match may be "" at a place where a later choice would match more: only through a lazy
   * quantifier or an alternation. Without them the first match found at a place is the last choice at
   * every step, so after an empty match no non-empty one can start there.
   */
  mayPreferEmpty = false;

  constructor(pattern: string, ignoreCase: boolean) {
    this.src = new Source(pattern);
    this.ignoreCase = ignoreCase;
  }

  translate(): { js: string; flags: string; mayPreferEmpty: boolean } {
    const p = this.parseSub(0);
    if (this.src.next !== undefined) throw this.src.error('unbalanced parenthesis');
    if (this.variableLookbehind) throw new PyRegexError(this.src.pattern, 'look-behind requires fixed-width pattern', undefined);
    if (this.ascii && this.ignoreCase && this.hasBackref) {
      throw new PyRegexError(this.src.pattern, 'backreferences under (?a) with IGNORECASE are not supported', undefined, true);
    }
    // ASCII + IGNORECASE folds only ASCII letters: done by hand, JavaScript's `i` would fold all.
    return { js: p.js, flags: this.ignoreCase && !this.ascii ? 'iu' : 'u', mayPreferEmpty: this.mayPreferEmpty };
  }

  get groups(): number {
    return this.names.length - 1;
  }

  private parseSub(nested: number): Alternation {
    const branches: Alternation[] = [];
    do {
      const items = this.parse(nested + 1, nested === 0 && branches.length === 0);
      branches.push({ js: items.map((i) => i.js).join(''), ...sequenceWidth(items) });
    } while (this.src.match('|'));
    if (branches.length > 1) this.mayPreferEmpty = true;
    return {
      js: branches.map((b) => b.js).join('|'),
      min: Math.min(MAXREPEAT - 1, ...branches.map((b) => b.min)),
      max: Math.max(0, ...branches.map((b) => b.max)),
    };
  }

  private parse(nested: number, first: boolean): Item[] {
    const src = this.src;
    const items: Item[] = [];
    for (;;) {
      const self = src.next;
      if (self === undefined || self === '|' || self === ')') return items;
      src.get();
      if (this.verbose) {
        if (WHITESPACE.has(self)) continue;
        if (self === '#') {
          for (let t = src.get(); t !== undefined && t !== '\n'; t = src.get());
          continue;
        }
      }
      if (self[0] === '\\') items.push(this.escape(self));
      else if (!SPECIAL.has(self)) items.push(this.literal(self.codePointAt(0)!));
      else if (self === '[') items.push(this.charClass());
      else if (REPEAT.has(self)) this.repeat(self, items);
      else if (self === '.') items.push(unit(this.dotAll ? '[^]' : '[^\\n]'));
      else if (self === '(') {
        const item = this.group(nested, first && items.length === 0);
        if (item) items.push(item);
      } else if (self === '^') items.push(at(this.multiline ? '(?<![^\\n])' : '^'));
      else items.push(at(this.multiline ? '(?![^\\n])' : '(?=\\n?$)'));
    }
  }

  private literal(c: number): Item {
    if (this.ignoreCase && this.ascii && /^[A-Za-z]$/.test(String.fromCodePoint(c))) {
      return unit(`[${String.fromCodePoint(c).toLowerCase()}${String.fromCodePoint(c).toUpperCase()}]`);
    }
    if (this.ignoreCase && !this.ascii && TURKISH_I.includes(c)) return unit(`[${TURKISH_I.map((i) => char(i)).join('')}]`);
    return unit(char(c));
  }

  /** `re._parser._escape`: an escape outside a class. */
  private escape(tok: string): Item {
    const src = this.src;
    const c = tok.slice(1);
    switch (c) {
      case 'A':
        return at('^');
      case 'Z':
        return at('$');
      case 'b':
      case 'B':
        return at(this.boundary(c === 'b'));
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W': {
        const set = new ClassSet();
        this.addCategory(set, c);
        return unit(this.emitClass(set, false));
      }
    }
    if (Object.hasOwn(ESCAPES, c)) return this.literal(ESCAPES[c]!);
    const hex = this.hexEscape(tok);
    if (hex !== undefined) return this.literal(hex);
    if (c === 'N') throw src.unsupported('\\N{…} named characters', src.tell() - 2);
    if (c === '0') return this.literal(parseInt(c + src.getwhile(2, OCTDIGITS), 8));
    if (DIGITS.has(c)) {
      let escape = tok;
      if (src.next !== undefined && DIGITS.has(src.next)) {
        escape += src.get();
        if (OCTDIGITS.has(escape[1]!) && OCTDIGITS.has(escape[2]!) && src.next !== undefined && OCTDIGITS.has(src.next)) {
          escape += src.get();
          const value = parseInt(escape.slice(1), 8);
          if (value > 0o377) throw src.error(`octal escape value ${escape} outside of range 0-0o377`, escape.length);
          return this.literal(value);
        }
      }
      const group = Number(escape.slice(1));
      if (group < this.names.length) {
        if (this.widths[group] === undefined) throw src.error('cannot refer to an open group', escape.length);
        this.checkLookbehindGroup(group);
        return this.backref(group);
      }
      throw src.error(`invalid group reference ${group}`, escape.length - 1);
    }
    if (isAsciiLetter(c)) throw src.error(`bad escape ${tok}`, 2);
    return this.literal(c.codePointAt(0)!);
  }

  /** \x, \u, \U (exactly 2, 4, 8 hex digits), in or out of a class; undefined for other escapes. */
  private hexEscape(tok: string): number | undefined {
    const digits = { x: 2, u: 4, U: 8 }[tok.slice(1)];
    if (digits === undefined) return undefined;
    const escape = tok + this.src.getwhile(digits, HEXDIGITS);
    if (escape.length !== digits + 2) throw this.src.error(`incomplete escape ${escape}`, escape.length);
    const value = parseInt(escape.slice(2), 16);
    if (value > 0x10ffff) throw this.src.error(`bad escape ${escape}`, escape.length);
    return value;
  }

  private backref(group: number): Item {
    this.hasBackref = true;
    const [min, max] = this.widths[group]!;
    return { js: `\\k<${this.names[group]}>`, kind: 'ref', min, max };
  }

  private checkLookbehindGroup(group: number): void {
    if (this.lookbehindGroups === undefined) return;
    if (this.widths[group] === undefined) throw this.src.error('cannot refer to an open group');
    if (group >= this.lookbehindGroups) throw this.src.error('cannot refer to group defined in the same lookbehind subpattern');
  }

  /** Python's \b and \B test its own \w on both sides; \B never matches in an empty string (3.11). */
  private boundary(word: boolean): string {
    const w = `[${this.categoryBodies().w}]`;
    if (word) return `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`;
    return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w})(?:(?<=[^])|(?=[^])))`;
  }

  private categoryBodies(): { d: string; s: string; w: string } {
    return this.ascii ? CATEGORY_BODY.ascii : CATEGORY_BODY.unicode;
  }

  private addCategory(set: ClassSet, c: string): void {
    const body = this.categoryBodies()[c.toLowerCase() as 'd' | 's' | 'w'];
    (c === c.toLowerCase() ? set.bodies : set.complements).push(body);
  }

  /** `[...]` as `re._parser` reads it: a leading `]` is literal, `-` first or last is literal. */
  private charClass(): Item {
    const src = this.src;
    const here = src.tell() - 1;
    const negate = src.match('^');
    const set = new ClassSet();
    let count = 0;
    const unterminated = (): PyRegexError => src.error('unterminated character set', src.tell() - here);
    const add = (code: ClassCode): void => {
      if ('lit' in code) set.ranges.push([code.lit, code.lit]);
      else this.addCategory(set, code.cat);
      count++;
    };
    for (;;) {
      const self = src.get();
      if (self === undefined) throw unterminated();
      if (self === ']' && count > 0) break;
      const code1 = self[0] === '\\' ? this.classEscape(self) : { lit: self.codePointAt(0)! };
      if (!src.match('-')) {
        add(code1);
        continue;
      }
      const that = src.get();
      if (that === undefined) throw unterminated();
      if (that === ']') {
        add(code1);
        add({ lit: 0x2d });
        break;
      }
      const code2 = that[0] === '\\' ? this.classEscape(that) : { lit: that.codePointAt(0)! };
      const bad = (): PyRegexError => src.error(`bad character range ${self}-${that}`, cpLength(self) + 1 + cpLength(that));
      if (!('lit' in code1) || !('lit' in code2) || code2.lit < code1.lit) throw bad();
      set.ranges.push([code1.lit, code2.lit]);
      count++;
    }
    return unit(this.emitClass(set, negate));
  }

  /** `re._parser._class_escape`. */
  private classEscape(tok: string): ClassCode {
    const src = this.src;
    const c = tok.slice(1);
    if (Object.hasOwn(ESCAPES, c)) return { lit: ESCAPES[c]! };
    if ('dDsSwW'.includes(c) && c.length === 1) return { cat: c };
    const hex = this.hexEscape(tok);
    if (hex !== undefined) return { lit: hex };
    if (c === 'N') throw src.unsupported('\\N{…} named characters', src.tell() - 2);
    if (OCTDIGITS.has(c)) {
      const escape = tok + src.getwhile(2, OCTDIGITS);
      const value = parseInt(escape.slice(1), 8);
      if (value > 0o377) throw src.error(`octal escape value ${escape} outside of range 0-0o377`, escape.length);
      return { lit: value };
    }
    if (DIGITS.has(c) || isAsciiLetter(c)) throw src.error(`bad escape ${tok}`, 2);
    return { lit: c.codePointAt(0)! };
  }

  private emitClass(set: ClassSet, negate: boolean): string {
    const ranges = [...set.ranges];
    if (this.ignoreCase && this.ascii) {
      for (const [lo, hi] of set.ranges) {
        for (const [from, to, shift] of [
          [0x61, 0x7a, -32],
          [0x41, 0x5a, 32],
        ] as const) {
          const a = Math.max(lo, from);
          const b = Math.min(hi, to);
          if (a <= b) ranges.push([a + shift, b + shift]);
        }
      }
    } else if (this.ignoreCase && TURKISH_I.some((c) => set.ranges.some(([lo, hi]) => lo <= c && c <= hi))) {
      for (const c of TURKISH_I) ranges.push([c, c]);
    }
    const body =
      ranges.map(([lo, hi]) => (lo === hi ? char(lo, true) : `${char(lo, true)}-${char(hi, true)}`)).join('') +
      set.bodies.join('');
    if (set.complements.length === 0) return `[${negate ? '^' : ''}${body}]`;
    if (!body && set.complements.length === 1) return `[${negate ? '' : '^'}${set.complements[0]}]`;
    // A union with a complemented category has no single-class form in `u` mode.
    const union = [...(body ? [`[${body}]`] : []), ...set.complements.map((b) => `[^${b}]`)].join('|');
    return negate ? `(?:(?!${union})[^])` : `(?:${union})`;
  }

  /** A quantifier after the last item, or a literal `{` when it is not one (as Python reads `{`). */
  private repeat(self: string, items: Item[]): void {
    const src = this.src;
    const here = src.tell();
    let min = 0;
    let max = MAXREPEAT;
    if (self === '?') max = 1;
    else if (self === '+') min = 1;
    else if (self === '{') {
      if (src.next === '}') {
        items.push(this.literal(0x7b));
        return;
      }
      let lo = '';
      let hi = '';
      while (src.next !== undefined && DIGITS.has(src.next)) lo += src.get();
      if (src.match(',')) {
        while (src.next !== undefined && DIGITS.has(src.next)) hi += src.get();
      } else hi = lo;
      if (!src.match('}')) {
        items.push(this.literal(0x7b));
        src.seek(here);
        return;
      }
      if (lo) min = Number(lo);
      if (hi) max = Number(hi);
      if (min >= MAXREPEAT || (hi && max >= MAXREPEAT)) {
        throw new PyRegexError(src.pattern, 'the repetition number is too large', undefined);
      }
      if (hi && max < min) throw src.error('min repeat greater than max repeat', src.tell() - here);
    }
    const item = items[items.length - 1];
    if (!item || item.kind === 'at') throw src.error('nothing to repeat', src.tell() - here + 1);
    if (item.kind === 'repeat') throw src.error('multiple repeat', src.tell() - here + 1);
    let suffix = '';
    if (src.match('?')) {
      suffix = '?';
      this.mayPreferEmpty = true;
    } else if (src.next === '+') throw src.unsupported('possessive quantifiers (*+, ++, ?+, {m,n}+)', here - 1);
    const quantifier =
      min === 0 && max === MAXREPEAT
        ? '*'
        : min === 1 && max === MAXREPEAT
          ? '+'
          : min === 0 && max === 1
            ? '?'
            : `{${min},${max === MAXREPEAT ? '' : max}}`;
    // A quantified lookaround is valid Python but not valid `u`-mode JavaScript unless wrapped.
    const atom = item.kind === 'assert' ? `(?:${item.js})` : item.js;
    items[items.length - 1] = {
      js: atom + quantifier + suffix,
      kind: 'repeat',
      min: Math.min(item.min * min, MAXREPEAT - 1),
      max: Math.min(item.max * max, MAXREPEAT),
    };
  }

  /** After `(`: a group, lookaround, comment or global flags (undefined: nothing to add). */
  private group(nested: number, first: boolean): Item | undefined {
    const src = this.src;
    const start = src.tell() - 1;
    let name: string | undefined;
    let capture = true;
    if (src.match('?')) {
      const c = src.get();
      if (c === undefined) throw src.error('unexpected end of pattern');
      if (c === 'P') {
        if (src.match('<')) {
          name = src.getuntil('>', 'group name');
          this.checkGroupName(name);
        } else if (src.match('=')) {
          const ref = src.getuntil(')', 'group name');
          this.checkGroupName(ref);
          const gid = this.byName.get(ref);
          if (gid === undefined) throw src.error(`unknown group name ${pyRepr(ref)}`, cpLength(ref) + 1);
          if (this.widths[gid] === undefined) throw src.error('cannot refer to an open group', cpLength(ref) + 1);
          this.checkLookbehindGroup(gid);
          return this.backref(gid);
        } else {
          const d = src.get();
          if (d === undefined) throw src.error('unexpected end of pattern');
          throw src.error(`unknown extension ?P${d}`, cpLength(d) + 2);
        }
      } else if (c === ':') capture = false;
      else if (c === '#') {
        for (;;) {
          if (src.next === undefined) throw src.error('missing ), unterminated comment', src.tell() - start);
          if (src.get() === ')') return undefined;
        }
      } else if (c === '=' || c === '!' || c === '<') return this.lookaround(c, nested, start);
      else if (c === '(') throw src.unsupported('(?(…)…|…) conditionals', start);
      else if (c === '>') throw src.unsupported('(?>…) atomic groups', start);
      else if (FLAG_CHARS.has(c) || c === '-') {
        this.flags(c, start);
        if (!first) throw src.error('global flags not at the start of the expression', src.tell() - start);
        return undefined;
      } else throw src.error(`unknown extension ?${c}`, cpLength(c) + 1);
    }
    let gid = 0;
    if (capture) {
      gid = this.names.length;
      if (name !== undefined) {
        const was = this.byName.get(name);
        if (was !== undefined) {
          throw src.error(`redefinition of group name ${pyRepr(name)} as group ${gid}; was group ${was}`, cpLength(name) + 1);
        }
        this.byName.set(name, gid);
      }
      this.names.push(name ?? `$${gid}`);
      this.widths.push(undefined);
    }
    const p = this.parseSub(nested + 1);
    if (!src.match(')')) throw src.error('missing ), unterminated subpattern', src.tell() - start);
    if (capture) this.widths[gid] = [p.min, p.max];
    const js = capture ? `(?<${this.names[gid]}>${p.js})` : `(?:${p.js})`;
    return { js, kind: 'group', min: p.min, max: p.max };
  }

  private checkGroupName(name: string): void {
    if (!isIdentifier(name)) throw this.src.error(`bad character in group name ${pyRepr(name)}`, cpLength(name) + 1);
  }

  private lookaround(c: string, nested: number, start: number): Item {
    const src = this.src;
    let kind = c;
    const outer = this.lookbehindGroups;
    if (c === '<') {
      const d = src.get();
      if (d === undefined) throw src.error('unexpected end of pattern');
      if (d !== '=' && d !== '!') throw src.error(`unknown extension ?<${d}`, cpLength(d) + 2);
      kind = `<${d}`;
      if (outer === undefined) this.lookbehindGroups = this.names.length;
    }
    const p = this.parseSub(nested + 1);
    if (c === '<') {
      this.lookbehindGroups = outer;
      if (p.min !== p.max) this.variableLookbehind = true;
    }
    if (!src.match(')')) throw src.error('missing ), unterminated subpattern', src.tell() - start);
    return { js: `(?${kind}${p.js})`, kind: 'assert', min: 0, max: 0 };
  }

  /** `re._parser._parse_flags` after `(?`: global flags are applied; scoped ones `(?i:…)`, `(?-i:…)` are refused. */
  private flags(c: string, start: number): void {
    const src = this.src;
    const flagError = (t: string | undefined, missing: string): PyRegexError =>
      t === undefined ? src.error(missing) : src.error(/^\p{L}$/u.test(t) ? 'unknown flag' : missing, cpLength(t));
    const added = new Set<string>();
    const removed = new Set<string>();
    let char: string | undefined = c;
    if (char !== '-') {
      for (;;) {
        if (char === 'L') throw src.error("bad inline flags: cannot use 'L' flag with a str pattern");
        added.add(char);
        if (added.has('a') && added.has('u')) throw src.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        char = src.get();
        if (char === undefined) throw src.error('missing -, : or )');
        if (char === ')' || char === '-' || char === ':') break;
        if (!FLAG_CHARS.has(char)) throw flagError(char, 'missing -, : or )');
      }
    }
    if (char === ')') {
      if (added.has('t')) throw src.unsupported('(?t) template flags', start);
      this.ascii ||= added.has('a');
      this.ignoreCase ||= added.has('i');
      this.multiline ||= added.has('m');
      this.dotAll ||= added.has('s');
      this.verbose ||= added.has('x');
      return;
    }
    if (added.has('t')) throw src.error('bad inline flags: cannot turn on global flag', 1);
    if (char === '-') {
      char = src.get();
      if (char === undefined || !FLAG_CHARS.has(char)) throw flagError(char, 'missing flag');
      for (;;) {
        if ('aLu'.includes(char)) throw src.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        removed.add(char);
        char = src.get();
        if (char === ':') break;
        if (char === undefined || !FLAG_CHARS.has(char)) throw flagError(char, 'missing :');
      }
    }
    if (removed.has('t')) throw src.error('bad inline flags: cannot turn off global flag', 1);
    if ([...added].some((f) => removed.has(f))) throw src.error('bad inline flags: flag turned on and off', 1);
    throw src.unsupported('scoped inline flags (?flags:…) and (?-flags:…)', start);
  }
}

const unit = (js: string): Item => ({ js, kind: 'unit', min: 1, max: 1 });
const at = (js: string): Item => ({ js, kind: 'at', min: 0, max: 0 });

function sequenceWidth(items: Item[]): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const item of items) {
    min += item.min;
    max += item.max;
  }
  return { min: Math.min(min, MAXREPEAT - 1), max: Math.min(max, MAXREPEAT) };
}

interface Match {
  index: number;
  whole: string;
  /** Python's groups 1..n; undefined when the group did not take part. */
  groups: (string | undefined)[];
}

class CompiledPyRegex implements PyRegex {
  readonly regexp: RegExp;

  constructor(
    readonly pattern: string,
    private readonly js: string,
    private readonly flags: string,
    private readonly names: readonly string[],
    private readonly byName: ReadonlyMap<string, number>,
    private readonly mayPreferEmpty: boolean,
  ) {
    try {
      this.regexp = new RegExp(js, flags);
    } catch (e) {
      throw new Error(`pycompat regex: the translation of /${pattern}/ is not a valid RegExp (a bug): /${js}/${flags}`, {
        cause: e,
      });
    }
  }

  get groups(): number {
    return this.names.length - 1;
  }

  /** `_sre`'s walk over `s`, run on the regex worker within PY_REGEX_TIME_LIMIT_MS (else PyRegexTimeoutError). */
  private matches(s: string): Match[] {
    const request = { js: this.js, flags: this.flags, mayPreferEmpty: this.mayPreferEmpty, names: this.names, text: s };
    return boundedMatches(request, this.pattern).map(([index, whole, ...groups]) => ({ index, whole, groups }));
  }

  findall(s: string): (string | string[])[] {
    const out: (string | string[])[] = [];
    for (const m of this.matches(s)) {
      if (this.groups === 0) out.push(m.whole);
      else if (this.groups === 1) out.push(m.groups[0] ?? '');
      else out.push(m.groups.map((g) => g ?? ''));
    }
    return out;
  }

  sub(s: string, repl: string): string {
    const template = parseTemplate(this.pattern, repl, this.groups, this.byName);
    let out = '';
    let last = 0;
    for (const m of this.matches(s)) {
      out += s.slice(last, m.index);
      for (const part of template) out += typeof part === 'string' ? part : part === 0 ? m.whole : (m.groups[part - 1] ?? '');
      last = m.index + m.whole.length;
    }
    return out + s.slice(last);
  }
}

function intOrUndefined(s: string): number | undefined {
  try {
    return pyIntFromString(s, 'a group number');
  } catch {
    return undefined;
  }
}

/** `re._parser.parse_template`: literal text and group numbers. */
function parseTemplate(pattern: string, repl: string, groups: number, byName: ReadonlyMap<string, number>): (string | number)[] {
  const src = new Source(pattern, repl);
  const parts: (string | number)[] = [];
  let literal = '';
  const group = (index: number, offset: number): void => {
    if (index > groups) throw src.error(`invalid group reference ${index}`, offset);
    parts.push(literal, index);
    literal = '';
  };
  for (let tok = src.get(); tok !== undefined; tok = src.get()) {
    if (tok[0] !== '\\') {
      literal += tok;
      continue;
    }
    const c = tok.slice(1);
    if (c === 'g') {
      if (!src.match('<')) throw src.error('missing <');
      const name = src.getuntil('>', 'group name');
      let index = byName.get(name);
      if (isIdentifier(name)) {
        if (index === undefined) throw src.errorAt(`unknown group name ${pyRepr(name)}`, undefined);
      } else {
        index = intOrUndefined(name);
        if (index === undefined || index < 0) throw src.error(`bad character in group name ${pyRepr(name)}`, cpLength(name) + 1);
      }
      group(index, cpLength(name) + 1);
    } else if (c === '0') {
      let escape = tok;
      if (src.next !== undefined && OCTDIGITS.has(src.next)) {
        escape += src.get();
        if (src.next !== undefined && OCTDIGITS.has(src.next)) escape += src.get();
      }
      literal += String.fromCodePoint(parseInt(escape.slice(1), 8) & 0xff);
    } else if (DIGITS.has(c)) {
      let escape = tok;
      if (src.next !== undefined && DIGITS.has(src.next)) {
        escape += src.get();
        if (OCTDIGITS.has(c) && OCTDIGITS.has(escape[2]!) && src.next !== undefined && OCTDIGITS.has(src.next)) {
          escape += src.get();
          const value = parseInt(escape.slice(1), 8);
          if (value > 0o377) throw src.error(`octal escape value ${escape} outside of range 0-0o377`, escape.length);
          literal += String.fromCodePoint(value);
          continue;
        }
      }
      group(Number(escape.slice(1)), escape.length - 1);
    } else if (Object.hasOwn(ESCAPES, c)) literal += String.fromCodePoint(ESCAPES[c]!);
    else if (isAsciiLetter(c)) throw src.error(`bad escape ${tok}`, 2);
    else literal += tok;
  }
  parts.push(literal);
  return parts.filter((p) => p !== '');
}

/** Compile a Python `re` pattern (str, default flags; `ignoreCase` is re.IGNORECASE). Throws PyRegexError. */
export function compilePy(pattern: string, flags: { ignoreCase?: boolean } = {}): PyRegex {
  const parser = new Parser(pattern, flags.ignoreCase ?? false);
  const { js, flags: jsFlags, mayPreferEmpty } = parser.translate();
  return new CompiledPyRegex(pattern, js, jsFlags, parser.names, parser.byName, mayPreferEmpty);
}
