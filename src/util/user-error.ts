import { ExitCode } from './exit-codes.js';

/**
 * A failure the user can fix: bad input (a file, a flag, a config) or an operation refused as
 * asked. The CLI prints it without a stack (`render()`) and exits with `exitCode`; anything that
 * is not a UserError is a bug and keeps its stack. Modules subclass it for their own refusals
 * (with their own fields: a file, a key, the problems found) and say the fix in `hint`.
 */
export class UserError extends Error {
  /** The process exit status the CLI ends with (ExitCode.FAILED unless the kind says otherwise: USAGE for usage). */
  readonly exitCode: number;
  /** How to fix it, printed on its own line after the message. */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string | undefined; exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? ExitCode.FAILED;
    this.hint = options.hint;
  }

  /** What the CLI writes on stderr: `frontier: error: <message>`, then `    hint: <hint>` when there is one. */
  render(): string {
    return `frontier: error: ${this.message}\n${this.hint ? `    hint: ${this.hint}\n` : ''}`;
  }
}
