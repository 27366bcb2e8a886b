import { Lexer } from './lexer.js';
import { Lines } from './lines.js';
import { Parser } from './parser.js';
import type { Command, FunctionDef, Stmt } from './syntax.js';

// What a shell file's code uses, for reading which variables a run reads (src/clusters/inferencex/route-reads.ts):
// its words and the shell files it names, top-level code and each function apart, without the
// statements that only validate (test, report and exit).

const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;
/** A shell file's name, as code names a file it sources or runs. */
export const SHELL_NAME = /[\w.-]+\.sh\b/g;
/** Commands that only test, report or stop the run (`return` is not one: its status is the function's answer). */
const QUIET = new Set(['echo', 'printf', 'exit', 'true', 'false', ':', '[', 'test']);
/** Redirections that write no file. */
const NO_FILE = /\d*>>?\s*(?:&\d|\/dev\/(?:null|stderr|stdout)\b)/g;

/** Code of a shell file: the words it uses and the shell files it names (`benchmark_lib.sh`). */
export interface Code {
  words: Set<string>;
  names: Set<string>;
}

/** A shell file as the route reader sees it: its top-level code, and each function's. */
export interface ShellFile {
  top: Code;
  functions: Map<string, Code>;
}

interface Span {
  start: number;
  end: number;
}

/** A line without its comment (`#` at its start or after a blank, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** The code of `span` of a text, leaving out the spans `skip` (sorted) and comments. */
function codeOf(text: string, span: Span, skip: readonly Span[]): Code {
  let kept = '';
  let at = span.start;
  for (const s of skip) {
    if (s.end <= at || s.start >= span.end) continue;
    kept += `${text.slice(at, s.start)}\n`;
    at = s.end;
  }
  kept += text.slice(at, span.end);
  const lines = kept.split('\n').map(withoutComment);
  return {
    words: new Set(lines.flatMap((l) => l.match(WORD) ?? [])),
    names: new Set(lines.flatMap((l) => l.match(SHELL_NAME) ?? [])),
  };
}

/**
 * Whether a statement only tests, reports and stops (`[[ -z $X ]] && { echo "…" >&2; exit 1; }`, an
 * if whose conditions and branches do only that): a variable read there is validated, and
 * changes nothing that runs. A message that writes a file, or runs a command substitution, is not quiet.
 */
function quiet(stmt: Stmt, text: string): boolean {
  return stmt.pipelines.every((p) => p.commands.every((c) => quietCommand(c, text)));
}

function quietCommand(c: Command, text: string): boolean {
  switch (c.kind) {
    case 'simple': {
      const raw = text.slice(c.start, c.end).replace(NO_FILE, '');
      const substitutes = c.words.some((w) => w.parts.some((p) => p.kind === 'expr' && /^(?:\$\(|`)/.test(p.raw)));
      return QUIET.has(c.words[0]?.raw ?? '') && !raw.includes('>') && !substitutes;
    }
    case 'test':
      return text.startsWith('[[', c.start);
    case 'if':
      return c.arms.every((arm) => [...arm.head, ...arm.body].every((s) => quiet(s, text)));
    case 'group':
      return c.cond.kind === 'true' && c.body.every((s) => quiet(s, text));
    default:
      return false;
  }
}

/**
 * The quiet statements and the function definitions among `stmts` and the commands they hold.
 * The last statement of a function's body is its answer to the caller (`[[ $X != none ]]`), never quiet.
 */
function walk(stmts: readonly Stmt[], text: string, out: { quiet: Span[]; functions: FunctionDef[] }, answers = false): void {
  stmts.forEach((stmt, i) => {
    if (quiet(stmt, text) && !(answers && i === stmts.length - 1)) {
      out.quiet.push(stmt);
      return;
    }
    for (const c of stmt.pipelines.flatMap((p) => p.commands)) {
      if (c.kind === 'function') out.functions.push(c);
      else if (c.kind === 'if') for (const arm of c.arms) walk([...arm.head, ...arm.body], text, out);
      else if (c.kind === 'group') walk(c.body, text, out);
    }
  });
}

/** A shell file read with bash's grammar; one the reader cannot follow counts whole, as top-level code. */
export function readShell(text: string): ShellFile {
  const lines = new Lines(text);
  let followed = true;
  const problem = (): void => void (followed = false);
  const script = new Parser(new Lexer(text, problem), lines, problem).script();
  const whole = { start: 0, end: text.length };
  if (!followed) return { top: codeOf(text, whole, []), functions: new Map() };
  const top = { quiet: [] as Span[], functions: [] as FunctionDef[] };
  walk(script, text, top);
  const bySpan = (a: Span, b: Span): number => a.start - b.start;
  const functions = new Map<string, Code>();
  // Functions defined inside functions are read as functions of their own.
  for (let i = 0; i < top.functions.length; i++) {
    const fn = top.functions[i]!;
    const inner = { quiet: [] as Span[], functions: [] as FunctionDef[] };
    if (fn.body.kind === 'group') walk(fn.body.body, text, inner, true);
    top.functions.push(...inner.functions);
    const code = codeOf(text, fn, [...inner.quiet, ...inner.functions].sort(bySpan));
    const known = functions.get(fn.name);
    // Defined twice (on two branches): either body may run.
    functions.set(
      fn.name,
      known ? { words: new Set([...known.words, ...code.words]), names: new Set([...known.names, ...code.names]) } : code,
    );
  }
  return { top: codeOf(text, whole, [...top.quiet, ...top.functions].sort(bySpan)), functions };
}
