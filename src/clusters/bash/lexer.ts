// Reading bash: words and tokens (quoting, expansions, heredocs, operators).

export type Part =
  /** Text; quoted when quoting made it literal (no globbing). */
  | { kind: 'lit'; text: string; quoted: boolean }
  /** `$VAR`, `${VAR}`, `${VAR:-default}`. */
  | { kind: 'var'; name: string; raw: string }
  /** Any other expansion (`$(…)`, `${x%y}`, `$1`…), as written. */
  | { kind: 'expr'; raw: string };

export interface Word {
  /** As written (with line continuations). */
  raw: string;
  parts: Part[];
  start: number;
  end: number;
}

export type Token =
  | { kind: 'word'; word: Word; start: number; end: number }
  | { kind: 'op'; op: string; start: number; end: number }
  | { kind: 'newline' | 'end'; start: number; end: number };

// Longest first.
const OPERATORS = ';;& ;; ;& && || |& &>> &> <<< <<- << <& <> < >> >& >| > & | ; ( )'.split(' ');
export const REDIRECTIONS = new Set(['<', '>', '>>', '<&', '>&', '&>', '&>>', '<>', '>|', '<<', '<<-', '<<<']);
const WORD_BREAK = ' \t\r\n;&|<>()';

const lineEnd = (src: string, from: number): number => {
  const at = src.indexOf('\n', from);
  return at < 0 ? src.length : at;
};

/** Text of a word without quotes, variables as written. */
const plainText = (word: Word): string => word.parts.map((p) => (p.kind === 'lit' ? p.text : p.raw)).join('');

export class Lexer {
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
