import { report } from './report.js';
import { buildProgram, requested } from './program.js';
import { ExitCode } from '../util/exit-codes.js';

declare const FRONTIER_VERSION: string;

// `frontier review | head`: a reader that stops early is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? ExitCode.OK);
});

const asked = requested(process.argv.slice(2));
if (asked && 'version' in asked) {
  // What Commander would print, without building any command.
  process.stdout.write(`${typeof FRONTIER_VERSION === 'string' ? FRONTIER_VERSION : 'dev'}\n`);
} else {
  buildProgram(asked?.command)
    .then((program) => program.parseAsync(process.argv))
    .catch((e: unknown) => {
      process.exitCode = report(e);
    });
}
