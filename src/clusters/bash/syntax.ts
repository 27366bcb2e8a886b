import type { Cond } from './conditions.js';
import type { Word } from './lexer.js';

// The commands the parser reads (parser.ts), with their offsets in the text.

export interface Simple {
  kind: 'simple';
  words: Word[];
  start: number;
  end: number;
}

/** `[[ … ]]` and `(( … ))`. */
export interface TestCommand {
  kind: 'test';
  cond: Cond;
  start: number;
  end: number;
}

/** if/elif/else, and case (each pattern list an arm). */
export interface IfCommand {
  kind: 'if';
  arms: Arm[];
  start: number;
  end: number;
}

export interface Arm {
  /** Undefined for else. */
  cond: Cond | undefined;
  text: string;
  /** The statements of an if's condition (none for else and case arms). */
  head: Stmt[];
  body: Stmt[];
  /** The keyword's offset, and the end of the arm's last statement. */
  start: number;
  end: number;
}

/** `{ … }`, `( … )`, and loops (entered under `cond`). */
export interface Group {
  kind: 'group';
  body: Stmt[];
  subshell: boolean;
  cond: Cond;
  loopVariable?: string | undefined;
  start: number;
  end: number;
}

export interface FunctionDef {
  kind: 'function';
  /** The function's name. */
  name: string;
  body: Command;
  start: number;
  end: number;
}

export type Command = Simple | TestCommand | IfCommand | Group | FunctionDef;

export interface Pipeline {
  negated: boolean;
  commands: Command[];
  start: number;
  end: number;
}

/** An and-or list: `a && b || c`. */
export interface Stmt {
  pipelines: Pipeline[];
  ops: ('&&' | '||')[];
  start: number;
  end: number;
}
