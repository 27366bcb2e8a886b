/**
 * `utils/evals/validate_scores.py` (InferenceX 843c6254f, the "Verify eval scores" step of eval
 * jobs) on one eval directory: every `results*.json` metric named `exact_match,…` (not stderr)
 * must reach its threshold, and a batched run's `meta_env.json` must account for every requested
 * concurrency. Output and exit status as the reference prints them: PASS and info lines on
 * stdout, FAIL and WARN lines on stderr, scores with `:.4f`, thresholds with Python's `str()`.
 *
 * Where the reference would crash with a traceback (a results file that is not JSON, a thresholds
 * file that cannot be used) this throws EvalInputError instead; an unreadable `--thresholds` file
 * is an error here, where the reference warned and fell back to 0.85 for every task.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  byCodePoint,
  isDict,
  pyEquals,
  pyFixed,
  pyIntFromString,
  pyIsInt,
  pyNumber,
  pyStr,
  pyTruthy,
  readPyJson,
} from '../pycompat/index.js';
import {
  DEFAULT_MIN_SCORE,
  EvalInputError,
  REFERENCE_THRESHOLDS_LABEL,
  floatThreshold,
  parseThresholds,
  referenceThresholds,
  resolveThreshold,
} from './thresholds.js';
import type { Threshold, ThresholdsConfig } from './thresholds.js';

export interface CheckOptions {
  /** A thresholds file (YAML or JSON; relative to `cwd`); default: the built-in reference thresholds. */
  thresholdsFile?: string;
  /** How the first line names the thresholds (default: the file as given, or "(built-in reference thresholds)"). */
  thresholdsLabel?: string;
  /** Fallback for tasks without a configured threshold (`--min-score`, a Python float; default 0.85). */
  minScore?: number;
  /** Concurrencies the workflow requested (`--expected-concs "16 64"`, or the numbers). */
  expectedConcs?: string | readonly number[];
  /** Overrides the prefix from meta_env.json (`--model-prefix`). */
  modelPrefix?: string;
  /** Only metrics whose name starts with this are checked (`--metric-prefix`, default "exact_match,"). */
  metricPrefix?: string;
  /** meta_env.json, relative to the eval directory (`--meta-env`). */
  metaEnv?: string;
  /** Environment: MODEL_PREFIX is the last source of the model prefix. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative `thresholdsFile` paths start (default: process.cwd()). */
  cwd?: string;
}

export interface CheckLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface CheckResult {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
  /** Every line in the order printed (both streams, as a CI log shows them). */
  lines: CheckLine[];
}

/** `_conc<N>[_<k>].json` at the end of a staged result file name (Python `\d`, `$`). */
const CONC_SUFFIX_RE = /_conc(\p{Nd}+)(?:_\p{Nd}+)?\.json(?=\n?$)/u;
const RESULTS_GLOB = /^results[\s\S]*\.json$/;

const concOf = (file: string): number | undefined => {
  const m = CONC_SUFFIX_RE.exec(file);
  return m ? pyIntFromString(m[1]!, 'concurrency') : undefined;
};

