import { readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Command } from 'commander';
import { PythonError, dumps, loads } from '../pycompat/index.js';
import {
  checkBaseEnv,
  fsTelemetry,
  identityFromEnv,
  identityFromRow,
  parseRow,
  powerSettingsFromEnv,
  processResult,
} from '../results/index.js';
import type { Env, PointIdentity } from '../results/index.js';
import { writeFileAtomic, writeFilesAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';
import { powerBoundsOf } from '../sim/index.js';
import { requireDirectory } from './error.js';
import { addAgenticCommand, addAgenticValidateCommand } from './results-agentic.js';
import { addPowerCommands } from './results-power.js';
import { pathOption, pathArgument, startedIn } from './paths.js';

/** Where the command reads and writes; tests pass their own. */
export interface ResultsIo {
  env?: Env;
  /** Relative paths (RAW, --row, --out-dir, the telemetry the reference looks for) start here. */
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Sets the exit status for a point that completed but failed REQUIRE_POWER. */
  setExitCode?: (code: number) => void;
}

interface ProcessFlags {
  env?: boolean;
  row?: string;
  runner?: string;
  outDir: string;
}

/** A library refusal as one line: the reference's exception, then how to fix it. */
function guard<T>(where: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof PythonError) throw new UserError(`${where}: ${e.describe()}`);
    throw e;
  }
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: cannot read ${what}${code === 'ENOENT' ? ': no such file' : `: ${(e as Error).message}`}`);
  }
}

function readJson(path: string, what: string): unknown {
  const text = readText(path, what);
  try {
    return loads(text);
  } catch (e) {
    throw new UserError(`${path}: ${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Write every file under a temporary name first, then rename: all or (on error) none. */
function writeAll(dir: string, files: [name: string, text: string][]): void {
  try {
    writeFilesAtomic(
      files.map(([name, text]) => [join(dir, name), text]),
      { mkdir: true },
    );
  } catch (e) {
    throw new UserError(`${dir}: cannot write the result files: ${(e as Error).message}`);
  }
}

async function processAction(raw: string | undefined, flags: ProcessFlags, io: ResultsIo): Promise<void> {
  const cwd = io.cwd ?? startedIn();
  const env = io.env ?? process.env;
  if (!flags.env === !flags.row) {
    throw new UserError('give exactly one of --env (the variables process_result.py reads) or --row ROW.json (a matrix row)');
  }
  let identity: PointIdentity;
  let rawValue: unknown;
  let rawPath: string;
  if (flags.env) {
    const vars: Env = flags.runner === undefined ? env : { ...env, RUNNER_TYPE: flags.runner };
    // The reference checks these before it opens the raw file, and the rest after.
    guard('environment', () => checkBaseEnv(vars));
    rawPath = resolve(cwd, raw ?? `${vars.RESULT_FILENAME}.json`);
    rawValue = readJson(rawPath, 'the raw benchmark result');
    identity = guard('environment', () => identityFromEnv(vars));
  } else {
    if (raw === undefined)
      throw new UserError('--row needs the raw result file: frontier results process RAW.json --row ROW.json');
    const rowPath = resolve(cwd, flags.row!);
    const row = guard(rowPath, () => parseRow(readJson(rowPath, 'the matrix row'), rowPath));
    rawPath = resolve(cwd, raw);
    rawValue = readJson(rawPath, 'the raw benchmark result');
    const resultFilename = basename(raw).replace(/\.json$/, '');
    identity = guard(rowPath, () => identityFromRow(row, { runner: flags.runner, resultFilename }));
  }
  if (/[/\0]/.test(identity.resultFilename)) {
    throw new UserError(`RESULT_FILENAME ${JSON.stringify(identity.resultFilename)} is not a file name (no "/" allowed)`);
  }
  const point = guard(rawPath, () =>
    processResult(rawValue, identity, {
      settings: { ...powerSettingsFromEnv(env), node: powerBoundsOf(identity.hw) },
      files: fsTelemetry(cwd),
    }),
  );
  writeAll(resolve(cwd, flags.outDir), [
    [point.aggFile, point.aggJson],
    [point.powerValidationFile, point.powerValidationJson],
  ]);
  const stdout = io.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = io.stderr ?? ((text: string) => process.stderr.write(text));
  // The reference prints the power step's line, then the aggregate.
  if (point.noticeOn === 'stdout') stdout(`${point.notice}\n`);
  else stderr(`${point.notice}\n`);
  stdout(`${point.aggJson}\n`);
  if (point.exitCode !== 0) (io.setExitCode ?? ((code) => (process.exitCode = code)))(point.exitCode);
}

export function resultsCommand(io: ResultsIo = {}): Command {
  const results = new Command('results').description('result files of benchmark points (InferenceX-compatible)');
  results
    .command('process')
    .description(
      'one raw benchmark result → agg_<RESULT_FILENAME>.json and power_validation_<RESULT_FILENAME>.json, ' +
        'byte-identical to the reference utils/process_result.py; prints the aggregate',
    )
    .addArgument(
      pathArgument('[raw]', 'raw benchmark result JSON (with --env, default $RESULT_FILENAME.json here, as the reference)'),
    )
    .option('--env', 'describe the point with the environment variables process_result.py reads (RUNNER_TYPE, TP, …)')
    .addOption(
      pathOption('--row <file>', 'describe the point with a matrix row (one JSON object as `frontier matrix` prints it)'),
    )
    .option('--runner <label>', "runner label recorded as hw (default: RUNNER_TYPE, or the row's runner)")
    .addOption(pathOption('--out-dir <dir>', 'directory for the two files').default('.'))
    .action((raw: string | undefined, flags: ProcessFlags) => processAction(raw, flags, io));
  results
    .command('collect')
    .description(
      "every point's aggregate under a folder (downloaded bmk_* artifacts) → one array, as the reference utils/collect_results.py",
    )
    .addArgument(pathArgument('<dir>', 'the folder (searched for bmk_*/agg_*.json at any depth)'))
    .addOption(pathOption('--out <file>', 'where to write the array').default('agg_bmk.json'))
    .action((dir: string, flags: { out: string }) => {
      const cwd = io.cwd ?? startedIn();
      const files = aggregateFiles(requireDirectory(resolve(cwd, dir), '<dir>'));
      const rows = files.map((f) => {
        try {
          return loads(readFileSync(f, 'utf8'));
        } catch (e) {
          throw new UserError(`${f}: not JSON: ${(e as Error).message}`);
        }
      });
      writeFileAtomic(resolve(cwd, flags.out), dumps(rows, { indent: 2 }), { mkdir: true });
      (io.stderr ?? ((text) => process.stderr.write(text)))(`${rows.length} aggregates → ${flags.out}\n`);
    });
  addAgenticCommand(results, io);
  addAgenticValidateCommand(results, io);
  addPowerCommands(results, io);
  return results;
}

/**
 * The points' aggregates under `dir`: `agg_*.json` in a `bmk_*` folder (a job's artifact, or a run
 * directory's point), at any depth; in path order, so the array is the same on every machine.
 */
function aggregateFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && /^agg_.*\.json$/.test(entry.name) && basename(entry.parentPath).startsWith('bmk_'))
      found.push(join(entry.parentPath, entry.name));
  return found.sort();
}
