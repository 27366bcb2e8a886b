/**
 * The power steps on real files, as the reference scripts run: read the inputs, compute, then
 * write each output whole or not at all (a temporary file renamed over the target), the
 * aggregate before the sidecar.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { dumps, loads, pyPath, pyRepr } from '../../pycompat/index.js';
import type { PyJson } from '../../pycompat/index.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { agenticPaths, agenticPowerStep } from './agentic.js';
import type { AdapterFailure } from './agentic.js';
import { fsTelemetry } from './files.js';
import type { NodeBounds } from './plausibility.js';
import { aggInputFromText, runSingleNode, stemSibling } from './single-node.js';
import type { AggInput, BenchInput, SingleNodeResult } from './single-node.js';

export interface StepRun {
  exitCode: 0 | 1;
  stdout: string[];
  stderr: string[];
}

/** The text Python's OSError has for a failed file operation. */
function osError(e: unknown, path: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    ENOENT: '[Errno 2] No such file or directory',
    EACCES: '[Errno 13] Permission denied',
    EISDIR: '[Errno 21] Is a directory',
    ENOTDIR: '[Errno 20] Not a directory',
    ENOSPC: '[Errno 28] No space left on device',
  };
  return `${(code && known[code]) ?? (e as Error).message}: ${pyRepr(pyPath(path))}`;
}

const text = (value: PyJson): string => dumps(value, { indent: 2 });

function readAgg(cwd: string, path: string): AggInput {
  const kind = fsTelemetry(cwd).kind(path);
  if (kind !== 'file' && kind !== 'empty-file') return { kind: 'missing' };
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path)).toString('utf8');
  } catch (e) {
    return { kind: 'unreadable', error: osError(e, path) };
  }
  return aggInputFromText(text, undefined, pyPath(path));
}

function readBench(cwd: string, path: string): BenchInput {
  try {
    return { kind: 'parsed', raw: loads(readFileSync(resolve(cwd, path)).toString('utf8')) };
  } catch {
    return { kind: 'unreadable' };
  }
}

/** Write the single-node step's files: the aggregate (an error there → `aggregate_result_unwritable`), then the sidecar. */
function writeSingleNode(cwd: string, aggPath: string, validationPath: string, first: SingleNodeResult): StepRun {
  let result = first;
  if (result.agg) {
    try {
      writeFileAtomic(resolve(cwd, aggPath), text(result.agg));
    } catch (e) {
      result = result.onAggWriteError(osError(e, aggPath));
    }
  }
  try {
    writeFileAtomic(resolve(cwd, validationPath), text(result.validation), { mkdir: true });
  } catch (e) {
    const failed = result.onValidationWriteError(osError(e, validationPath));
    return { exitCode: failed.exitCode, stdout: [], stderr: failed.stderr };
  }
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

export interface AggregatePowerArgs {
  csv: string;
  benchResult: string;
  aggResult: string;
  /** Null: not given (the library call's default). */
  expectedGpus: number | null;
  /** The node sampled (Frontier only; see `SingleNodeInput.node`). */
  node?: NodeBounds;
  /** Default `power_validation_<bench stem>.json` beside the raw result. */
  validationResult?: string;
  requirePower: boolean;
}

/** `aggregate_power.run` on files under `cwd` (relative paths from there). */
export function runAggregatePowerFs(args: AggregatePowerArgs, cwd = '.'): StepRun {
  const validationPath =
    args.validationResult ?? stemSibling(args.benchResult, '.json').replace(/[^/]*$/, (name) => `power_validation_${name}`);
  const result = runSingleNode(
    {
      csvPath: args.csv,
      benchResultPath: args.benchResult,
      bench: readBench(cwd, args.benchResult),
      aggPath: args.aggResult,
      agg: readAgg(cwd, args.aggResult),
      expectedGpus: args.expectedGpus,
      ...(args.node ? { node: args.node } : {}),
      validationPath,
      requirePower: args.requirePower,
    },
    fsTelemetry(cwd),
  );
  return writeSingleNode(cwd, args.aggResult, validationPath, result);
}

function writeFailure(cwd: string, failure: AdapterFailure): StepRun {
  const stderr = [...failure.stderr];
  const last = stderr.pop()!; // "Power-window adaptation failed: …" comes after any write error
  try {
    if (failure.agg) writeFileAtomic(resolve(cwd, failure.aggPath), text(failure.agg));
    if (failure.validation) writeFileAtomic(resolve(cwd, failure.validationPath), text(failure.validation), { mkdir: true });
  } catch (e) {
    const path = (e as { path?: string }).path ?? failure.validationPath;
    stderr.push(`[agentx_power] Failed to record adapter failure: ${osError(e, path)}`);
  }
  stderr.push(last);
  return { exitCode: failure.exitCode, stdout: [], stderr };
}

export interface AgenticPowerArgs {
  resultDir: string;
  aggResult: string;
  expectedGpus: number | null;
  node?: NodeBounds;
  requirePower: boolean;
}

/** `power_adapter.run_agentic_power` on files under `cwd`. */
export function runAgenticPowerFs(args: AgenticPowerArgs, cwd = '.'): StepRun {
  const options = {
    resultDir: args.resultDir,
    aggPath: args.aggResult,
    expectedGpus: args.expectedGpus,
    ...(args.node ? { node: args.node } : {}),
    requirePower: args.requirePower,
  };
  const plan = agenticPowerStep(options, readAgg(cwd, args.aggResult), fsTelemetry(cwd));
  if (plan.kind === 'failure') return writeFailure(cwd, plan.failure);
  try {
    writeFileAtomic(resolve(cwd, plan.windowPath), text(plan.window), { mkdir: true });
  } catch {
    return writeFailure(cwd, plan.unwritable);
  }
  return writeSingleNode(cwd, args.aggResult, agenticPaths(args.resultDir).validation, plan.run);
}