/** `--expected-concs`: whitespace-separated unique positive integers, else undefined (invalid). */
function parseExpectedConcs(raw: string | readonly number[]): number[] | undefined {
  let concs: number[];
  if (typeof raw === 'string') {
    try {
      concs = raw
        .split(/[\s\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/)
        .filter((s) => s !== '')
        .map((s) => pyIntFromString(s, 'concurrency'));
    } catch {
      return undefined;
    }
  } else concs = [...raw];
  const ok = concs.length > 0 && concs.every((c) => Number.isInteger(c) && c > 0) && new Set(concs).size === concs.length;
  return ok ? concs : undefined;
}

/** `detect_model_prefix`: --model-prefix, else meta_env.json's infmax_model_prefix, else $MODEL_PREFIX. */
function detectModelPrefix(meta: unknown, override: string | undefined, env: CheckOptions['env']): unknown {
  if (override) return override;
  if (isDict(meta)) {
    const prefix = meta.infmax_model_prefix;
    if (pyTruthy(prefix) && prefix !== 'unknown') return prefix;
  }
  const fromEnv = env?.MODEL_PREFIX;
  if (fromEnv && fromEnv !== 'unknown') return fromEnv;
  return undefined;
}

const sortedList = (values: Iterable<number>): string => [...values].sort((a, b) => a - b).join(', ');
const minus = (a: Set<number>, b: Set<number>): number[] => [...a].filter((x) => !b.has(x));
const sameSet = (a: Set<number>, b: Set<number>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

/** `validate_batch_manifest`: what is wrong with the batched-eval bookkeeping (empty: nothing). */
export function validateBatchManifest(
  meta: { ok: true; value: unknown } | { ok: false; error: string },
  metaEnvPath: string,
  resultFiles: readonly string[],
  expectedConcs: readonly number[] | undefined,
): string[] {
  if (!meta.ok) {
    if (expectedConcs !== undefined || resultFiles.some((f) => CONC_SUFFIX_RE.test(f))) {
      return [`batched eval result files exist but ${metaEnvPath} is unavailable or invalid: ${meta.error}`];
    }
    return [];
  }
  const m = isDict(meta.value) ? meta.value : {};
  const batched = 'eval_concs' in m;
  if (expectedConcs !== undefined && !batched) {
    if (expectedConcs.length > 1) return ['workflow requested multiple concurrencies but batched eval metadata is missing'];
    const errors: string[] = [];
    if (!pyEquals(m.conc ?? null, expectedConcs[0])) errors.push('eval metadata concurrency does not match workflow request');
    if (resultFiles.length !== 1) errors.push('eval must produce exactly one result file');
    return errors;
  }
  if (!batched) return [];

  const lists = [m.eval_concs, m.completed_eval_concs, m.failed_eval_concs];
  if (!lists.every(Array.isArray)) return ['batched eval metadata must contain list-valued concurrency fields'];
  const [metaExpected, completed, failed] = (lists as unknown[][]).map((l) => l);
  if (!lists.every((l) => (l as unknown[]).every((v) => pyIsInt(v) && pyNumber(v)! > 0))) {
    return ['batched eval metadata contains an invalid concurrency'];
  }
  const nums = (l: unknown[]): number[] => l.map((v) => pyNumber(v)!);
  const errors: string[] = [];
  const metaExpectedSet = new Set(nums(metaExpected!));
  const expectedSet = new Set(expectedConcs && expectedConcs.length > 0 ? expectedConcs : nums(metaExpected!));
  const completedSet = new Set(nums(completed!));
  const failedSet = new Set(nums(failed!));
  if (metaExpectedSet.size !== metaExpected!.length)
    errors.push('batched eval metadata contains duplicate expected concurrencies');
  if (completedSet.size !== completed!.length) errors.push('batched eval metadata contains duplicate completed concurrencies');
  if (expectedConcs !== undefined && !sameSet(metaExpectedSet, expectedSet)) {
    errors.push('batched eval metadata does not match workflow concurrencies');
  }
  if (failedSet.size > 0) errors.push(`batched eval failed for concurrency: ${sortedList(failedSet)}`);
  if (!sameSet(completedSet, expectedSet)) {
    const missing = minus(expectedSet, completedSet);
    const unexpected = minus(completedSet, expectedSet);
    if (missing.length > 0) errors.push(`batched eval is missing completed concurrency: ${sortedList(missing)}`);
    if (unexpected.length > 0) errors.push(`batched eval completed unexpected concurrency: ${sortedList(unexpected)}`);
  }

  const counts = new Map<number, number>();
  for (const file of resultFiles) {
    const conc = concOf(file);
    if (conc === undefined) {
      errors.push(`batched eval result lacks a concurrency suffix: ${file}`);
      continue;
    }
    counts.set(conc, (counts.get(conc) ?? 0) + 1);
  }
  // From the later reference: two result files for one concurrency are two scores for one point.
  const duplicates = [...counts].filter(([, n]) => n > 1).map(([c]) => c);
  if (duplicates.length > 0) errors.push(`batched eval has duplicate result files for concurrency: ${sortedList(duplicates)}`);
  const actual = new Set(counts.keys());
  const missingResults = minus(expectedSet, actual);
  const unexpectedResults = minus(actual, expectedSet);
  if (missingResults.length > 0)
    errors.push(`batched eval is missing result files for concurrency: ${sortedList(missingResults)}`);
  if (unexpectedResults.length > 0) {
    errors.push(`batched eval has unexpected result files for concurrency: ${sortedList(unexpectedResults)}`);
  }
  return errors;
}

/** Python's `"eval_concs" in json.load(f)` for whatever the file holds. */
function mentionsEvalConcs(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('eval_concs');
  if (Array.isArray(value)) return value.includes('eval_concs');
  return isDict(value) && 'eval_concs' in value;
}

function loadThresholds(options: CheckOptions): { config: ThresholdsConfig; label: string } {
  if (options.thresholdsFile === undefined) {
    return { config: referenceThresholds(), label: options.thresholdsLabel ?? REFERENCE_THRESHOLDS_LABEL };
  }
  const path = resolve(options.cwd ?? process.cwd(), options.thresholdsFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      `${options.thresholdsFile}: cannot read the thresholds file (${code === 'ENOENT' ? 'no such file' : (e as Error).message}); ` +
        'give an existing YAML file, or leave out --thresholds to use the reference thresholds',
    );
  }
  return { config: parseThresholds(text, options.thresholdsFile), label: options.thresholdsLabel ?? options.thresholdsFile };
}

/** `results*.json` in `dir`, as Python's sorted(glob.glob(...)) lists them from there. */
function resultFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      `${dir}: ${code === 'ENOENT' ? 'no such directory' : code === 'ENOTDIR' ? 'not a directory' : (e as Error).message}; ` +
        'give the directory that holds meta_env.json and the results*.json files of one eval job',
    );
  }
  return names.filter((name) => RESULTS_GLOB.test(name)).sort(byCodePoint);
}

