import { report } from './report.js';
import { buildProgram } from './program.js';
import { ExitCode } from '../util/exit-codes.js';

// `frontier review | head`: a reader that stops early is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? ExitCode.OK);
});

buildProgram()
  .parseAsync(process.argv)
  .catch((e: unknown) => {
    process.exitCode = report(e);
  });
