/**
 * The validity gate of an agentic replay (validate_agentic_result.py): AIPerf's aggregate must
 * exist and its request error rate must not exceed the threshold.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PyFloat, PyJsonSyntaxError, isDict, loads, pyFixed, pyPath } from '../../pycompat/index.js';
import { isFile } from '../../util/fs-kind.js';

/** `profile_export_aiperf.json` directly in the folder, else in its first child (by name) that has one. */
export function resolveAggregatePath(artifactDir: string, cwd = '.'): string {
  const direct = join(artifactDir, 'profile_export_aiperf.json');
  if (isFile(resolve(cwd, direct))) return direct;
  let children: string[] = [];
  try {
    children = readdirSync(resolve(cwd, artifactDir)).sort();
  } catch {
    return direct;
  }
  for (const child of children) {
    const candidate = join(artifactDir, child, 'profile_export_aiperf.json');
    if (isFile(resolve(cwd, candidate))) return candidate;
  }
  return direct;
}

class GateError extends Error {}

function metricAvg(aggregate: Record<string, unknown>, name: string): number | null {
  const metric = Object.hasOwn(aggregate, name) ? aggregate[name] : undefined;
  if (metric === undefined || metric === null) return null;
  if (!isDict(metric)) throw new GateError(`${name} must be an object`);
  const value = metric.avg;
  if (value === undefined || value === null) return null;
  const n = value instanceof PyFloat ? value.value : typeof value === 'number' ? value : undefined;
  if (n === undefined) throw new GateError(`${name}.avg must be numeric`);
  if (!Number.isFinite(n) || n < 0) throw new GateError(`${name}.avg must be a finite non-negative number`);
  return n;
}

/** Python's `format(x, 'g')`: six significant digits, trailing zeros dropped. */
export function formatG(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = Number(Math.abs(x).toExponential(5).split('e')[1]);
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = x.toExponential(5).split('e') as [string, string];
    const m = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    const en = Number(e);
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`;
  }
  const text = pyFixed(x, Math.max(0, 5 - exp));
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

const pct = (x: number): string => `${pyFixed(x * 100, 3)}%`;

export interface AgenticValidation {
  /** The problems found (none: the replay is benchmarkable). */
  errors: string[];
  /** The line the reference prints on success. */
  message?: string;
}

/** Check an AIPerf artifact directory (direct or per-run layout) against the error-rate threshold. */
export function checkAgenticArtifacts(artifactDir: string, failedRequestThreshold: number, cwd = '.'): AgenticValidation {
  const shown = pyPath(resolveAggregatePath(artifactDir, cwd));
  const aggregatePath = resolve(cwd, shown);
  if (!isFile(aggregatePath)) return { errors: [`${shown} not found`] };
  let successes: number | null;
  let errors: number;
  let completed: number | null;
  try {
    let text: string;
    try {
      text = readFileSync(aggregatePath, 'utf8');
    } catch (e) {
      throw new GateError((e as Error).message);
    }
    let aggregate: unknown;
    try {
      aggregate = loads(text);
    } catch (e) {
      if (e instanceof PyJsonSyntaxError) throw new GateError(e.describe(text));
      throw e;
    }
    if (!isDict(aggregate)) return { errors: [`${shown} must contain a JSON object`] };
    successes = metricAvg(aggregate, 'request_count');
    errors = metricAvg(aggregate, 'error_request_count') || 0;
    completed = metricAvg(aggregate, 'completed_request_count');
  } catch (e) {
    if (e instanceof GateError) return { errors: [`failed to read ${shown}: ${e.message}`] };
    throw e;
  }
  if (successes === null) return { errors: ['request_count.avg is missing'] };
  if (completed === null) completed = successes + errors;
  if (completed <= 0) return { errors: ['aiperf completed zero requests'] };
  const errorRate = errors / completed;
  const ratio = `${formatG(errors)}/${formatG(completed)} = ${pct(errorRate)}`;
  if (errorRate > failedRequestThreshold) {
    return { errors: [`aiperf request error rate exceeded the benchmark limit: ${ratio} > ${pct(failedRequestThreshold)}`] };
  }
  return { errors: [], message: `Validated aiperf request error rate: ${ratio} <= ${pct(failedRequestThreshold)}` };
}

/** The validation errors of an artifact directory, as the reference's `validate_result` returns them. */
export const validateAgenticArtifacts = (artifactDir: string, failedRequestThreshold: number): string[] =>
  checkAgenticArtifacts(artifactDir, failedRequestThreshold).errors;