/** Run validate_scores.py's checks on the eval directory `dir`. */
export function checkEvalDir(dir: string, options: CheckOptions = {}): CheckResult {
  const lines: CheckLine[] = [];
  const out = (text: string): void => void lines.push({ stream: 'stdout', text });
  const err = (text: string): void => void lines.push({ stream: 'stderr', text });
  const finish = (exitCode: 0 | 1): CheckResult => ({
    exitCode,
    stdout: lines
      .filter((l) => l.stream === 'stdout')
      .map((l) => `${l.text}\n`)
      .join(''),
    stderr: lines
      .filter((l) => l.stream === 'stderr')
      .map((l) => `${l.text}\n`)
      .join(''),
    lines,
  });

  const root = resolve(options.cwd ?? process.cwd(), dir);
  const resultFiles = resultFilesIn(root);

  let expectedConcs: number[] | undefined;
  if (options.expectedConcs !== undefined) {
    expectedConcs = parseExpectedConcs(options.expectedConcs);
    if (expectedConcs === undefined) {
      err('FAIL: expected concurrencies must be unique positive integers');
      return finish(1);
    }
  }

  const { config, label } = loadThresholds(options);
  out(`Loaded thresholds from ${label}`);

  const metaEnvName = options.metaEnv ?? 'meta_env.json';
  const metaRead = readPyJson(resolve(root, metaEnvName), metaEnvName);
  const meta = metaRead.ok ? metaRead.value : undefined;

  const prefix = detectModelPrefix(meta, options.modelPrefix, options.env ?? process.env);
  const prefixKey = typeof prefix === 'string' ? prefix : undefined;
  if (prefix !== undefined && prefixKey !== undefined && config.models.has(prefixKey)) {
    out(`Model prefix: ${prefixKey} (per-model thresholds apply)`);
  } else if (prefix !== undefined) {
    out(`Model prefix: ${pyStr(prefix)} (no per-model override; using global default)`);
  } else {
    out('Model prefix: <unknown> (using global default thresholds)');
  }

  let failed = false;
  let checked = 0;
  const manifestErrors = validateBatchManifest(metaRead, metaEnvName, resultFiles, expectedConcs);
  for (const error of manifestErrors) {
    err(`FAIL: ${error}`);
    failed = true;
  }
  if (manifestErrors.length === 0) {
    if (metaRead.ok) {
      if (mentionsEvalConcs(meta)) out('PASS: batched eval produced every requested concurrency');
    } else {
      err(`WARN: could not inspect eval metadata for batched concurrency status: ${metaRead.error}`);
    }
  }

  const metricPrefix = options.metricPrefix ?? 'exact_match,';
  const fallback: Threshold = floatThreshold(options.minScore ?? DEFAULT_MIN_SCORE);
  for (const file of resultFiles) {
    const m = CONC_SUFFIX_RE.exec(file);
    const concLabel = m ? `[conc=${m[1]}] ` : '';
    const path = join(root, file);
    const read = readPyJson(path, file);
    if (!read.ok) {
      throw new EvalInputError(
        `${path}: ${read.kind === 'json' ? `not valid JSON: ${read.error}` : `cannot read: ${read.error}`}; ` +
          'a results*.json file here must be an lm-eval results JSON (move other files away)',
      );
    }
    if (!isDict(read.value)) throw new EvalInputError(`${path}: not an lm-eval results JSON (expected an object with "results")`);
    const results = read.value.results ?? {};
    if (!isDict(results)) throw new EvalInputError(`${path}: "results" must be an object of task → metrics`);
    for (const [task, metrics] of Object.entries(results)) {
      if (!isDict(metrics)) throw new EvalInputError(`${path}: results.${task} must be an object of metric → value`);
      const { threshold, source } = resolveThreshold(config, prefixKey, task, fallback);
      for (const [name, val] of Object.entries(metrics)) {
        if (!name.startsWith(metricPrefix) || name.includes('stderr')) continue;
        const value = pyNumber(val);
        if (value === undefined) continue;
        checked++;
        if (value < threshold.value) {
          err(`FAIL: ${concLabel}${task} ${name} = ${pyFixed(value, 4)} (< ${threshold.text} from ${source})`);
          failed = true;
        } else {
          out(`PASS: ${concLabel}${task} ${name} = ${pyFixed(value, 4)} (>= ${threshold.text} from ${source})`);
        }
      }
    }
  }

  if (checked === 0) err(`WARN: no metrics matched prefix '${metricPrefix}'`);
  return finish(failed || checked === 0 ? 1 : 0);
}
