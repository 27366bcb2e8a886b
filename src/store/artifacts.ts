/**
 * What one ingest writes, read from a directory: a `frontier run` directory (run.json,
 * results_bmk/agg_bmk.json, agg_eval_all.json, run_stats.json) or an InferenceX artifact set
 * (results_bmk/agg_bmk.json or bmk_* folders, eval_results_all/agg_eval_all.json,
 * run-stats/run_stats.json, changelog-metadata/changelog_metadata.json). Every row is checked
 * before anything is written; all problems are reported together.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { loads, toPlain } from '../pycompat/index.js';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../util/json-depth.js';
import { notPlainFiles } from './files.js';
import { agenticKey, isAgenticRow, readAgenticRow } from './agentic.js';
import type { AgenticInput } from './agentic.js';
import { keepMeasuredIfValid, powerVerdict, readSidecar, simulatedPoint } from './power.js';
import { configKey, formatProblem, readBenchmarkRow, readEvalRow } from './rows.js';
import type { BenchmarkInput, ConfigIdentity, EvalInput, IngestProblem } from './rows.js';
import type { LaunchAttemptRow } from '../contract/index.js';
import { ttftByContext } from './ttft-context.js';
import { isIsoDate } from '../util/date.js';
import { UserError } from '../util/user-error.js';

export interface RunInfo {
  run_id: string;
  attempt: number;
  official: boolean;
  source_run_id: string;
  merge_run_id: string;
  origin: 'frontier' | 'inferencex';
  name: string;
  url: string;
  commit_sha: string;
  branch: string;
  labels: string[];
  status: string;
  deferred_points: number;
  deferred_reason: string;
  /** Staged from a pull request for review (never official), and by whom; undefined: not staged. */
  staged: Staging | undefined;
  /** YYYY-MM-DD; undefined: keep the stored run's date, else today. */
  date: string | undefined;
  started_at: string;
  finished_at: string;
}

export interface ChangelogInput {
  base_ref: string;
  head_ref: string;
  config_keys: string[];
  description: string;
  pr_link: string;
  evals_only: boolean;
}

export interface LogInput {
  name: string;
  size: number;
  truncated: boolean;
  content: string;
}

/** How much of each log the store keeps (its end: where an engine says why it stopped), and of all a run's logs. */
export const LOG_BYTES = 256 * 1024;
const RUN_LOG_BYTES = 32 * 1024 * 1024;

/** One attempt at a launch, from run.json's `launches[].attempts` (a run.json from before has none). */
export interface AttemptInput extends LaunchAttemptRow {
  /** The cluster the run used: node names are a cluster's. */
  cluster: string;
}

export interface RunStatInput {
  hardware: string;
  n_success: number;
  total: number;
}

export interface IngestBatch {
  /** The run the results belong to (with reuse, the source run). */
  run: RunInfo;
  /** With reuse: the run that merged the source run's results (holds the changelog). */
  mergeRun: RunInfo | undefined;
  benchmarks: BenchmarkInput[];
  /** Agentic points (trace replay), each with its TTFT by context length when the run kept its records. */
  agentic: AgenticInput[];
  evals: EvalInput[];
  runStats: RunStatInput[];
  changelog: ChangelogInput[];
  /** The engines' logs (server_logs_* folders), each its last LOG_BYTES. */
  logs: LogInput[];
  /** Every attempt at each launch (a frontier run's run.json). */
  attempts: AttemptInput[];
  /** The files read, relative to the directory. */
  files: string[];
}

/** A run staged from a pull request's sweep (`/stage-results`): the pull request and who staged it. */
export interface Staging {
  pr: number;
  by: string;
}

export interface IngestOptions {
  official?: boolean | undefined;
  /** Stage the run for this pull request instead of adding it to the record (not with `official`). */
  stage?: Staging | undefined;
  runId?: string | undefined;
  attempt?: number | undefined;
  /** Reuse: the results are this run's; `runId` is the run that merged them. */
  sourceRun?: string | undefined;
  /** The changelog metadata from this file (a merge run's), instead of the directory's. */
  changelogFile?: string | undefined;
  date?: string | undefined;
  branch?: string | undefined;
  commit?: string | undefined;
  labels?: string[] | undefined;
  name?: string | undefined;
  url?: string | undefined;
  /** The minimum score of a task for a model prefix (the eval thresholds), to record pass or fail. */
  thresholdOf?: ((modelPrefix: string, task: string) => number | undefined) | undefined;
}

