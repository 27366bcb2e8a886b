import { report } from './report.js';
import { buildProgram } from './program.js';

// `frontier review | head`: a reader that stops early is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? 0);
});

buildProgram()
  .parseAsync(process.argv)
  .catch((e: unknown) => {
    process.exitCode = report(e);
  });
