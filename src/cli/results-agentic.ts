import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { pyFloat, pyPath } from '../pycompat/index.js';
import {
  agenticAggregateJson,
  agenticContextFromEnv,
  agenticSummaryLines,
  aggregateAgentic,
  checkAgenticArtifacts,
  findServerLogPaths,
  resolveArtifactDir,
} from '../results/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { pathOption, pathArgument, startedIn } from './paths.js';
import { ExitCode } from '../util/exit-codes.js';

/** Where the commands read and write (the shape of the results command's io; tests pass their own). */
interface AgenticIo {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

interface AgenticFlags {
  resultDir?: string;
  outputDir?: string;
  resultFilename?: string;
}

/** `frontier results agentic`: process_agentic_result.py, the same variables, files and summary. */
export function addAgenticCommand(results: Command, io: AgenticIo): void {
  results
    .command('agentic')
    .description(
      "an agentic replay's AIPerf artifacts ($RESULT_DIR/aiperf_artifacts) → $AGENTIC_OUTPUT_DIR/$RESULT_FILENAME.json, " +
        'byte-identical to the reference utils/agentic/aggregation/process_agentic_result.py',
    )
    .addOption(pathOption('--result-dir <dir>', 'the point folder holding aiperf_artifacts/ (default $RESULT_DIR, else results)'))
    .addOption(pathOption('--output-dir <dir>', 'where the aggregate goes (default $AGENTIC_OUTPUT_DIR, else .)'))
    .option('--result-filename <name>', 'the aggregate file name without .json (default $RESULT_FILENAME)')
    .action((flags: AgenticFlags) => {
      const env = io.env ?? process.env;
      const cwd = io.cwd ?? startedIn();
      const resultFilename = flags.resultFilename ?? env.RESULT_FILENAME ?? '';
      if (resultFilename === '') {
        throw new UserError('RESULT_FILENAME env var not set', { hint: 'set RESULT_FILENAME or pass --result-filename NAME' });
      }
      const resultDir = flags.resultDir ?? env.RESULT_DIR ?? 'results';
      const outputDir = flags.outputDir ?? env.AGENTIC_OUTPUT_DIR ?? '.';
      const artifactDir = resolveArtifactDir(resultDir, cwd);
      // The reference looks for the records before it reads the environment.
      const jsonl = pyPath(`${artifactDir}/profile_export.jsonl`);
      if (!existsSync(resolve(cwd, jsonl)))
        throw new UserError(`${jsonl} not found`, { hint: 'run the replay first, or point --result-dir at its folder' });
      const context = agenticContextFromEnv(env);
      const agg = aggregateAgentic(artifactDir, context, { cwd, serverLogPaths: findServerLogPaths(resolve(cwd, resultDir)) });
      const shown = pyPath(`${outputDir}/${resultFilename}.json`);
      writeFileAtomic(resolve(cwd, outputDir, `${resultFilename}.json`), agenticAggregateJson(agg), { mkdir: true });
      (io.stdout ?? ((text) => process.stdout.write(text)))(`${agenticSummaryLines(agg, shown).join('\n')}\n`);
    });
}

/** `frontier results agentic-validate`: validate_agentic_result.py, its messages and exit codes. */
export function addAgenticValidateCommand(results: Command, io: AgenticIo): void {
  results
    .command('agentic-validate')
    .description("whether an agentic replay is benchmarkable: AIPerf's request error rate within the threshold (exit 1 if not)")
    .addArgument(pathArgument('<artifact-dir>', 'the aiperf_artifacts folder (direct or per-run layout)'))
    .requiredOption('--failed-request-threshold <fraction>', 'maximum accepted error fraction, inclusive (0 to 1)')
    .action((artifactDir: string, flags: { failedRequestThreshold: string }) => {
      let threshold: number;
      try {
        threshold = pyFloat(flags.failedRequestThreshold, '--failed-request-threshold');
      } catch {
        throw new UserError(`argument --failed-request-threshold: invalid float value: '${flags.failedRequestThreshold}'`, {
          exitCode: ExitCode.USAGE,
        });
      }
      if (!(threshold >= 0 && threshold <= 1)) {
        throw new UserError('--failed-request-threshold must be between 0 and 1', { exitCode: ExitCode.USAGE });
      }
      const cwd = io.cwd ?? startedIn();
      const result = checkAgenticArtifacts(artifactDir, threshold, cwd);
      const stderr = io.stderr ?? ((text) => process.stderr.write(text));
      for (const error of result.errors) stderr(`ERROR: ${error}\n`);
      if (result.message) (io.stdout ?? ((text) => process.stdout.write(text)))(`${result.message}\n`);
      if (result.errors.length > 0) (io.setExitCode ?? ((code) => (process.exitCode = code)))(ExitCode.FAILED);
    });
}
