/**
 * The validity gate of an agentic replay (validate_agentic_result.py): AIPerf's aggregate must
 * exist and its request error rate must not exceed the threshold. Frontier's addition: its
 * figures must be possible (implausibleFigures).
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

/** A metric's statistic (`avg` unless told): a finite number ≥ 0, or null when absent. */
function metricStat(aggregate: Record<string, unknown>, name: string, stat = 'avg'): number | null {
  const metric = Object.hasOwn(aggregate, name) ? aggregate[name] : undefined;
  if (metric === undefined || metric === null) return null;
  if (!isDict(metric)) throw new GateError(`${name} must be an object`);
  const value = Object.hasOwn(metric, stat) ? metric[stat] : undefined;
  if (value === undefined || value === null) return null;
  const n = value instanceof PyFloat ? value.value : typeof value === 'number' ? value : undefined;
  if (n === undefined) throw new GateError(`${name}.${stat} must be numeric`);
  if (!Number.isFinite(n) || n < 0) throw new GateError(`${name}.${stat} must be a finite non-negative number`);
  return n;
}

/**
 * Tokens per second no deployment reaches: 10^9. The aggregate does not say how many GPUs served
 * it; InferenceX's agentic points peak near 26k total tokens/s per GPU (its perf changelog, at
 * 96–98% prefix-cache hits), so 10^9 would take ~40,000 GPUs, hundreds of times the largest
 * deployment it runs (a 72-GPU NVL72).
 */
export const MAX_PLAUSIBLE_TOKEN_THROUGHPUT = 1e9;

/**
 * Tokens one request may have, input or output: 4 Mi, twice the most a trace request may hold
 * (src/traces/limits.ts, 2 Mi), the chat template and tokenizer differences included; no served
 * model's context window comes near.
 */
export const MAX_PLAUSIBLE_REQUEST_TOKENS = 1 << 22;

/**
 * How far a rate × benchmark_duration may exceed what the counts allow: 5%. AIPerf's rates and its
 * duration may be over slightly different windows; an impossible figure is off by orders of magnitude.
 */
export const RATE_TOLERANCE = 0.05;

const THROUGHPUTS = ['input_token_throughput', 'output_token_throughput', 'total_token_throughput'] as const;
const LENGTHS = { input_token_throughput: 'input_sequence_length', output_token_throughput: 'output_sequence_length' } as const;

/**
 * Figures the aggregate cannot have: counts that do not add up, a throughput no deployment
 * reaches, a request longer than any context, rates above what the counts allow over the
 * duration. Each present figure is checked; a missing one is not guessed.
 */
function implausibleFigures(a: Record<string, unknown>, successes: number, errors: number, completed: number | null): string[] {
  const problems: string[] = [];
  const g = formatG;
  for (const [name, n] of [
    ['request_count', successes],
    ['error_request_count', errors],
    ['completed_request_count', completed],
  ] as const)
    if (n !== null && !Number.isInteger(n)) problems.push(`${name}.avg ${g(n)} is not a whole number of requests`);
  if (completed !== null && successes + errors !== completed)
    problems.push(`request_count + error_request_count = ${g(successes + errors)}, not completed_request_count ${g(completed)}`);
  for (const name of THROUGHPUTS) {
    const rate = metricStat(a, name);
    if (rate !== null && rate > MAX_PLAUSIBLE_TOKEN_THROUGHPUT)
      problems.push(
        `${name}.avg ${g(rate)} tokens/s is above ${g(MAX_PLAUSIBLE_TOKEN_THROUGHPUT)}, more than any deployment reaches`,
      );
  }
  for (const name of Object.values(LENGTHS)) {
    const longest = metricStat(a, name, 'max');
    if (longest !== null && longest > MAX_PLAUSIBLE_REQUEST_TOKENS)
      problems.push(`${name}.max ${g(longest)} tokens is above ${g(MAX_PLAUSIBLE_REQUEST_TOKENS)}, longer than any context`);
  }
  const duration = metricStat(a, 'benchmark_duration');
  if (duration === null) return problems;
  const above = (figure: number, allowed: number): boolean => figure > allowed * (1 + RATE_TOLERANCE) + 1;
  const requests = metricStat(a, 'request_throughput');
  if (requests !== null && above(requests * duration, successes))
    problems.push(
      `request_throughput.avg ${g(requests)} over benchmark_duration ${g(duration)} s is ${g(requests * duration)} requests, more than request_count ${g(successes)}`,
    );
  for (const [rate, length] of Object.entries(LENGTHS)) {
    const tokensPerS = metricStat(a, rate);
    const longest = metricStat(a, length, 'max');
    if (tokensPerS !== null && longest !== null && above(tokensPerS * duration, successes * longest))
      problems.push(
        `${rate}.avg ${g(tokensPerS)} over benchmark_duration ${g(duration)} s is ${g(tokensPerS * duration)} tokens, more than request_count ${g(successes)} × ${length}.max ${g(longest)}`,
      );
  }
  return problems;
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
  let aggregate: unknown;
  try {
    let text: string;
    try {
      text = readFileSync(aggregatePath, 'utf8');
    } catch (e) {
      throw new GateError((e as Error).message);
    }
    try {
      aggregate = loads(text);
    } catch (e) {
      if (e instanceof PyJsonSyntaxError) throw new GateError(e.describe(text));
      throw e;
    }
    if (!isDict(aggregate)) return { errors: [`${shown} must contain a JSON object`] };
    successes = metricStat(aggregate, 'request_count');
    errors = metricStat(aggregate, 'error_request_count') || 0;
    completed = metricStat(aggregate, 'completed_request_count');
  } catch (e) {
    if (e instanceof GateError) return { errors: [`failed to read ${shown}: ${e.message}`] };
    throw e;
  }
  if (successes === null) return { errors: ['request_count.avg is missing'] };
  const given = completed;
  if (completed === null) completed = successes + errors;
  if (completed <= 0) return { errors: ['aiperf completed zero requests'] };
  const errorRate = errors / completed;
  const ratio = `${formatG(errors)}/${formatG(completed)} = ${pct(errorRate)}`;
  if (errorRate > failedRequestThreshold) {
    return { errors: [`aiperf request error rate exceeded the benchmark limit: ${ratio} > ${pct(failedRequestThreshold)}`] };
  }
  let implausible: string[];
  try {
    implausible = implausibleFigures(aggregate as Record<string, unknown>, successes, errors, given);
  } catch (e) {
    if (e instanceof GateError) return { errors: [`failed to read ${shown}: ${e.message}`] };
    throw e;
  }
  if (implausible.length > 0) return { errors: implausible.map((p) => `implausible aggregate: ${p}`) };
  return { errors: [], message: `Validated aiperf request error rate: ${ratio} <= ${pct(failedRequestThreshold)}` };
}

/** The validation errors of an artifact directory, as the reference's `validate_result` returns them. */
export const validateAgenticArtifacts = (artifactDir: string, failedRequestThreshold: number): string[] =>
  checkAgenticArtifacts(artifactDir, failedRequestThreshold).errors;
