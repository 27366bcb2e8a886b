import { createHash } from 'node:crypto';

/**
 * The srt-slurm routing of an InferenceX launcher (`runners/launch_<cluster>.sh`), read statically:
 * each `git clone` of srt-slurm (or a fork), what must hold for execution to reach it, the ref it
 * ends on and the recipe overlays copied onto it. Launchers route with bash `if/elif/else` chains,
 * so this holds a small bash reader: enough of the grammar for launchers (quoting, heredocs,
 * if/case/loops/functions, `[[ ]]`, `[ ]`), pure, no I/O.
 */

/** A bash test condition, as far as it can be read statically. */
export type Cond =
  | { kind: 'true' }
  | { kind: 'and'; items: Cond[] }
  | { kind: 'or'; items: Cond[] }
  | { kind: 'not'; item: Cond }
  /**
   * `[[ $VAR == pattern ]]` / `!=` / `=`; glob: the pattern is a bash glob (it has unquoted `*`, `?`
   * or `[..]`; quoted metacharacters in it are then backslash-escaped); `-n`/`-z` on a variable
   * as op 'set'/'empty'.
   */
  | { kind: 'test'; variable: string; op: '==' | '!=' | 'set' | 'empty'; pattern: string; glob: boolean }
  /** Anything else: -f/-d tests, commands, arithmetic…, with its source text. */
  | { kind: 'unknown'; text: string };

export interface ToolchainRef {
  /**
   * commit: checked out at a full 40-hex sha; verified: a branch/tag whose HEAD is then checked
   * against a full sha (`test "$(git rev-parse HEAD)" = "<sha>"`); tag / branch / short-sha: what
   * it ends on; default: no --branch and no checkout (the default branch's head); unknown: a ref
   * the file does not define.
   */
  kind: 'commit' | 'verified' | 'tag' | 'branch' | 'short-sha' | 'default' | 'unknown';
  /** The ref as written after variable substitution (branch or tag name, sha); absent for default. */
  value?: string;
  /** The full commit, for commit and verified. */
  commit?: string;
  /** Line of the checkout, --branch or verification that decides it (the clone's line for default). */
  line: number;
}

export interface CloneRoute {
  /** 1-based line of the `git clone`. */
  line: number;
  /** The if/elif/else arm holding the clone: its first and last line (the clone's line twice for an unconditional clone). */
  arm: { line: number; endLine: number };
  /** The arm's own condition as written (`[[ $FRAMEWORK == "dynamo-vllm" ]]`), `else`, or '' outside any arm. */
  armText: string;
  /**
   * Everything that must hold for execution to reach the clone (and, where a nested `if` after
   * the clone picks the checkout, that checkout): enclosing arms, the negations of earlier arms of
   * each chain, and guards (an earlier `if` whose arm always ends in `exit`/`exec`).
   */
  condition: Cond;
  /**
   * What this arm and the arms around it test, without the negations of earlier arms and without
   * guards: what a first-match routing rule placed where the arm is must match.
   */
  match: Cond;
  /** Clone URL after substituting variables the file assigns literally; unresolved stays as written. */
  repo: string;
  ref: ToolchainRef;
  /**
   * `cp [-rT] "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/<from>" <to>` run after
   * the clone on its way (nested arms included), before any other clone.
   */
  overlays: { from: string; to: string; line: number }[];
  /** A stable identity of the route's own text (its arms' tests, repo and ref), to tell which routes a change touched. */
  signature: string;
}

export interface CloneRoutes {
  /** In the file's order; a clone followed by an `if` that picks the checkout gives one route per arm. */
  routes: CloneRoute[];
  /** Variables that hold a literal value at the end of the script on every path (name → value). */
  assignments: Record<string, string>;
  /** Constructs the reader could not follow (unbalanced if/fi, unterminated quotes…); never thrown. */
  problems: { line: number; message: string }[];
}

