import type { Env } from '../../src/results/index.js';
import { resultsCommand } from '../../src/cli/results.js';

/** What `frontier results …` printed and the exit code it set (undefined: none). */
export interface ResultsCliOutput {
  stdout: string;
  stderr: string;
  exitCode?: number;
}

/** Runs `frontier results <args>` in-process, in `cwd` with `env`, capturing what it prints. */
export async function resultsCli(args: string[], cwd: string, env: Env = {}): Promise<ResultsCliOutput> {
  const out: ResultsCliOutput = { stdout: '', stderr: '' };
  const command = resultsCommand({
    env,
    cwd,
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    setExitCode: (code) => (out.exitCode = code),
  });
  await command.parseAsync(['node', 'frontier-results', ...args]);
  return out;
}