export class IngestError extends UserError {
  constructor(
    readonly problems: IngestProblem[],
    readonly dir: string,
  ) {
    const shown = problems.slice(0, 50).map((p) => `  ${formatProblem(p)}`);
    if (problems.length > 50) shown.push(`  … and ${problems.length - 50} more`);
    super(`${dir}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was written\n${shown.join('\n')}`);
    this.name = 'IngestError';
  }
}

const TOO_DEEP = `arrays and objects nested more than ${MAX_JSON_DEPTH} deep, the limit for ingest: not a result file`;

/** Read a JSON file as Python wrote it (NaN and Infinity allowed); records a problem when it cannot. */
function readJson(root: string, file: string, problems: IngestProblem[]): unknown {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch (e) {
    problems.push({ file, message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
    return undefined;
  }
  if (jsonTooDeep(text)) {
    problems.push({ file, message: TOO_DEEP });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    try {
      return toPlain(loads(text));
    } catch (e) {
      problems.push({ file, message: `not JSON: ${(e as Error).message}` });
      return undefined;
    }
  }
}

function readArray(root: string, file: string, problems: IngestProblem[]): unknown[] {
  const value = readJson(root, file, problems);
  if (value === undefined) return [];
  // A per-point file holds one row; an aggregate holds an array of them.
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') return [value];
  problems.push({ file, message: 'expected an array of rows or one row object' });
  return [];
}

const isDir = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What only the top of a run directory or an artifact set holds. */
const ROOT_ENTRIES = new Set([
  'run.json',
  'results_bmk',
  'agg_eval_all.json',
  'eval_results_all',
  'run_stats.json',
  'run-stats',
  'changelog-metadata',
  'changelog_metadata.json',
]);

/**
 * The directory that holds the results: `dir` itself, or its one folder when `dir` only wraps it
 * (an archive of the run directory itself). A folder of the artifact set (results_bmk/, bmk_*) is
 * never taken for a wrapped run. The CLI and uploads both find the root here, through readArtifacts.
 */
export function artifactRoot(dir: string): string {
  if (!isDir(dir)) return dir;
  const entries = readdirSync(dir);
  if (entries.length !== 1 || ROOT_ENTRIES.has(entries[0]!) || entries[0]!.startsWith('bmk_')) return dir;
  const only = join(dir, entries[0]!);
  return isDir(only) ? only : dir;
}

/** Read and check everything a directory holds for the store (or its wrapped folder: artifactRoot). Throws IngestError listing every problem. */
export function readArtifacts(wrapped: string, options: IngestOptions = {}): IngestBatch {
  // Before anything is read: a link inside would be followed.
  const links = isDir(wrapped) ? notPlainFiles(wrapped) : [];
  if (links.length > 0) throw new IngestError(links, wrapped);
  const dir = artifactRoot(wrapped);
  const problems: IngestProblem[] = [];
  const files: string[] = [];
  if (!isDir(dir))
    throw new IngestError([{ file: dir, message: 'not a directory: pass a run directory or an InferenceX artifact set' }], dir);
  if (options.date !== undefined && !isIsoDate(options.date)) {
    problems.push({ file: '--date', message: `"${options.date}" is not a date: use YYYY-MM-DD` });
  }

  const manifestFile = existsSync(join(dir, 'run.json')) ? 'run.json' : undefined;
  const manifest = manifestFile ? (readJson(dir, manifestFile, problems) as Record<string, unknown> | undefined) : undefined;
  const frontier = manifest !== undefined && typeof manifest === 'object' && manifest !== null && 'frontier' in manifest;
  if (manifestFile) files.push(manifestFile);

  // Benchmarks: the run-level aggregate, else every point's aggregate.
  const benchmarks: BenchmarkInput[] = [];
  const benchFiles = existsSync(join(dir, 'results_bmk', 'agg_bmk.json'))
    ? ['results_bmk/agg_bmk.json']
    : readdirSync(dir)
        .filter((d) => d.startsWith('bmk_') && !d.startsWith('bmk_agentic_') && isDir(join(dir, d)))
        .sort()
        .flatMap((d) =>
          readdirSync(join(dir, d))
            .filter((f) => f.startsWith('agg_') && f.endsWith('.json'))
            .map((f) => `${d}/${f}`),
        );
  const agentic: AgenticInput[] = [];
  const agenticFiles = readdirSync(dir)
    .filter((d) => d.startsWith(AGENTIC_AGGREGATES) && isDir(join(dir, d)))
    .sort()
    .flatMap((d) =>
      readdirSync(join(dir, d))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => `${d}/${f}`),
    );
  /** The result filename (the `agg_<stem>.json` stem) of each benchmark, when known: its sidecar's name. */
  const stems = new Map<BenchmarkInput, string>();
  for (const file of benchFiles) {
    files.push(file);
    const stem = file.startsWith('results_bmk/') ? undefined : aggStem(file);
    readArray(dir, file, problems).forEach((row, i) => {
      // Agentic rows have their own schema and table. A collected agg_bmk.json holds them too
      // (InferenceX collects every bmk_* artifact), but without the names that find their records:
      // read from there only when the per-point folders are not here.
      if (isAgenticRow(row)) {
        const a = agenticFiles.length === 0 ? readAgenticRow(row, file, i, problems) : undefined;
        if (a) agentic.push(a);
        return;
      }
      const b = readBenchmarkRow(row, file, i, problems);
      if (b) benchmarks.push(b);
      if (b && stem !== undefined) stems.set(b, stem);
    });
  }
  readPower(dir, benchmarks, stems, manifest, files);
  const duplicates = new Map<string, number>();
  benchmarks.forEach((b, i) => {
    const key = JSON.stringify([b.config, b.isl, b.osl, b.conc]);
    const first = duplicates.get(key);
    if (first !== undefined)
      problems.push({
        file: benchFiles[0] ?? '',
        message: `two points of one config at isl ${b.isl}, osl ${b.osl}, conc ${b.conc} (rows ${first} and ${i}): one run measures a point once`,
      });
    else duplicates.set(key, i);
  });

  for (const file of agenticFiles) {
    files.push(file);
    const value = readJson(dir, file, problems);
    if (value === undefined) continue;
    const rows = Array.isArray(value) ? value : [value];
    rows.forEach((row, i) => {
      const a = readAgenticRow(row, file, Array.isArray(value) ? i : undefined, problems);
      if (!a) return;
      const records = agenticRecords(dir, file, agenticFiles);
      if (records) {
        files.push(records);
        a.ttft_by_context = ttftByContext(readFileSync(join(dir, records), 'utf8'), records, problems);
      }
      agentic.push(a);
    });
  }
  const agenticKeys = new Map<string, string>();
  for (const a of agentic) {
    const key = agenticKey(a, configKey(a.config));
    const first = agenticKeys.get(key);
    if (first !== undefined)
      problems.push({
        file: a.file,
        message: `the same agentic point as ${first} (config, KV offloading and conc ${a.conc}): one run measures a point once`,
      });
    else agenticKeys.set(key, a.file);
  }

  // Evals.
  const evals: EvalInput[] = [];
  const evalFile = ['agg_eval_all.json', 'eval_results_all/agg_eval_all.json'].find((f) => existsSync(join(dir, f)));
  if (evalFile) {
    files.push(evalFile);
    readArray(dir, evalFile, problems).forEach((row, i) => {
      const e = readEvalRow(row, evalFile, i, problems);
      if (!e) return;
      e.config = matchingBenchmarkConfig(e.config, benchmarks) ?? e.config;
      e.samples = samplesSummary(dir, e.source, e.task, problems);
      e.threshold = options.thresholdOf?.(e.config.model_prefix, e.task);
      evals.push(e);
    });
  }

  // Run stats.
  const runStats: RunStatInput[] = [];
  const statsFile = ['run_stats.json', 'run-stats/run_stats.json'].find((f) => existsSync(join(dir, f)));
  if (statsFile) {
    files.push(statsFile);
    const stats = readJson(dir, statsFile, problems);
    if (stats !== undefined && (stats === null || typeof stats !== 'object' || Array.isArray(stats))) {
      problems.push({ file: statsFile, message: 'expected {<hardware>: {n_success, total}}' });
    } else if (stats) {
      for (const [hardware, v] of Object.entries(stats as Record<string, { n_success?: unknown; total?: unknown }>)) {
        const ok =
          Number.isInteger(v?.n_success) &&
          Number.isInteger(v?.total) &&
          (v.n_success as number) >= 0 &&
          (v.n_success as number) <= (v.total as number);
        if (!ok)
          problems.push({
            file: statsFile,
            field: hardware,
            message: `expected {n_success, total} with 0 ≤ n_success ≤ total, got ${JSON.stringify(v)}`,
          });
        else runStats.push({ hardware: hardware.toLowerCase(), n_success: v.n_success as number, total: v.total as number });
      }
    }
  }

  // Changelog metadata.
  const changelog: ChangelogInput[] = [];
  if (options.changelogFile !== undefined) {
    const file = resolve(options.changelogFile);
    files.push(file);
    changelog.push(...readChangelog(readJson(dirname(file), basename(file), problems), options.changelogFile, problems));
  } else {
    const changelogFile = ['changelog-metadata/changelog_metadata.json', 'changelog_metadata.json'].find((f) =>
      existsSync(join(dir, f)),
    );
    if (changelogFile) {
      files.push(changelogFile);
      changelog.push(...readChangelog(readJson(dir, changelogFile, problems), changelogFile, problems));
    }
  }

  // A frontier run whose points are all still to come (`frontier run --defer`) is stored as such: partial, with no points yet.
  const waiting = frontier ? deferredPoints(manifest as Record<string, unknown>).length : 0;
  const results = benchmarks.length + agentic.length + evals.length + runStats.length + changelog.length;
  if (results === 0 && waiting === 0 && problems.length === 0) {
    problems.push({
      file: dir,
      message:
        'no results here: expected results_bmk/agg_bmk.json, bmk_*/agg_*.json, bmk_agentic_*/*.json, agg_eval_all.json, run_stats.json or changelog metadata',
    });
  }

  const run = frontier ? frontierRun(manifest as Record<string, unknown>, options) : inferencexRun(dir, options, problems);
  if (options.attempt !== undefined && (!Number.isInteger(options.attempt) || options.attempt < 1)) {
    problems.push({ file: '--attempt', message: `${options.attempt} is not a positive integer` });
  }
  let mergeRun: RunInfo | undefined;
  if (options.sourceRun !== undefined) {
    if (options.runId === undefined)
      problems.push({ file: '--source-run', message: 'reuse needs --run-id, the run that merged the source run' });
    mergeRun = { ...run, source_run_id: options.sourceRun, attempt: 1 };
    Object.assign(run, { run_id: options.sourceRun, merge_run_id: run.run_id, attempt: options.attempt ?? 1 });
  }
  const attempts = frontier ? readAttempts(manifest as Record<string, unknown>, manifestFile!, problems) : [];
  if (problems.length > 0) throw new IngestError(problems, dir);
  return { run, mergeRun, benchmarks, agentic, evals, runStats, changelog, logs: readLogs(dir), attempts, files };
}

const pointKey = (b: BenchmarkInput): string => JSON.stringify([configKey(b.config), b.isl, b.osl, b.conc]);
const aggStem = (file: string): string =>
  basename(file)
    .replace(/^agg_/, '')
    .replace(/\.json$/, '');
const SIDECAR = /^power_validation_(.+)\.json$/;

/**
 * Each benchmark's power verdict, with its `power_validation_<stem>.json` sidecar when the
 * directory has it (beside its aggregate in `bmk_<RF>/`, in InferenceX's `power_audit_<RF>/`
 * artifact, or at the top) and whether it ran on the simulated engine. A row of the collected
 * `results_bmk/agg_bmk.json` names no result file: its stem is that of the per-point aggregate
 * (`bmk_*\/agg_*.json`) of the same config, isl, osl and conc, when those are here too. Sidecars
 * are read leniently: a malformed one leaves the verdict to the aggregate, except that it cannot
 * make invalid power valid.
 */
function readPower(
  dir: string,
  benchmarks: BenchmarkInput[],
  stems: Map<BenchmarkInput, string>,
  manifest: Record<string, unknown> | undefined,
  files: string[],
): void {
  if (benchmarks.length === 0) return;
  const folders = readdirSync(dir)
    .filter(
      (d) => (d.startsWith('power_audit_') || (d.startsWith('bmk_') && !d.startsWith('bmk_agentic_'))) && isDir(join(dir, d)),
    )
    .sort();
  const sidecars = new Map<string, string>();
  for (const folder of ['', ...folders]) {
    for (const f of readdirSync(join(dir, folder)).sort()) {
      const m = SIDECAR.exec(f);
      const path = folder ? `${folder}/${f}` : f;
      if (m && !sidecars.has(m[1]!) && statSync(join(dir, path)).isFile()) sidecars.set(m[1]!, path);
    }
  }
  if (benchmarks.some((b) => !stems.has(b))) {
    // The collected aggregate: find each row's result file among the per-point aggregates.
    const byKey = new Map<string, string>();
    for (const folder of folders.filter((d) => d.startsWith('bmk_'))) {
      for (const f of readdirSync(join(dir, folder)).filter((n) => n.startsWith('agg_') && n.endsWith('.json'))) {
        const scratch: IngestProblem[] = [];
        for (const [i, row] of readArray(dir, `${folder}/${f}`, scratch).entries()) {
          const b = readBenchmarkRow(row, `${folder}/${f}`, i, scratch);
          if (b) byKey.set(pointKey(b), aggStem(f));
        }
      }
    }
    for (const b of benchmarks) {
      const stem = byKey.get(pointKey(b));
      if (!stems.has(b) && stem !== undefined) stems.set(b, stem);
    }
  }
  for (const b of benchmarks) {
    const stem = stems.get(b);
    const file = stem === undefined ? undefined : sidecars.get(stem);
    const sidecar = file === undefined ? undefined : readSidecar(readJson(dir, file, []), file);
    if (file !== undefined) files.push(file);
    b.power = powerVerdict(b.power_flags, sidecar, simulatedPoint(manifest, b.config.framework));
    keepMeasuredIfValid(b.metrics, b.power);
  }
}

/** The folder prefix of an agentic point's aggregate (InferenceX's upload name), and of its raw AIPerf artifacts. */
const AGENTIC_AGGREGATES = 'bmk_agentic_';
const AGENTIC_RAW = 'agentic_';

/**
 * The per-request records of an agentic aggregate `bmk_agentic_<RF>/<name>.json`, relative to the
 * directory: `agentic_<name>/aiperf_artifacts/profile_export.jsonl`, or in the folder of the one
 * profile run (`aiperf_artifacts/<run>/`) as InferenceX's aggregation finds it; `agentic_<RF>/`
 * when the folder holds only this aggregate. Undefined when the run did not keep them.
 */
function agenticRecords(root: string, file: string, all: string[]): string | undefined {
  const [folder, name] = file.split('/') as [string, string];
  const rf = folder.slice(AGENTIC_AGGREGATES.length);
  const alone = all.filter((f) => f.startsWith(`${folder}/`)).length === 1;
  const candidates = [`${AGENTIC_RAW}${name.replace(/\.json$/, '')}`, ...(alone ? [`${AGENTIC_RAW}${rf}`] : [])];
  for (const candidate of candidates) {
    const base = `${candidate}/aiperf_artifacts`;
    if (existsSync(join(root, base, 'profile_export.jsonl'))) return `${base}/profile_export.jsonl`;
    if (!isDir(join(root, base))) continue;
    for (const child of readdirSync(join(root, base)).sort()) {
      if (existsSync(join(root, base, child, 'profile_export.jsonl'))) return `${base}/${child}/profile_export.jsonl`;
    }
  }
  return undefined;
}

function baseRun(options: IngestOptions, origin: RunInfo['origin']): RunInfo {
  if (options.official && options.stage)
    throw new UserError('a staged run is never official: stage it (--stage PR) or ingest it as official (--official), not both');
  if (options.stage && options.sourceRun)
    throw new UserError('--stage with --source-run: a reused run is published at merge; stage the source run itself');
  if (options.stage && !(Number.isInteger(options.stage.pr) && options.stage.pr > 0))
    throw new UserError(`--stage ${options.stage.pr}: expected the pull request's number (a positive integer)`);
  return {
    run_id: options.runId ?? '',
    attempt: options.attempt ?? 1,
    official: options.official ?? false,
    source_run_id: '',
    merge_run_id: '',
    origin,
    name: options.name ?? '',
    url: options.url ?? '',
    commit_sha: options.commit ?? '',
    branch: options.branch ?? '',
    labels: options.labels ?? [],
    status: 'completed',
    deferred_points: 0,
    deferred_reason: '',
    staged: options.stage,
    date: options.date,
    started_at: '',
    finished_at: '',
  };
}

/** The points a `frontier run` manifest records as deferred (`frontier run --defer`): they run later. */
function deferredPoints(manifest: Record<string, unknown>): { status?: unknown; reason?: unknown }[] {
  const points = Array.isArray(manifest.points) ? (manifest.points as { status?: unknown; reason?: unknown }[]) : [];
  return points.filter((p) => p?.status === 'deferred');
}

/** A `frontier run` directory: its id is derived from the manifest, so re-ingesting it finds the same run. */
function frontierRun(manifest: Record<string, unknown>, options: IngestOptions): RunInfo {
  const run = baseRun(options, 'frontier');
  const started = typeof manifest.started === 'string' ? manifest.started : '';
  const matrix = (manifest.matrix ?? {}) as { sha256?: string };
  const cluster = (manifest.cluster ?? {}) as { name?: string };
  if (!options.runId) {
    const digest = createHash('sha256')
      .update(`${started}\n${matrix.sha256 ?? ''}`)
      .digest('hex')
      .slice(0, 8);
    run.run_id = typeof manifest.id === 'string' ? manifest.id : `${started.replace(/[-:]/g, '').slice(0, 15)}-${digest}`;
  }
  run.started_at = started;
  run.finished_at = typeof manifest.ended === 'string' ? manifest.ended : '';
  run.status = typeof manifest.status === 'string' ? manifest.status : 'completed';
  const deferred = deferredPoints(manifest);
  run.deferred_points = deferred.length;
  run.deferred_reason = [...new Set(deferred.map((p) => (typeof p.reason === 'string' ? p.reason : '')))].join('; ');
  if (!options.commit && typeof manifest.commit === 'string') run.commit_sha = manifest.commit;
  if (!options.name) run.name = `frontier run${cluster.name ? ` on ${cluster.name}` : ''}`;
  run.date ??= DATE.test(started.slice(0, 10)) ? started.slice(0, 10) : undefined;
  return run;
}

function inferencexRun(dir: string, options: IngestOptions, problems: IngestProblem[]): RunInfo {
  const run = baseRun(options, 'inferencex');
  if (!options.runId) {
    problems.push({
      file: dir,
      message: `an InferenceX artifact set does not name its run: pass --run-id (the GitHub run id), e.g. --run-id ${basename(dir)}`,
    });
  }
  if (!options.name) run.name = 'InferenceX sweep';
  return run;
}

function readChangelog(value: unknown, file: string, problems: IngestProblem[]): ChangelogInput[] {
  const meta = value as { base_ref?: unknown; head_ref?: unknown; entries?: unknown } | undefined;
  if (value === undefined) return [];
  if (!meta || typeof meta !== 'object' || !Array.isArray(meta.entries)) {
    problems.push({ file, message: 'expected {base_ref, head_ref, entries: [...]}' });
    return [];
  }
  const out: ChangelogInput[] = [];
  meta.entries.forEach((raw, index) => {
    const e = raw as Record<string, unknown>;
    const keys = e?.['config-keys'];
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
      problems.push({ file, index, field: 'config-keys', message: 'expected a list of config keys' });
      return;
    }
    const d = e.description;
    const description = Array.isArray(d) ? d.map(String).join('\n') : typeof d === 'string' ? d : '';
    const link = typeof e['pr-link'] === 'string' ? e['pr-link'] : (/PR:\s*(https?:\/\/\S+)/.exec(description)?.[1] ?? '');
    out.push({
      base_ref: typeof meta.base_ref === 'string' ? meta.base_ref : '',
      head_ref: typeof meta.head_ref === 'string' ? meta.head_ref : '',
      config_keys: keys as string[],
      description,
      pr_link: link,
      evals_only: e['evals-only'] === true || e['evals-only'] === 'true',
    });
  });
  return out;
}

