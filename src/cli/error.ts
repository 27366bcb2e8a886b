/** A command cannot run as asked (a missing file, conflicting options): printed as one line, exit 1. */
export class CliError extends Error {}