export function readCloneRoutes(text: string): CloneRoutes {
  const lines = new Lines(text);
  const problems: CloneRoutes['problems'] = [];
  const problem = (at: number, message: string): void => void problems.push({ line: lines.of(at), message });
  const script = new Parser(new Lexer(text, problem), lines, problem).script();
  const walker = new Walker(lines);
  walker.block(script, [], undefined, []);
  const routes = walker.clones.flatMap((site) => routesOf(site, walker, lines, problem));
  const assignments = Object.fromEntries([...walker.env].filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { routes, assignments, problems: problems.sort((a, b) => a.line - b.line) };
}

// ---------------------------------------------------------------------------------------------
// Conditions

const TRUE: Cond = { kind: 'true' };
const FALSE: Cond = { kind: 'not', item: TRUE };
const isFalse = (c: Cond): boolean => c.kind === 'not' && c.item.kind === 'true';
const unknown = (text: string): Cond => ({ kind: 'unknown', text });

function and(...items: Cond[]): Cond {
  const flat = items.flatMap((c) => (c.kind === 'and' ? c.items : c.kind === 'true' ? [] : [c]));
  if (flat.some(isFalse)) return FALSE;
  return flat.length === 0 ? TRUE : flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
}

function or(...items: Cond[]): Cond {
  const flat = items.flatMap((c) => (c.kind === 'or' ? c.items : isFalse(c) ? [] : [c]));
  if (flat.some((c) => c.kind === 'true')) return TRUE;
  return flat.length === 0 ? FALSE : flat.length === 1 ? flat[0]! : { kind: 'or', items: flat };
}

const not = (c: Cond): Cond => (c.kind === 'not' ? c.item : { kind: 'not', item: c });

/**
 * Three-valued evaluation against the variables a row sets: variables absent from env are unknown
 * ('unknown' propagates through and/or/not as Kleene logic). Bash glob semantics for glob
 * patterns (`*` matches `/` too).
 */
export function evaluate(cond: Cond, env: Readonly<Record<string, string | undefined>>): boolean | 'unknown' {
  switch (cond.kind) {
    case 'true':
      return true;
    case 'unknown':
      return 'unknown';
    case 'not': {
      const value = evaluate(cond.item, env);
      return value === 'unknown' ? value : !value;
    }
    case 'and':
    case 'or': {
      // The value that decides (false for and, true for or) wins over unknown.
      const decisive = cond.kind === 'or';
      let result: boolean | 'unknown' = !decisive;
      for (const item of cond.items) {
        const value = evaluate(item, env);
        if (value === decisive) return decisive;
        if (value === 'unknown') result = 'unknown';
      }
      return result;
    }
    case 'test': {
      const value = Object.hasOwn(env, cond.variable) ? env[cond.variable] : undefined;
      if (value === undefined) return 'unknown';
      if (cond.op === 'set') return value !== '';
      if (cond.op === 'empty') return value === '';
      const matches = cond.glob ? globRegExp(cond.pattern).test(value) : value === cond.pattern;
      return cond.op === '==' ? matches : !matches;
    }
  }
}

/** The condition as short readable text (for messages): `FRAMEWORK == dynamo-vllm && !(IS_AGENTIC == 1)`. */
export function formatCond(cond: Cond): string {
  switch (cond.kind) {
    case 'true':
      return 'true';
    case 'unknown':
      return `\`${cond.text}\``;
    case 'not':
      return cond.item.kind === 'true' ? 'false' : `!(${formatCond(cond.item)})`;
    case 'and':
    case 'or': {
      if (cond.items.length === 0) return cond.kind === 'and' ? 'true' : 'false';
      const other = cond.kind === 'and' ? 'or' : 'and';
      const parts = cond.items.map((c) => (c.kind === other ? `(${formatCond(c)})` : formatCond(c)));
      return parts.join(cond.kind === 'and' ? ' && ' : ' || ');
    }
    case 'test': {
      if (cond.op === 'set' || cond.op === 'empty') return `${cond.op === 'set' ? '-n' : '-z'} ${cond.variable}`;
      const pattern = cond.pattern === '' || /\s/.test(cond.pattern) ? JSON.stringify(cond.pattern) : cond.pattern;
      return `${cond.variable} ${cond.op} ${pattern}`;
    }
  }
}

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
function globRegExp(pattern: string): RegExp {
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

// ---------------------------------------------------------------------------------------------
// Reading bash: words and tokens

type Part =
  /** Text; quoted when quoting made it literal (no globbing). */
  | { kind: 'lit'; text: string; quoted: boolean }
  /** `$VAR`, `${VAR}`, `${VAR:-default}`. */
  | { kind: 'var'; name: string; raw: string }
  /** Any other expansion (`$(…)`, `${x%y}`, `$1`…), as written. */
  | { kind: 'expr'; raw: string };

interface Word {
  /** As written (with line continuations). */
  raw: string;
  parts: Part[];
  start: number;
  end: number;
}

type Token =
  | { kind: 'word'; word: Word; start: number; end: number }
  | { kind: 'op'; op: string; start: number; end: number }
  | { kind: 'newline' | 'end'; start: number; end: number };

// Longest first.
const OPERATORS = ';;& ;; ;& && || |& &>> &> <<< <<- << <& <> < >> >& >| > & | ; ( )'.split(' ');
const REDIRECTIONS = new Set(['<', '>', '>>', '<&', '>&', '&>', '&>>', '<>', '>|', '<<', '<<-', '<<<']);
const WORD_BREAK = ' \t\r\n;&|<>()';

const lineEnd = (src: string, from: number): number => {
  const at = src.indexOf('\n', from);
  return at < 0 ? src.length : at;
};

/** Text of a word without quotes, variables as written. */
const plainText = (word: Word): string => word.parts.map((p) => (p.kind === 'lit' ? p.text : p.raw)).join('');

class Lexer {
  private pos = 0;
  private ahead: Token | undefined;
  private heredocs: { delimiter: string; stripTabs: boolean; start: number }[] = [];
  /** Set after `<<`/`<<-`: the next word is a heredoc's delimiter. */
  private heredocOperator: { stripTabs: boolean; start: number } | undefined;

  constructor(
    readonly src: string,
    private readonly problem: (at: number, message: string) => void,
  ) {}

  peek(): Token {
    return (this.ahead ??= this.scan());
  }

  next(): Token {
    const token = this.peek();
    this.ahead = undefined;
    return token;
  }

  /** Reads `(( … ))` from its peeked first `(`; the offset after it. */
  arithmetic(open: Token): number {
    this.ahead = undefined;
    this.pos = this.skipNested(open.start + 1, ')');
    return this.pos;
  }

  private scan(): Token {
    const { src } = this;
    for (;;) {
      const c = src[this.pos];
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '\\' && src[this.pos + 1] === '\n') this.pos += 2;
      else if (c === '#') this.pos = lineEnd(src, this.pos);
      else break;
    }
    const start = this.pos;
    if (start >= src.length) return { kind: 'end', start, end: start };
    if (src[start] === '\n') {
      this.pos++;
      this.skipHeredocBodies();
      return { kind: 'newline', start, end: start + 1 };
    }
    const processSubstitution = (src[start] === '<' || src[start] === '>') && src[start + 1] === '(';
    const op = processSubstitution ? undefined : OPERATORS.find((o) => src.startsWith(o, start));
    if (op) {
      this.pos += op.length;
      if (op === '<<' || op === '<<-') this.heredocOperator = { stripTabs: op === '<<-', start };
      return { kind: 'op', op, start, end: this.pos };
    }
    const word = this.readWord();
    // `2>&1`, `9>"$lock"`: the number belongs to the redirection.
    if (/^\d+$/.test(word.raw) && (src[this.pos] === '<' || src[this.pos] === '>')) return this.scan();
    if (this.heredocOperator) {
      this.heredocs.push({ delimiter: plainText(word), ...this.heredocOperator });
      this.heredocOperator = undefined;
    }
    return { kind: 'word', word, start, end: this.pos };
  }

  private skipHeredocBodies(): void {
    const { src } = this;
    for (const doc of this.heredocs) {
      for (;;) {
        if (this.pos >= src.length) {
          this.problem(doc.start, `heredoc <<${doc.delimiter} has no closing ${doc.delimiter} line`);
          break;
        }
        const end = lineEnd(src, this.pos);
        const line = src.slice(this.pos, end);
        this.pos = Math.min(end + 1, src.length);
        if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break;
      }
    }
    this.heredocs = [];
  }

  private readWord(): Word {
    const { src } = this;
    const start = this.pos;
    const parts: Part[] = [];
    const literal = (text: string, quoted: boolean): void => {
      const last = parts.at(-1);
      if (last?.kind === 'lit' && last.quoted === quoted) last.text += text;
      else if (text !== '') parts.push({ kind: 'lit', text, quoted });
    };
    const expression = (from: number, to: number): void => {
      parts.push({ kind: 'expr', raw: src.slice(from, to) });
      this.pos = to;
    };
    if (src[start] === '<' || src[start] === '>') expression(start, this.skipNested(start + 2, ')'));
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (WORD_BREAK.includes(c)) {
        // `NAME=( … )`: an array, newlines and comments included.
        const first = parts[0];
        const array =
          c === '(' && parts.length === 1 && first?.kind === 'lit' && !first.quoted && /^[A-Za-z_]\w*\+?=$/.test(first.text);
        if (!array) break;
        expression(this.pos, this.skipNested(this.pos + 1, ')'));
      } else if (c === '\\') {
        if (src[this.pos + 1] !== '\n') literal(src[this.pos + 1] ?? '', true);
        this.pos += 2;
      } else if (c === "'") {
        const close = src.indexOf("'", this.pos + 1);
        if (close < 0) this.problem(this.pos, 'unterminated single quote');
        const end = close < 0 ? src.length : close;
        literal(src.slice(this.pos + 1, end), true);
        this.pos = end + 1;
      } else if (c === '"') this.readDoubleQuoted(parts, literal);
      else if (c === '$') this.readDollar(parts, literal, false);
      else if (c === '`') expression(this.pos, this.skipNested(this.pos + 1, '`'));
      else {
        literal(c, false);
        this.pos++;
      }
    }
    this.pos = Math.min(this.pos, src.length);
    return { raw: src.slice(start, this.pos), parts, start, end: this.pos };
  }

  private readDoubleQuoted(parts: Part[], literal: (text: string, quoted: boolean) => void): void {
    const { src } = this;
    const open = this.pos++;
    while (this.pos < src.length && src[this.pos] !== '"') {
      const c = src[this.pos]!;
      if (c === '\\' && '"\\$`\n'.includes(src[this.pos + 1] ?? '')) {
        if (src[this.pos + 1] !== '\n') literal(src[this.pos + 1]!, true);
        this.pos += 2;
      } else if (c === '$') this.readDollar(parts, literal, true);
      else if (c === '`') {
        const end = this.skipNested(this.pos + 1, '`');
        parts.push({ kind: 'expr', raw: src.slice(this.pos, end) });
        this.pos = end;
      } else {
        literal(c, true);
        this.pos++;
      }
    }
    if (this.pos >= src.length) this.problem(open, 'unterminated double quote');
    this.pos++;
  }

  private readDollar(parts: Part[], literal: (text: string, quoted: boolean) => void, quoted: boolean): void {
    const { src } = this;
    const start = this.pos;
    const c = src[start + 1] ?? '';
    const name = /^[A-Za-z_]\w*/.exec(src.slice(start + 1, start + 200))?.[0];
    if (c === '(' || c === '{') {
      const end = this.skipNested(start + 2, c === '(' ? ')' : '}');
      const raw = src.slice(start, end);
      // ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:=x}, ${VAR:?msg}: the variable VAR.
      const braced = c === '{' ? /^\$\{([A-Za-z_]\w*)(?:(?::?[-=?])[\s\S]*)?\}$/.exec(raw) : null;
      parts.push(braced ? { kind: 'var', name: braced[1]!, raw } : { kind: 'expr', raw });
      this.pos = end;
    } else if (c === "'" && !quoted) {
      let end = start + 2;
      while (end < src.length && src[end] !== "'") end += src[end] === '\\' ? 2 : 1;
      literal(src.slice(start + 2, end), true);
      this.pos = end + 1;
    } else if (c === '"' && !quoted) {
      this.pos++;
      this.readDoubleQuoted(parts, literal);
    } else if (name) {
      parts.push({ kind: 'var', name, raw: `$${name}` });
      this.pos = start + 1 + name.length;
    } else if (/[0-9@*#?$!-]/.test(c)) {
      parts.push({ kind: 'expr', raw: `$${c}` });
      this.pos = start + 2;
    } else {
      literal('$', quoted);
      this.pos++;
    }
  }

  /** The offset just after the `close` that ends a construct whose body starts at `from`. */
  private skipNested(from: number, close: ')' | '}' | '`'): number {
    const { src } = this;
    let i = from;
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') i += 2;
      else if (c === close) return i + 1;
      else if (c === '`') i = this.skipNested(i + 1, '`');
      else if (close === '`') i++;
      else if (c === "'") i = src.includes("'", i + 1) ? src.indexOf("'", i + 1) + 1 : src.length;
      else if (c === '"') i = this.skipDoubleQuoted(i + 1);
      else if (c === '$' && (src[i + 1] === '(' || src[i + 1] === '{'))
        i = this.skipNested(i + 2, src[i + 1] === '(' ? ')' : '}');
      else if (c === '(' && close === ')') i = this.skipNested(i + 1, ')');
      else if (c === '#' && close === ')' && /[\s(]/.test(src[i - 1] ?? ' ')) i = lineEnd(src, i);
      else i++;
    }
    this.problem(from, `unterminated ${close === '`' ? '`' : close === ')' ? '(' : '${'}`);
    return src.length;
  }

  private skipDoubleQuoted(from: number): number {
    const { src } = this;
    let i = from;
    while (i < src.length && src[i] !== '"') {
      if (src[i] === '\\') i += 2;
      else if (src[i] === '`') i = this.skipNested(i + 1, '`');
      else if (src[i] === '$' && (src[i + 1] === '(' || src[i + 1] === '{'))
        i = this.skipNested(i + 2, src[i + 1] === '(' ? ')' : '}');
      else i++;
    }
    return i + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading bash: commands

interface Simple {
  kind: 'simple';
  words: Word[];
  start: number;
  end: number;
}

/** `[[ … ]]` and `(( … ))`. */
interface TestCommand {
  kind: 'test';
  cond: Cond;
  start: number;
  end: number;
}

/** if/elif/else, and case (each pattern list an arm). */
interface IfCommand {
  kind: 'if';
  arms: Arm[];
  start: number;
  end: number;
}

interface Arm {
  /** Undefined for else. */
  cond: Cond | undefined;
  text: string;
  body: Stmt[];
  /** The keyword's offset, and the end of the arm's last statement. */
  start: number;
  end: number;
}

/** `{ … }`, `( … )`, and loops (entered under `cond`). */
interface Group {
  kind: 'group';
  body: Stmt[];
  subshell: boolean;
  cond: Cond;
  loopVariable?: string | undefined;
  start: number;
  end: number;
}

interface FunctionDef {
  kind: 'function';
  start: number;
  end: number;
}

type Command = Simple | TestCommand | IfCommand | Group | FunctionDef;

interface Pipeline {
  negated: boolean;
  commands: Command[];
  start: number;
  end: number;
}

/** An and-or list: `a && b || c`. */
interface Stmt {
  pipelines: Pipeline[];
  ops: ('&&' | '||')[];
  start: number;
  end: number;
}

const LIST_END_WORDS = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}']);
const LIST_END_OPS = new Set([')', ';;', ';&', ';;&']);

const isWord = (t: Token, ...words: string[]): boolean => t.kind === 'word' && words.includes(t.word.raw);
const isOp = (t: Token, ...ops: string[]): boolean => t.kind === 'op' && ops.includes(t.op);
const describe = (t: Token): string =>
  t.kind === 'word' ? `"${t.word.raw}"` : t.kind === 'op' ? `"${t.op}"` : t.kind === 'end' ? 'the end of the file' : 'a newline';
const normalise = (text: string): string => text.replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();

class Parser {
  private readonly src: string;

  constructor(
    private readonly lex: Lexer,
    private readonly lines: Lines,
    private readonly problem: (at: number, message: string) => void,
  ) {
    this.src = lex.src;
  }

  script(): Stmt[] {
    const body: Stmt[] = [];
    for (;;) {
      body.push(...this.list());
      const t = this.lex.next();
      if (t.kind === 'end') return body;
      this.problem(t.start, `unexpected ${describe(t)}`);
    }
  }

  /** Statements up to a closing keyword (then, fi, done, …), `)`, `;;` or the end. */
  private list(): Stmt[] {
    const out: Stmt[] = [];
    for (;;) {
      this.skip('newline', ';', '&');
      const t = this.lex.peek();
      if (
        t.kind === 'end' ||
        (t.kind === 'op' && LIST_END_OPS.has(t.op)) ||
        (t.kind === 'word' && LIST_END_WORDS.has(t.word.raw))
      )
        return out;
      out.push(this.statement());
    }
  }

  private skip(...what: string[]): void {
    for (let t = this.lex.peek(); what.includes(t.kind === 'op' ? t.op : t.kind); t = this.lex.peek()) this.lex.next();
  }

  private text(start: number, end: number): string {
    return normalise(this.src.slice(start, end));
  }

  private statement(): Stmt {
    const pipelines = [this.pipeline()];
    const ops: Stmt['ops'] = [];
    for (let t = this.lex.peek(); isOp(t, '&&', '||'); t = this.lex.peek()) {
      this.lex.next();
      ops.push((t as { op: '&&' | '||' }).op);
      this.skip('newline');
      pipelines.push(this.pipeline());
    }
    return { pipelines, ops, start: pipelines[0]!.start, end: pipelines.at(-1)!.end };
  }

  private pipeline(): Pipeline {
    const start = this.lex.peek().start;
    const negated = isWord(this.lex.peek(), '!');
    if (negated) this.lex.next();
    const commands = [this.command()];
    while (isOp(this.lex.peek(), '|', '|&')) {
      this.lex.next();
      this.skip('newline');
      commands.push(this.command());
    }
    return { negated, commands, start, end: commands.at(-1)!.end };
  }

  private command(): Command {
    const t = this.lex.peek();
    if (isOp(t, '(')) {
      if (this.src[t.start + 1] === '(') {
        const end = this.lex.arithmetic(t);
        return this.redirected({ kind: 'test', cond: unknown(this.text(t.start, end)), start: t.start, end });
      }
      this.lex.next();
      const body = this.list();
      const end = this.expect(')', t);
      return this.redirected({ kind: 'group', body, subshell: true, cond: TRUE, start: t.start, end });
    }
    if (t.kind !== 'word') return this.simple();
    switch (t.word.raw) {
      case 'if':
        return this.redirected(this.ifCommand());
      case 'case':
        return this.redirected(this.caseCommand());
      case 'for':
      case 'select':
        return this.redirected(this.forLoop());
      case 'while':
      case 'until':
        return this.redirected(this.whileLoop());
      case '{': {
        this.lex.next();
        const body = this.list();
        return this.redirected({ kind: 'group', body, subshell: false, cond: TRUE, start: t.start, end: this.expect('}', t) });
      }
      case '[[':
        return this.redirected(this.doubleBracket());
      case 'function': {
        this.lex.next();
        this.lex.next();
        if (isOp(this.lex.peek(), '(')) {
          this.lex.next();
          this.expect(')', t);
        }
        return this.functionBody(t.start);
      }
      default:
        return this.simple();
    }
  }

  /** Trailing redirections of a compound command: `done < <(find …)`, `) 9>"$lock"`. */
  private redirected<C extends Command>(command: C): C {
    while (this.lex.peek().kind === 'op' && REDIRECTIONS.has((this.lex.peek() as { op: string }).op)) {
      this.lex.next();
      command.end = this.redirectTarget();
    }
    return command;
  }

  private redirectTarget(): number {
    const target = this.lex.next();
    if (target.kind !== 'word') this.problem(target.start, `a redirection without a target (found ${describe(target)})`);
    return target.end;
  }

  private simple(): Command {
    const first = this.lex.peek();
    const words: Word[] = [];
    let end = first.start;
    for (;;) {
      const t = this.lex.peek();
      if (t.kind === 'word') {
        words.push(t.word);
        end = this.lex.next().end;
      } else if (t.kind === 'op' && REDIRECTIONS.has(t.op)) {
        this.lex.next();
        end = this.redirectTarget();
      } else if (isOp(t, '(') && words.length === 1) {
        // name() { … }
        this.lex.next();
        this.expect(')', t);
        return this.functionBody(first.start);
      } else break;
    }
    if (end === first.start) {
      this.problem(first.start, `unexpected ${describe(first)}`);
      end = this.lex.next().end;
    }
    return { kind: 'simple', words, start: first.start, end };
  }

  private functionBody(start: number): FunctionDef {
    this.skip('newline');
    return { kind: 'function', start, end: this.command().end };
  }

  /** Consumes `closer` (a keyword or operator), or reports its absence; the offset after it. */
  private expect(closer: string, opener: Token): number {
    const t = this.lex.peek();
    if (isWord(t, closer) || isOp(t, closer)) return this.lex.next().end;
    const what = opener.kind === 'word' ? opener.word.raw : opener.kind === 'op' ? opener.op : opener.kind;
    this.problem(t.start, `expected "${closer}" for the "${what}" on line ${this.lines.of(opener.start)}, found ${describe(t)}`);
    return t.start;
  }

  private ifCommand(): IfCommand {
    const opener = this.lex.next();
    const arms: Arm[] = [];
    let keyword = opener;
    for (;;) {
      const isElse = isWord(keyword, 'else');
      let cond: Cond | undefined;
      let text = 'else';
      let headEnd = keyword.end;
      if (!isElse) {
        const condition = this.list();
        cond = condition.length > 0 ? this.stmtCond(condition.at(-1)!) : unknown('');
        text = condition.length > 0 ? this.text(condition[0]!.start, condition.at(-1)!.end) : '';
        headEnd = this.expect('then', keyword);
      }
      const body = this.list();
      arms.push({ cond, text, body, start: keyword.start, end: body.at(-1)?.end ?? headEnd });
      const t = this.lex.peek();
      if (!isElse && isWord(t, 'elif', 'else')) keyword = this.lex.next();
      else return { kind: 'if', arms, start: opener.start, end: this.expect('fi', opener) };
    }
  }

  private caseCommand(): IfCommand {
    const opener = this.lex.next();
    const subject = this.lex.next();
    this.skip('newline');
    this.expect('in', opener);
    const arms: Arm[] = [];
    for (;;) {
      this.skip('newline', ';');
      const t = this.lex.peek();
      if (isWord(t, 'esac') || t.kind === 'end') break;
      if (isOp(t, '(')) this.lex.next();
      const start = this.lex.peek().start;
      const patterns: Word[] = [];
      while (this.lex.peek().kind === 'word') {
        patterns.push((this.lex.next() as { word: Word }).word);
        if (!isOp(this.lex.peek(), '|')) break;
        this.lex.next();
      }
      if (!isOp(this.lex.peek(), ')')) break;
      const close = this.lex.next().end;
      const body = this.list();
      const cond = subject.kind === 'word' ? caseCond(subject.word, patterns, this.text(subject.start, close)) : unknown('');
      arms.push({ cond, text: this.text(start, close), body, start, end: body.at(-1)?.end ?? close });
      if (isOp(this.lex.peek(), ';;', ';&', ';;&')) this.lex.next();
    }
    return { kind: 'if', arms, start: opener.start, end: this.expect('esac', opener) };
  }

  private forLoop(): Group {
    const opener = this.lex.next();
    let loopVariable: string | undefined;
    let headerEnd = opener.end;
    const t = this.lex.peek();
    if (isOp(t, '(') && this.src[t.start + 1] === '(') headerEnd = this.lex.arithmetic(t);
    else {
      const name = this.lex.next();
      loopVariable = name.kind === 'word' ? name.word.raw : undefined;
      headerEnd = name.end;
      this.skip('newline');
      if (isWord(this.lex.peek(), 'in')) {
        headerEnd = this.lex.next().end;
        while (this.lex.peek().kind === 'word') headerEnd = this.lex.next().end;
      }
    }
    this.skip('newline', ';');
    this.expect('do', opener);
    const body = this.list();
    const end = this.expect('done', opener);
    return {
      kind: 'group',
      body,
      subshell: false,
      cond: unknown(this.text(opener.start, headerEnd)),
      loopVariable,
      start: opener.start,
      end,
    };
  }

  private whileLoop(): Group {
    const opener = this.lex.next();
    const condition = this.list();
    const header = this.text(opener.start, condition.at(-1)?.end ?? opener.end);
    this.expect('do', opener);
    const body = this.list();
    const end = this.expect('done', opener);
    return { kind: 'group', body: [...condition, ...body], subshell: false, cond: unknown(header), start: opener.start, end };
  }

  private doubleBracket(): TestCommand {
    const opener = this.lex.next();
    const tokens: Token[] = [];
    for (;;) {
      const t = this.lex.next();
      if (isWord(t, ']]')) return { kind: 'test', cond: this.bracketCond(tokens, opener), start: opener.start, end: t.end };
      if (t.kind === 'end') {
        this.problem(opener.start, '"[[" without "]]"');
        return { kind: 'test', cond: unknown(this.text(opener.start, t.end)), start: opener.start, end: t.end };
      }
      if (t.kind !== 'newline') tokens.push(t);
    }
  }

  /** The inside of `[[ … ]]`: `!`, `( )`, `&&` and `||` over tests. */
  private bracketCond(tokens: Token[], opener: Token): Cond {
    let i = 0;
    const at = (...ops: string[]): boolean => i < tokens.length && isOp(tokens[i]!, ...ops);
    /** Consumes the operator or word `what` when it comes next. */
    const take = (what: string): boolean => {
      const next = tokens[i];
      const found = next !== undefined && (isOp(next, what) || isWord(next, what));
      if (found) i++;
      return found;
    };
    const disjunction = (): Cond => {
      let c = conjunction();
      while (take('||')) c = or(c, conjunction());
      return c;
    };
    const conjunction = (): Cond => {
      let c = unary();
      while (take('&&')) c = and(c, unary());
      return c;
    };
    const unary = (): Cond => {
      if (take('!')) return not(unary());
      if (!take('(')) return primary();
      const c = disjunction();
      if (!take(')')) this.problem(opener.start, 'unbalanced "(" in [[ ]]');
      return c;
    };
    const primary = (): Cond => {
      const from = i;
      // Parentheses within a test belong to it (`=~ ^(a|b)$`).
      for (let depth = 0; i < tokens.length; i++) {
        if (depth === 0 && at('&&', '||', ')')) break;
        depth += at('(') ? 1 : at(')') ? -1 : 0;
      }
      const items = tokens.slice(from, i);
      const text = items.length > 0 ? this.text(items[0]!.start, items.at(-1)!.end) : '';
      const words = items.map((t) => (t.kind === 'word' ? t.word : undefined));
      return words.every((w) => w !== undefined) ? testCond(words as Word[], text, true) : unknown(text);
    };
    const cond = disjunction();
    if (i < tokens.length) this.problem(tokens[i]!.start, `unexpected ${describe(tokens[i]!)} in [[ ]]`);
    return cond;
  }

  /** What an and-or list's exit status says, as a condition. */
  stmtCond(stmt: Stmt): Cond {
    let cond = this.pipelineCond(stmt.pipelines[0]!);
    stmt.ops.forEach((op, i) => {
      const next = this.pipelineCond(stmt.pipelines[i + 1]!);
      cond = op === '&&' ? and(cond, next) : or(cond, next);
    });
    return cond;
  }

  private pipelineCond(pipeline: Pipeline): Cond {
    const { commands } = pipeline;
    const cond = commands.length === 1 ? this.commandCond(commands[0]!) : unknown(this.text(commands[0]!.start, pipeline.end));
    return pipeline.negated ? not(cond) : cond;
  }

  private commandCond(command: Command): Cond {
    if (command.kind === 'test') return command.cond;
    const text = this.text(command.start, command.end);
    if (command.kind !== 'simple') return unknown(text);
    const [head, ...args] = command.words;
    if (head?.raw === 'true' || head?.raw === ':') return TRUE;
    if (head?.raw === 'false') return FALSE;
    if (head?.raw === 'test') return this.testArgsCond(args);
    if (head?.raw === '[' && args.at(-1)?.raw === ']') return this.testArgsCond(args.slice(0, -1));
    return unknown(text);
  }

  /** The arguments of `test` / `[ ]`: `!`, `-o`, `-a` over tests; `=` and `==` compare literally. */
  private testArgsCond(args: Word[]): Cond {
    const text = args.length > 0 ? this.text(args[0]!.start, args.at(-1)!.end) : '';
    const split = (op: string): [Word[], Word[]] | undefined => {
      const at = args.findIndex((w, i) => i > 0 && w.raw === op);
      return at > 0 ? [args.slice(0, at), args.slice(at + 1)] : undefined;
    };
    const orParts = split('-o');
    if (orParts) return or(this.testArgsCond(orParts[0]), this.testArgsCond(orParts[1]));
    const andParts = split('-a');
    if (andParts) return and(this.testArgsCond(andParts[0]), this.testArgsCond(andParts[1]));
    if (args[0]?.raw === '!' && args.length > 1) return not(this.testArgsCond(args.slice(1)));
    return testCond(args, text, false);
  }
}

/** The variable a word is, alone: `$VAR`, `"$VAR"`, `${VAR}`, `${VAR:-default}`. */
const variableOf = (word: Word): string | undefined =>
  word.parts.length === 1 && word.parts[0]!.kind === 'var' ? word.parts[0]!.name : undefined;

/** A word as a pattern (literal parts only); glob when `globbing` and it has unquoted `*`, `?` or `[`. */
function patternOf(word: Word, globbing: boolean): { text: string; glob: boolean } | undefined {
  const parts = word.parts;
  if (parts.some((p) => p.kind !== 'lit')) return undefined;
  const literals = parts as Extract<Part, { kind: 'lit' }>[];
  const glob = globbing && literals.some((p) => !p.quoted && /[*?[]/.test(p.text));
  const text = literals.map((p) => (glob && p.quoted ? p.text.replace(/[*?[\]\\]/g, '\\$&') : p.text)).join('');
  return { text, glob };
}

/** One test: `X`, `-n X`, `-z X`, `X == P`, `X = P`, `X != P`; anything else is unknown. */
function testCond(words: Word[], text: string, globbing: boolean): Cond {
  const [a, b, c] = words;
  if (words.length === 1 && variableOf(a!))
    return { kind: 'test', variable: variableOf(a!)!, op: 'set', pattern: '', glob: false };
  if (words.length === 2 && (a!.raw === '-n' || a!.raw === '-z') && variableOf(b!)) {
    return { kind: 'test', variable: variableOf(b!)!, op: a!.raw === '-n' ? 'set' : 'empty', pattern: '', glob: false };
  }
  if (words.length === 3 && ['==', '=', '!='].includes(b!.raw)) {
    const variable = variableOf(a!);
    const pattern = patternOf(c!, globbing);
    if (variable && pattern)
      return { kind: 'test', variable, op: b!.raw === '!=' ? '!=' : '==', pattern: pattern.text, glob: pattern.glob };
  }
  return unknown(text);
}

/** A case arm's patterns against its subject. */
function caseCond(subject: Word, patterns: Word[], text: string): Cond {
  const variable = variableOf(subject);
  const tests = patterns.map((p) => patternOf(p, true));
  if (!variable || tests.some((t) => !t)) return unknown(text);
  return or(...tests.map((t) => ({ kind: 'test' as const, variable, op: '==' as const, pattern: t!.text, glob: t!.glob })));
}

// ---------------------------------------------------------------------------------------------
// Walking the script: literal variables, conditions, clones

class Lines {
  private readonly starts = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** The 1-based line of an offset. */
  of(offset: number): number {
    let [lo, hi] = [0, this.starts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

/** A variable's literal value, or null where the script gives it a non-literal or path-dependent one. */
type Env = Map<string, string | null>;

/** A word after substituting literal variables; `resolved` when nothing was left as written. */
interface Value {
  text: string;
  resolved: boolean;
}

function expand(word: Word, env: Env): Value {
  let resolved = true;
  const text = word.parts
    .map((p) => {
      if (p.kind === 'lit') return p.text;
      const value = p.kind === 'var' ? env.get(p.name) : undefined;
      if (typeof value === 'string') return value;
      resolved = false;
      return p.raw;
    })
    .join('');
  return { text, resolved };
}

/** Tests on variables with a literal value decided; the rest as is. */
function fold(cond: Cond, env: Env): Cond {
  switch (cond.kind) {
    case 'test': {
      const value = env.get(cond.variable);
      return typeof value === 'string' ? (evaluate(cond, { [cond.variable]: value }) ? TRUE : FALSE) : cond;
    }
    case 'and':
      return and(...cond.items.map((c) => fold(c, env)));
    case 'or':
      return or(...cond.items.map((c) => fold(c, env)));
    case 'not':
      return not(fold(cond.item, env));
    default:
      return cond;
  }
}

interface ArmSpan {
  line: number;
  endLine: number;
  text: string;
}

interface CloneSite {
  command: Simple;
  /** The statements after the clone in its block, then those after each enclosing command. */
  rest: Stmt[][];
  condition: Cond;
  /** The enclosing arms' own conditions only (see CloneRoute.match). */
  match: Cond;
  arm: ArmSpan | undefined;
}

const DECLARATIONS = new Set(['export', 'readonly', 'declare', 'typeset', 'local']);

class Walker {
  env: Env = new Map();
  /** Each simple command's words, expanded with the literal variables at that point. */
  readonly values = new Map<Simple, Value[]>();
  /** Each arm's own condition, folded at its `if`. */
  readonly armConds = new Map<Arm, Cond>();
  /** Arms that can never be taken (their condition folds to false, or an earlier arm's to true). */
  readonly deadArms = new Set<Arm>();
  readonly clones: CloneSite[] = [];

  constructor(private readonly lines: Lines) {}

  block(stmts: Stmt[], outer: Cond[], arm: ArmSpan | undefined, rest: Stmt[][], own: Cond[] = []): void {
    const conds = [...outer];
    stmts.forEach((stmt, index) => {
      const after = [stmts.slice(index + 1), ...rest];
      const alone = stmt.pipelines.length === 1 && stmt.pipelines[0]!.commands.length === 1;
      for (const command of stmt.pipelines.flatMap((p) => p.commands)) {
        if (command.kind === 'simple') {
          const values = command.words.map((w) => expand(w, this.env));
          this.values.set(command, values);
          if (gitCommand(values)?.name === 'clone')
            this.clones.push({ command, rest: after, condition: and(...conds), match: and(...own), arm });
          this.assign(command, alone);
        } else if (command.kind === 'if') {
          const guards = this.ifCommand(command, conds, after, own);
          if (alone) conds.push(...guards);
        } else if (command.kind === 'group') {
          this.scoped(command.subshell, () =>
            this.block(command.body, [...conds, command.cond], arm, after, [...own, command.cond]),
          );
          if (command.loopVariable) this.env.set(command.loopVariable, null);
        }
        // Function bodies are not on the main path; [[ ]] and (( )) do nothing to walk.
      }
    });
  }

  /** Walks each arm; the guards the `if` leaves for what follows it. */
  private ifCommand(command: IfCommand, conds: Cond[], after: Stmt[][], outerOwn: Cond[]): Cond[] {
    const earlier: Cond[] = [];
    const walks = command.arms.map((arm) => () => {
      const own = arm.cond && fold(arm.cond, this.env);
      if (own) this.armConds.set(arm, own);
      const span = { line: this.lines.of(arm.start), endLine: this.lines.of(Math.max(arm.start, arm.end - 1)), text: arm.text };
      const path = and(...earlier.map(not), own ?? TRUE);
      if (isFalse(path)) this.deadArms.add(arm);
      this.block(arm.body, [...conds, path], span, after, [...outerOwn, own ?? TRUE]);
      if (own) earlier.push(own);
    });
    this.scoped(false, ...walks);
    return exitGuards(command.arms, this.armConds);
  }

  /**
   * Runs each walk on its own copy of the variables (the arms of an `if` all start from what held
   * before it); afterwards the variables any of them changed are no longer literal. A subshell
   * changes none.
   */
  private scoped(subshell: boolean, ...walks: (() => void)[]): void {
    const outer = this.env;
    const changed = new Set<string>();
    for (const walk of walks) {
      this.env = new Map(outer);
      walk();
      for (const [name, value] of this.env) if (outer.get(name) !== value || !outer.has(name)) changed.add(name);
    }
    this.env = outer;
    if (!subshell) for (const name of changed) outer.set(name, null);
  }

  /** `NAME=value`, `export NAME=value`…; a value is literal when it needs only literal variables. */
  private assign(command: Simple, alone: boolean): void {
    const [head] = command.words;
    const declared = head !== undefined && DECLARATIONS.has(head.raw);
    const words = declared ? command.words.slice(1).filter((w) => !w.raw.startsWith('-')) : command.words;
    const assignments = words.map((word) => ({ word, match: /^([A-Za-z_]\w*)(\+?)=/.exec(word.raw) }));
    // `A=1 cmd` sets A for cmd only.
    if (!declared && assignments.some((a) => !a.match)) return;
    for (const { word, match } of assignments) {
      if (!match) continue;
      const [prefix, name, append] = [match[0], match[1]!, match[2]!];
      const first = word.parts[0];
      const valueParts =
        first?.kind === 'lit' ? [{ ...first, text: first.text.slice(prefix.length) }, ...word.parts.slice(1)] : [];
      const value = expand({ ...word, parts: valueParts }, this.env);
      const previous = this.env.get(name);
      const literal = alone && value.resolved && (!append || typeof previous === 'string');
      this.env.set(name, literal ? (append ? previous + value.text : value.text) : null);
    }
  }
}

/** Whether a block always ends in `exit` or `exec <command>` (an `if` only when each of its arms, an else included, does). */
function alwaysExits(body: Stmt[]): boolean {
  const last = body.at(-1);
  if (!last || last.pipelines.length !== 1 || last.pipelines[0]!.commands.length !== 1) return false;
  const command = last.pipelines[0]!.commands[0]!;
  if (command.kind === 'simple')
    return command.words[0]?.raw === 'exit' || (command.words[0]?.raw === 'exec' && command.words.length > 1);
  if (command.kind === 'if') return command.arms.some((a) => !a.cond) && command.arms.every((a) => alwaysExits(a.body));
  return command.kind === 'group' && !command.subshell && command.cond.kind === 'true' && alwaysExits(command.body);
}

/**
 * What must hold after an `if` for execution to go on: for each arm that always exits, that it
 * was not taken. Given the guards of earlier exiting arms, arm i is taken when no earlier arm
 * that goes on holds and its own condition does; an exiting else leaves "some earlier arm held".
 */
function exitGuards(arms: Arm[], armConds: Map<Arm, Cond>): Cond[] {
  const guards: Cond[] = [];
  const goingOn: Cond[] = [];
  for (const arm of arms) {
    const own = armConds.get(arm);
    if (alwaysExits(arm.body)) guards.push(own ? not(and(...goingOn.map(not), own)) : or(...goingOn));
    else if (own) goingOn.push(own);
  }
  return guards;
}

// ---------------------------------------------------------------------------------------------
// Routes: the ref each clone ends on, and the overlays copied onto it

/** `git [-C dir] [-c k=v] <name> args…`. */
function gitCommand(values: Value[]): { name: string; args: Value[] } | undefined {
  if (values[0]?.text !== 'git') return undefined;
  let i = 1;
  while (i < values.length && values[i]!.text.startsWith('-'))
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace'].includes(values[i]!.text) ? 2 : 1;
  return i < values.length ? { name: values[i]!.text, args: values.slice(i + 1) } : undefined;
}

/** git clone's options that take the next argument as their value. */
const CLONE_OPTIONS_WITH_VALUE = new Set(
  `-b --branch -o --origin --depth -c --config -j --jobs --reference --reference-if-able --template
   --separate-git-dir -u --upload-pack --shallow-since --shallow-exclude --filter --server-option`.split(/\s+/),
);

function cloneArgs(args: Value[]): { url: Value | undefined; branch: Value | undefined } {
  const positional: Value[] = [];
  let branch: Value | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.text === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.text.startsWith('--branch=')) branch = { ...arg, text: arg.text.slice('--branch='.length) };
    else if (CLONE_OPTIONS_WITH_VALUE.has(arg.text)) {
      if (arg.text === '-b' || arg.text === '--branch') branch = args[i + 1];
      i++;
    } else if (!arg.text.startsWith('-')) positional.push(arg);
  }
  return { url: positional[0], branch };
}

/** The ref `git checkout REF` / `git switch [--detach] REF` moves to (`-b new start`: start). */
function checkoutRef(values: Value[]): Value | undefined {
  const git = gitCommand(values);
  if (git?.name !== 'checkout' && git?.name !== 'switch') return undefined;
  for (let i = 0; i < git.args.length; i++) {
    const arg = git.args[i]!;
    if (arg.text === '--') return undefined;
    if (['-b', '-B', '-c', '-C', '--orphan'].includes(arg.text)) i++;
    else if (!arg.text.startsWith('-')) return arg;
  }
  return undefined;
}

/** The commit of `test "$(git rev-parse HEAD)" = "<sha>"` (or `[ … ]`). */
function verifiedCommit(command: Simple, values: Value[]): string | undefined {
  const head = values[0]?.text;
  if (head !== 'test' && head !== '[') return undefined;
  const op = values.findIndex((v) => v.text === '=' || v.text === '==');
  if (op < 2 || op + 1 >= values.length) return undefined;
  const sides = [op - 1, op + 1];
  const headSide = sides.find((i) => /\$\(\s*git rev-parse HEAD\s*\)/.test(command.words[i]!.raw));
  const other = sides.find((i) => i !== headSide);
  const commit = other === undefined || headSide === undefined ? undefined : values[other]!;
  return commit?.resolved && FULL_SHA.test(commit.text) ? commit.text : undefined;
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

interface RefFacts {
  /** The --branch of the clone, or the last checkout after it. */
  ref?: { value: Value; line: number };
  verified?: { commit: string; line: number };
}

/** One way the checkout goes: its facts, under the conditions of the nested arms that chose it. */
interface Fork {
  facts: RefFacts;
  conds: Cond[];
}

class RefReader {
  constructor(
    private readonly walker: Walker,
    private readonly lines: Lines,
  ) {}

  /** Follows checkouts and verifications through the statements after a clone, forking over an `if` that checks out. */
  read(stmts: Stmt[], forks: Fork[]): Fork[] {
    for (const stmt of stmts) {
      const command = stmt.pipelines[0]!.commands[0]!;
      if (command.kind === 'simple') {
        const values = this.walker.values.get(command) ?? [];
        if (gitCommand(values)?.name === 'clone') break;
        const line = this.lines.of(command.start);
        const ref = checkoutRef(values);
        const commit = verifiedCommit(command, values);
        if (ref) forks = forks.map((f) => ({ ...f, facts: { ref: { value: ref, line } } }));
        if (commit) forks = forks.map((f) => ({ ...f, facts: { ...f.facts, verified: { commit, line } } }));
      } else if (command.kind === 'if' && this.movesRef(command.arms.flatMap((a) => a.body))) {
        forks = forks.flatMap((fork) => this.branch(command, fork));
      }
    }
    return forks;
  }

  private branch(command: IfCommand, fork: Fork): Fork[] {
    const out: Fork[] = [];
    const earlier: Cond[] = [];
    for (const arm of command.arms) {
      const own = this.walker.armConds.get(arm);
      const path = and(...earlier.map(not), own ?? TRUE);
      if (!isFalse(path)) out.push(...this.read(arm.body, [{ facts: fork.facts, conds: [...fork.conds, path] }]));
      if (own) earlier.push(own);
    }
    const none = and(...earlier.map(not));
    if (command.arms.every((a) => a.cond) && !isFalse(none)) out.push({ facts: fork.facts, conds: [...fork.conds, none] });
    return out;
  }

  private movesRef(stmts: Stmt[]): boolean {
    return stmts.some((stmt) =>
      stmt.pipelines.some((p) =>
        p.commands.some((c) => {
          if (c.kind === 'if') return this.movesRef(c.arms.flatMap((a) => a.body));
          if (c.kind === 'group') return this.movesRef(c.body);
          if (c.kind !== 'simple') return false;
          const values = this.walker.values.get(c) ?? [];
          return checkoutRef(values) !== undefined || verifiedCommit(c, values) !== undefined;
        }),
      ),
    );
  }
}

function toolchainRef(facts: RefFacts, cloneLine: number): ToolchainRef {
  const { ref, verified } = facts;
  if (!ref)
    return verified ? { kind: 'verified', commit: verified.commit, line: verified.line } : { kind: 'default', line: cloneLine };
  const value = ref.value.text;
  if (!ref.value.resolved) return { kind: 'unknown', value, line: ref.line };
  if (FULL_SHA.test(value)) return { kind: 'commit', value, commit: value, line: ref.line };
  if (verified) return { kind: 'verified', value, commit: verified.commit, line: verified.line };
  const kind = /^[0-9a-f]{7,39}$/i.test(value) ? 'short-sha' : /^v?\d+(\.\d+)+/.test(value) ? 'tag' : 'branch';
  return { kind, value, line: ref.line };
}

const RECIPES_DIR = /(?:^|\/)benchmarks\/multi_node\/srt-slurm-recipes\/(.+)$/;

/** `cp [options] …/srt-slurm-recipes/<from>… <to>`. */
function overlaysOf(values: Value[], line: number): CloneRoute['overlays'] {
  if (values[0]?.text !== 'cp') return [];
  const paths = values.slice(1).filter((v) => !v.text.startsWith('-'));
  const to = paths.pop();
  return paths.flatMap((source) => {
    const from = RECIPES_DIR.exec(source.text)?.[1];
    return from && to ? [{ from, to: to.text, line }] : [];
  });
}

/** The overlays run after a clone: the rest of its block, then after each enclosing command, up to another clone. */
function overlaysAfter(rest: Stmt[][], walker: Walker, lines: Lines): CloneRoute['overlays'] {
  const found: CloneRoute['overlays'] = [];
  // True when it reaches another clone.
  const visit = (stmts: Stmt[]): boolean =>
    stmts.some((stmt) =>
      stmt.pipelines.some((p) =>
        p.commands.some((c) => {
          if (c.kind === 'if') return c.arms.some((a) => !walker.deadArms.has(a) && visit(a.body));
          if (c.kind === 'group') return visit(c.body);
          if (c.kind !== 'simple') return false;
          const values = walker.values.get(c) ?? [];
          if (gitCommand(values)?.name === 'clone') return true;
          found.push(...overlaysOf(values, lines.of(c.start)));
          return false;
        }),
      ),
    );
  rest.some(visit);
  return found;
}

function routesOf(site: CloneSite, walker: Walker, lines: Lines, problem: (at: number, message: string) => void): CloneRoute[] {
  const values = walker.values.get(site.command)!;
  const { url, branch } = cloneArgs(gitCommand(values)!.args);
  if (!url) {
    problem(site.command.start, 'git clone without a repository');
    return [];
  }
  const line = lines.of(site.command.start);
  const arm = site.arm ?? { line, endLine: line, text: '' };
  const facts: RefFacts = branch ? { ref: { value: branch, line } } : {};
  const forks = new RefReader(walker, lines).read(site.rest[0] ?? [], [{ facts, conds: [] }]);
  const overlays = overlaysAfter(site.rest, walker, lines);
  return forks.map((fork) => {
    const condition = and(site.condition, ...fork.conds);
    const match = and(site.match, ...fork.conds);
    const ref = toolchainRef(fork.facts, line);
    // The route's own text: what its arms test, not the earlier arms it follows (adding a branch
    // before an else leaves the else as it was).
    const identity = JSON.stringify([formatCond(match), url.text, ref.kind, ref.value ?? '', ref.commit ?? '']);
    const signature = createHash('sha256').update(identity).digest('hex').slice(0, 16);
    return {
      line,
      arm: { line: arm.line, endLine: arm.endLine },
      armText: arm.text,
      condition,
      match,
      repo: url.text,
      ref,
      overlays,
      signature,
    };
  });
}