/** The topology an eval row and a benchmark row share (an eval row has no image, recipe or pp). */
function evalMatchKey(c: ConfigIdentity): string {
  const side = (s: ConfigIdentity['prefill']) => [s.tp, s.ep, s.dp_attention, c.is_multinode ? s.num_workers : 0];
  return JSON.stringify([
    c.hardware,
    c.framework,
    c.model_prefix,
    c.precision,
    c.spec_method,
    c.is_multinode,
    ...side(c.prefill),
    ...side(c.decode),
  ]);
}

/** The config of this run's benchmark rows that an eval ran on, when exactly one matches. */
function matchingBenchmarkConfig(config: ConfigIdentity, benchmarks: BenchmarkInput[]): ConfigIdentity | undefined {
  const key = evalMatchKey(config);
  const found = new Map<string, ConfigIdentity>();
  for (const b of benchmarks) if (evalMatchKey(b.config) === key) found.set(JSON.stringify(b.config), b.config);
  return found.size === 1 ? [...found.values()][0] : undefined;
}

/** Counts from the lm-eval samples file beside an eval's results file, when the run kept it. */
function samplesSummary(root: string, source: string, task: string, problems: IngestProblem[]): Record<string, number> {
  if (!source) return {};
  // The source names the results file as the collector saw it: relative to the artifact set, or an
  // absolute path of the machine that ran it. Its eval_* folder is found under this directory either way.
  const parts = source.split('/');
  const evalFolder = parts.findIndex((p) => p.startsWith('eval_') && !p.startsWith('eval_results'));
  const candidates = [join(root, source), ...(evalFolder >= 0 ? [join(root, ...parts.slice(evalFolder))] : [])];
  const inside = (p: string) => resolve(p).startsWith(resolve(root) + sep);
  const results = candidates.find((p) => inside(p) && existsSync(p));
  if (!results) return {};
  const folder = dirname(results);
  const stamp = basename(results)
    .replace(/^results_/, '')
    .replace(/\.json$/, '');
  // One results file may hold several tasks, each with its own samples_<task>_<stamp>.jsonl.
  const names = readdirSync(folder);
  const samples = names.includes(`samples_${task}_${stamp}.jsonl`)
    ? `samples_${task}_${stamp}.jsonl`
    : names.find((f) => f.startsWith('samples_') && f.endsWith(`_${stamp}.jsonl`));
  if (!samples) return {};
  const out: Record<string, number> = {};
  const add = (key: string, n: number) => (out[key] = (out[key] ?? 0) + n);
  const docs = new Set<unknown>();
  const failedDocs = new Set<unknown>();
  const lines = readFileSync(join(folder, samples), 'utf8').split('\n');
  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue;
    if (jsonTooDeep(line)) {
      problems.push({ file: relative(root, join(folder, samples)), index, message: TOO_DEEP });
      return {};
    }
    let s: Record<string, unknown>;
    try {
      s = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    docs.add(s.doc_id);
    // lm-eval's samples: one line per question and filter. Filters count as collect_eval_results.py
    // names them (strict…: em_strict; flex… or …extract…: em_flexible); Frontier adds a failed request's error.
    const filter = typeof s.filter === 'string' ? s.filter : '';
    const column = filter.includes('strict') ? 'strict_correct' : /flex|extract/.test(filter) ? 'flexible_correct' : undefined;
    if (column) add(column, typeof s.exact_match === 'number' ? s.exact_match : 0); // a fraction for a mean@n document
    if (s.error && !failedDocs.has(s.doc_id)) {
      failedDocs.add(s.doc_id);
      add('failed_requests', typeof s.failed_requests === 'number' ? s.failed_requests : 1);
    }
  }
  out.docs = docs.size;
  return out;
}

