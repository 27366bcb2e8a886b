import { TRUE, and, isFalse, not } from '../bash/conditions.js';
import type { Cond } from '../bash/conditions.js';
import { exitGuards } from '../bash/exit-guards.js';
import type { Lines } from '../bash/lines.js';
import type { Arm, IfCommand, Simple, Stmt } from '../bash/syntax.js';
import { expand, fold } from '../bash/variables.js';
import type { Env, Value } from '../bash/variables.js';
import { gitCommand } from './git-commands.js';

// Walking a launcher: the literal variables at each command, the condition of each arm, and
// the `git clone` sites with what must hold to reach them.

export interface ArmSpan {
  line: number;
  endLine: number;
  text: string;
}

export interface CloneSite {
  command: Simple;
  /** The statements after the clone in its block, then those after each enclosing command. */
  rest: Stmt[][];
  condition: Cond;
  /** The enclosing arms' own conditions only (see CloneRoute.match). */
  match: Cond;
  arm: ArmSpan | undefined;
}

const DECLARATIONS = new Set(['export', 'readonly', 'declare', 'typeset', 'local']);

export class Walker {
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
