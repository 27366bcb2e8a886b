/**
 * The exit statuses of `frontier`, one name each, so that a script or a CI job can branch on them
 * and every command sets them the same way (the table is in docs/development.md).
 */
export const ExitCode = {
  /** Done as asked; every check the command ran passed. */
  OK: 0,
  /** A check failed (an invalid point, a failed gate or review, a regression), or the input was refused (a UserError). */
  FAILED: 1,
  /** The command line is wrong: an unknown option, a missing or malformed argument (argparse's status). */
  USAGE: 2,
  /** Stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