const OUTCOMES: readonly string[] = ['ok', 'infrastructure', 'measurement', 'interrupted'];

/** The attempts of each launch in run.json (`launches[].attempts`); a launch without them (an older run.json) has none. */
function readAttempts(manifest: Record<string, unknown>, file: string, problems: IngestProblem[]): AttemptInput[] {
  const cluster = (manifest.cluster ?? {}) as { name?: unknown };
  const launches = Array.isArray(manifest.launches) ? (manifest.launches as unknown[]) : [];
  const out: AttemptInput[] = [];
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  launches.forEach((l, index) => {
    const launch = (l ?? {}) as { id?: unknown; label?: unknown; attempts?: unknown };
    if (launch.attempts === undefined) return;
    if (!Array.isArray(launch.attempts)) {
      problems.push({ file, field: `launches[${index}].attempts`, message: 'expected a list of attempts' });
      return;
    }
    for (const a of launch.attempts as unknown[]) {
      const x = (a ?? {}) as Record<string, unknown>;
      const nodes = x.nodes;
      if (
        !Number.isInteger(x.attempt) ||
        (x.attempt as number) < 1 ||
        !Array.isArray(nodes) ||
        !nodes.every((n) => typeof n === 'string') ||
        !OUTCOMES.includes(x.outcome as string)
      ) {
        problems.push({
          file,
          field: `launches[${index}].attempts`,
          message: `expected { attempt ≥ 1, nodes: [names], outcome: ${OUTCOMES.join(' | ')} }, got ${JSON.stringify(a).slice(0, 200)}`,
        });
        continue;
      }
      out.push({
        cluster: str(cluster.name),
        launch: str(launch.id),
        label: str(launch.label),
        attempt: x.attempt as number,
        nodes: nodes as string[],
        outcome: x.outcome as string,
        reason: str(x.reason),
        job: str(x.job),
        started_at: str(x.started),
        ended_at: str(x.ended),
      });
    }
  });
  return out;
}

