/**
 * Just enough of a bash script's structure to say what value a setting takes where: its
 * statements with the if/elif/else arms that enclose them, variable assignments, and the value
 * a `$VAR` can have at a given statement. No execution: every arm is considered possible.
 */

/** One arm of an if-statement: the conditions tested to reach it (`else` has none of its own). */
export interface Arm {
  /** Identifies the if-statement (its line). */
  statement: number;
  /** 0 for `then`, 1… for each elif, and the last for `else`. */
  index: number;
  /** The conditions of the statement up to and including this arm's (the else arm: all of them). */
  conditions: string[];
  else: boolean;
}

export interface Statement {
  /** Line of the statement's first physical line (1-based). */
  line: number;
  /** The physical lines joined (backslash continuations), comments not removed. */
  text: string;
  /** Physical line of each character offset of `text` starts at `line`; `lineAt` maps back. */
  lineAt(offset: number): number;
  arms: Arm[];
  /** A line of a here-document (data for another program, not a command). */
  heredoc: boolean;
}

export interface Assignment {
  name: string;
  /** The value as written, quotes removed; `${X:-d}` gives `${X:-d}` (see resolve). */
  value: string;
  statement: Statement;
}

export interface Script {
  statements: Statement[];
  assignments: Assignment[];
}

const ASSIGNMENT = /^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(.*)$/;

/** Split on `;`, `&&` and `||` outside quotes, keeping each part's offset. */
function segments(text: string): { part: string; offset: number; op: string }[] {
  const out: { part: string; offset: number; op: string }[] = [];
  let quote: string | undefined;
  let start = 0;
  let op = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) break;
    else if (c === ';' || ((c === '&' || c === '|') && text[i + 1] === c)) {
      out.push({ part: text.slice(start, i), offset: start, op });
      op = c === ';' ? ';' : c + c;
      if (c !== ';') i++;
      start = i + 1;
    }
  }
  out.push({ part: text.slice(start), offset: start, op });
  return out;
}

export function parseScript(source: string): Script {
  const physical = source.split(/\r?\n/);
  const statements: Statement[] = [];
  const assignments: Assignment[] = [];
  const stack: { statement: number; conditions: string[]; else: boolean }[] = [];
  let heredocEnd: string | undefined;
  const armsNow = (): Arm[] =>
    stack.map((s) => ({
      statement: s.statement,
      index: s.conditions.length - (s.else ? 0 : 1),
      conditions: [...s.conditions],
      else: s.else,
    }));

  for (let i = 0; i < physical.length; i++) {
    const first = i;
    if (heredocEnd !== undefined) {
      const text = physical[i]!;
      if (text.trim() === heredocEnd) heredocEnd = undefined;
      else statements.push({ line: i + 1, text, lineAt: () => first + 1, arms: armsNow(), heredoc: true });
      continue;
    }
    let text = physical[i]!;
    const starts = [0];
    while (/(^|[^\\])\\$/.test(text) && i + 1 < physical.length && !/^\s*#/.test(text)) {
      text = `${text.slice(0, -1)} `;
      starts.push(text.length);
      text += physical[++i]!;
    }
    const lineAt = (offset: number): number => first + 1 + starts.filter((s) => s <= offset).length - 1;
    if (/^\s*#/.test(text) || text.trim() === '') continue;
    const heredoc = /(?<!<)<<(?!<)-?\s*(['"]?)(\w+)\1/.exec(text);
    let previous = '';
    for (const { part, offset, op } of segments(text)) {
      let command = part.trim();
      const keyword = /^(if|elif|then|else|fi|do|done)\b\s*/.exec(command);
      if (keyword) {
        const rest = command.slice(keyword[0].length);
        if (keyword[1] === 'if') stack.push({ statement: first + 1, conditions: [rest], else: false });
        else if (keyword[1] === 'elif' && stack.length > 0) stack[stack.length - 1]!.conditions.push(rest);
        else if (keyword[1] === 'else' && stack.length > 0) stack[stack.length - 1]!.else = true;
        else if (keyword[1] === 'fi') stack.pop();
        if (keyword[1] === 'if' || keyword[1] === 'elif' || keyword[1] === 'fi') continue;
        command = rest;
      }
      if (command === '') continue;
      const arms = armsNow();
      // `[ cond ] && command` and `[ cond ] || command`: the command runs in an arm of its own.
      if (op === '&&' || op === '||')
        arms.push({ statement: first + 1, index: op === '&&' ? 0 : 1, conditions: [previous], else: op === '||' });
      previous = command;
      const statement: Statement = {
        line: lineAt(offset),
        text: command,
        lineAt: (o: number) => lineAt(offset + part.indexOf(command) + o),
        arms,
        heredoc: false,
      };
      statements.push(statement);
      const a = ASSIGNMENT.exec(command);
      if (a) assignments.push({ name: a[1]!, value: unquote(a[2]!.trim()), statement });
    }
    if (heredoc) heredocEnd = heredoc[2];
  }
  return { statements, assignments };
}

/** A shell word without its quotes (and JSON's escaped quotes inside double quotes). */
export function unquote(word: string): string {
  const w = word.replace(/[);]+$/, '').trim();
  if (/^'.*'$/s.test(w) || /^".*"$/s.test(w)) return w.slice(1, -1);
  return w.replace(/^\\?"|\\?"$/g, '');
}

/** Two statements can both run in one execution: at every if-statement they share, the same arm. */
export const compatible = (a: Arm[], b: Arm[]): boolean =>
  a.every((arm) => b.every((other) => other.statement !== arm.statement || other.index === arm.index));

export const sameArms = (a: Arm[], b: Arm[]): boolean =>
  a.length === b.length && a.every((arm, i) => arm.statement === b[i]!.statement && arm.index === b[i]!.index);

export interface Resolved {
  value: string;
  /** Where the value was written (the assignment), for locating it and pairing with others. */
  statement: Statement;
  offset: number;
}

/**
 * The values a word can have at a statement: a literal is itself; `$X`, `${X}` and `${X:-d}` are
 * the values of X's assignments that can run with the statement (those in its own arm first),
 * followed through further variables, and `d` when X is never assigned.
 */
export function resolveWord(script: Script, word: string, at: Statement, offset: number, depth = 0): Resolved[] {
  const w = unquote(word);
  const ref = /^\$\{?(\w+)(?::?-([^}]*))?\}?$/.exec(w);
  if (!ref) return [{ value: w, statement: at, offset }];
  if (depth > 8) return [];
  const [, name, fallback] = ref;
  const compatibleAssignments = script.assignments.filter(
    (a) => a.name === name && a.statement !== at && compatible(a.statement.arms, at.arms),
  );
  const before = compatibleAssignments.filter((a) => a.statement.line < at.line);
  // Later in the file only when nothing comes before (a function reading a global set below it).
  const candidates = before.length > 0 || fallback !== undefined ? before : compatibleAssignments;
  const own = candidates.filter((a) => sameArms(a.statement.arms, at.arms));
  // An assignment that runs whenever the statement does overrides the ones before it.
  const live = candidates.filter(
    (a) => !candidates.some((b) => b.statement.line > a.statement.line && isPrefix(b.statement.arms, at.arms)),
  );
  const chosen = own.length > 0 ? [own[own.length - 1]!] : live;
  if (chosen.length === 0) return fallback !== undefined ? [{ value: fallback, statement: at, offset }] : [];
  return chosen.flatMap((a) => resolveWord(script, a.value, a.statement, a.statement.text.indexOf('=') + 1, depth + 1));
}

const isPrefix = (a: Arm[], b: Arm[]): boolean =>
  a.length <= b.length && a.every((arm, i) => arm.statement === b[i]!.statement && arm.index === b[i]!.index);

/** Shell words of a command (quotes kept), for reading printf's arguments. */
export function words(text: string): { word: string; offset: number }[] {
  const out: { word: string; offset: number }[] = [];
  const re = /(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ word: m[0], offset: m.index });
  return out;
}

