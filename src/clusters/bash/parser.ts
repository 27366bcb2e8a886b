import { FALSE, TRUE, and, not, or, unknown } from './conditions.js';
import type { Cond } from './conditions.js';
import { REDIRECTIONS } from './lexer.js';
import type { Lexer, Part, Token, Word } from './lexer.js';
import type { Lines } from './lines.js';
import type { Arm, Command, FunctionDef, Group, IfCommand, Pipeline, Stmt, TestCommand } from './syntax.js';

// Reading bash: commands (pipelines, and-or lists, if/case/loops, groups, functions) and the
// conditions of tests (`[[ ]]`, `[ ]`, `test`).

const LIST_END_WORDS = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}']);
const LIST_END_OPS = new Set([')', ';;', ';&', ';;&']);

const isWord = (t: Token, ...words: string[]): boolean => t.kind === 'word' && words.includes(t.word.raw);
const isOp = (t: Token, ...ops: string[]): boolean => t.kind === 'op' && ops.includes(t.op);
const describe = (t: Token): string =>
  t.kind === 'word' ? `"${t.word.raw}"` : t.kind === 'op' ? `"${t.op}"` : t.kind === 'end' ? 'the end of the file' : 'a newline';
const normalise = (text: string): string => text.replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();

export class Parser {
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
        const name = this.lex.next();
        if (isOp(this.lex.peek(), '(')) {
          this.lex.next();
          this.expect(')', t);
        }
        return this.functionBody(t.start, name.kind === 'word' ? name.word.raw : '');
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
        return this.functionBody(first.start, words[0]!.raw);
      } else break;
    }
    if (end === first.start) {
      this.problem(first.start, `unexpected ${describe(first)}`);
      end = this.lex.next().end;
    }
    return { kind: 'simple', words, start: first.start, end };
  }

  private functionBody(start: number, name: string): FunctionDef {
    this.skip('newline');
    const body = this.command();
    return { kind: 'function', name, body, start, end: body.end };
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
      let condition: Stmt[] = [];
      if (!isElse) {
        condition = this.list();
        cond = condition.length > 0 ? this.stmtCond(condition.at(-1)!) : unknown('');
        text = condition.length > 0 ? this.text(condition[0]!.start, condition.at(-1)!.end) : '';
        headEnd = this.expect('then', keyword);
      }
      const body = this.list();
      arms.push({ cond, text, head: condition, body, start: keyword.start, end: body.at(-1)?.end ?? headEnd });
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
      arms.push({ cond, text: this.text(start, close), head: [], body, start, end: body.at(-1)?.end ?? close });
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