/**
 * The files of the run's server_logs_* (and eval_server_logs_*) folders, each cut to its last
 * LOG_BYTES; with the logs of a launch's failed attempts, kept in their `attempt-<n>/` inside.
 */
function readLogs(root: string): LogInput[] {
  const out: LogInput[] = [];
  let total = 0;
  const folders = readdirSync(root)
    .filter((d) => /^(eval_)?server_logs_/.test(d) && isDir(join(root, d)))
    .sort();
  const inFolder = (folder: string): string[] =>
    readdirSync(join(root, folder))
      .sort()
      .flatMap((f) =>
        /^attempt-\d+$/.test(f) && isDir(join(root, folder, f))
          ? readdirSync(join(root, folder, f))
              .sort()
              .map((g) => `${f}/${g}`)
          : [f],
      );
  for (const folder of folders) {
    for (const file of inFolder(folder)) {
      const path = join(root, folder, file);
      const stat = statSync(path);
      if (!stat.isFile() || total >= RUN_LOG_BYTES) continue;
      const bytes = readFileSync(path);
      const kept = bytes.subarray(Math.max(0, bytes.length - LOG_BYTES));
      total += kept.length;
      // PostgreSQL text cannot hold NUL; a log line cut in the middle of a character is decoded leniently.
      out.push({
        name: `${folder}/${file}`,
        size: stat.size,
        truncated: kept.length < bytes.length,
        content: kept.toString('utf8').replace(/\0/g, ''),
      });
    }
  }
  return out;
}