/**
 * The argument of `printf FORMAT ARG…` that fills the conversion at `specOffset` of the format
 * (an offset into the statement's text), or undefined when the statement has no such printf.
 */
export function printfArgument(statement: Statement, specOffset: number): { word: string; offset: number } | undefined {
  const ws = words(statement.text);
  const at = ws.findIndex((w) => /(^|\()printf$/.test(w.word));
  const format = ws[at + 1];
  if (at < 0 || !format || specOffset < format.offset || specOffset > format.offset + format.word.length) return undefined;
  const before = format.word.slice(0, specOffset - format.offset).replace(/%%/g, '');
  const index = (before.match(/%/g) ?? []).length;
  const arg = ws[at + 2 + index];
  return arg && { word: arg.word.replace(/\)+$/, ''), offset: arg.offset };
}

/**
 * Whether a statement can run with EVAL_ONLY=true, judged from the EVAL_ONLY tests of its arms
 * (`[ "${EVAL_ONLY:-false}" = "true" ]`, `!= "true"`, `== true`…). Undefined: no arm tests it.
 */
export function runsInEval(arms: Arm[]): boolean | undefined {
  let tested = false;
  for (const arm of arms) {
    const own = arm.else ? undefined : arm.conditions[arm.conditions.length - 1];
    const earlier = arm.else ? arm.conditions : arm.conditions.slice(0, -1);
    const tests = [...earlier, ...(own === undefined ? [] : [own])].map(evalTest);
    if (tests.some((t) => t !== undefined)) tested = true;
    // An earlier arm that takes EVAL_ONLY=true, or an own condition false under it, never runs in an eval.
    if (earlier.some((c) => evalTest(c) === true) || (own !== undefined && evalTest(own) === false)) return false;
  }
  return tested ? true : undefined;
}

/** true: the condition holds when EVAL_ONLY=true; false: it does not; undefined: it does not test EVAL_ONLY. */
function evalTest(condition: string): boolean | undefined {
  const m = /EVAL_ONLY\b[^=!]*?(!=|==|=)\s*["']?(true|false)["']?/.exec(condition);
  if (!m) return undefined;
  const negated = /^\s*!\s/.test(condition);
  const holds = (m[1] === '!=') !== (m[2] === 'true');
  return negated ? !holds : holds;
}
