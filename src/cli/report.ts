import { UserError } from '../util/user-error.js';

/**
 * The CLI's last word on a failed command: a UserError (bad input, a refused operation) is printed
 * as it renders itself, without a stack, and its exit status returned; anything else is a bug and
 * is thrown on, to end the process with its stack.
 */
export function report(e: unknown, stderr: (text: string) => void = (text) => void process.stderr.write(text)): number {
  if (!(e instanceof UserError)) throw e;
  stderr(e.render());
  return e.exitCode;
}
