import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, writeFilesAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/user-error.js';

/**
 * A run directory, laid out as InferenceX's collectors and dashboard ingest it:
 *
 *   bmk_<RF>/<RF>.json          the load generator's raw result
 *   bmk_<RF>/agg_<RF>.json      the point's aggregate (process_result); a repeated point's combines its repeats (results/repeats.ts)
 *   repeats_<RF>/<k>/           a repeated point's k-th measurement: <RF>.json, agg_<RF>.json, power_validation_<RF>.json
 *   bmk_<RF>/power_validation_<RF>.json  its power verdict, reasons and per-GPU energy (docs/power.md)
 *   server_logs_<RF>/gpu_metrics.csv     the launch's GPU telemetry (…_sampler.json: the sampler's status)
 *   bmk_agentic_<RF>/<RF>.json  an agentic point's aggregate (process_agentic_result)
 *   agentic_<RF>/               its replay's artifacts (aiperf_artifacts/, benchmark_command.txt),
 *                               GPU telemetry and power verdict (gpu_metrics.csv, power_validation.json)
 *   server_logs_<RF>/           the engine's logs (RF of the launch's first point)
 *   eval_<exp>_<RF>/            GSM8K: results_*.json, samples_gsm8k_*.jsonl, meta_env.json
 *   agg_eval_all.json           every eval's row, as collect_eval_results.py makes them
 *   results_bmk/agg_bmk.json    every aggregate, one array
 *   run_stats.json              {<cluster>: {n_success, total}}, counting matrix rows (jobs)
 *   run.json                    the manifest: matrix, cluster, commit, times, status per point
 *   engines.json                while a local launch runs: its engine processes (leftovers.ts)
 *
 * Files are written whole (a temporary file renamed into place): a crash never leaves half a file.
 */

/** `deferred`: not run this time, by request (`--defer`); `--resume` runs it. */
export type PointStatus = 'pending' | 'ok' | 'invalid' | 'failed' | 'deferred';
/** `partial`: every point that ran is ok, and some are deferred. */
export type RunStatus = 'running' | 'completed' | 'partial' | 'failed' | 'interrupted';

export interface PointRecord {
  resultFilename: string;
  /** Its launch's id. */
  launch: string;
  conc: number;
  /** The runner label of its row. */
  runner: string;
  /** The index of its matrix row: a reference job, which run_stats counts. */
  row: number;
  /** Which measurement of a repeated point this record is (from 1); absent when the point is measured once. */
  repeat?: number | undefined;
  status: PointStatus;
  /** An agentic-coding point: its aggregate is `bmk_agentic_<RF>/<RF>.json`, which agg_bmk.json leaves out as InferenceX's collector does. */
  agentic?: true | undefined;
  error?: string | undefined;
  /** Why a deferred point has not run. */
  reason?: string | undefined;
  started?: string | undefined;
  ended?: string | undefined;
  /** The engine profiler's trace of the point (`--profile`), relative to the run directory. */
  profile?: string | undefined;
  /** Its power step's verdict (docs/power.md): valid, or the reasons it is not. */
  power?: { valid: boolean; reasons: string[] } | undefined;
  /** Summary figures of a finished point. */
  outputTputPerGpu?: number | undefined;
  interactivity?: number | undefined;
  medianTtftMs?: number | undefined;
}

export interface LaunchRecord {
  id: string;
  label: string;
  engine: string;
  status: 'pending' | 'running' | 'done' | 'failed' | 'deferred';
  error?: string | undefined;
  /** Why a deferred launch has not run. */
  reason?: string | undefined;
  logs?: string | undefined;
  /** The Slurm job, when the cluster is one (its last attempt's). */
  job?: string | undefined;
  /** Every attempt at it, in order: the first, then each retry of an infrastructure failure (`--retries`). */
  attempts?: LaunchAttempt[] | undefined;
}

/**
 * One attempt at a launch. `outcome`: `ok` (every point it ran is ok), `infrastructure` (the engine
 * never served: a node, a start-up crash, the scheduler; retried, on other nodes), `measurement`
 * (the benchmark ran and failed its checks, or the launch failed otherwise: never retried), or
 * `interrupted` (the run was stopped). Written to run.json; the store keeps every one.
 */
export interface LaunchAttempt {
  /** 1, 2, …, counted across `--resume`. */
  attempt: number;
  /** The nodes it ran on: Slurm's names (`scontrol show job`'s NodeList), this host's name locally. */
  nodes: string[];
  /** Its Slurm job. */
  job?: string | undefined;
  started: string;
  ended: string;
  outcome: 'ok' | 'infrastructure' | 'measurement' | 'interrupted';
  /** Why it failed (the first line of the first failure), absent when ok. */
  reason?: string | undefined;
  /** The points it ran, by concurrency (a retry runs only those that did not finish). */
  concs: number[];
  /** The nodes it was told not to use (the profile's, and those of the failed attempts before it). */
  excluded?: string[] | undefined;
  /** Where its logs went when a later attempt needed its log folder: `server_logs_<RF>/attempt-<n>`. */
  logs?: string | undefined;
}

export interface RunManifest {
  version: 1;
  frontier: string;
  matrix: { file: string; sha256: string; rows: number };
  cluster: { name: string; scheduler: string; simulate: boolean };
  /** The catalog checkout's commit (git HEAD where the run started), if it is one. */
  commit: string | null;
  started: string;
  ended: string | null;
  status: RunStatus;
  launches: LaunchRecord[];
  points: PointRecord[];
  /** The GSM8K evals of launches whose rows ask for one (`run-eval`). */
  evals: EvalRecord[];
}

export interface EvalRecord {
  launch: string;
  /** Its folder in the run directory: `eval_<exp>_<RF>` (multinode: `eval_<RF>`). */
  dir: string;
  concs: number[];
  /** passed/failed: the scores against the thresholds (`frontier eval check`); invalid: too many requests failed. */
  status: 'pending' | 'passed' | 'failed' | 'invalid' | 'error';
  error?: string | undefined;
  /** The tasks the row asked for. */
  tasks?: string[] | undefined;
  /** Per concurrency, task and metric (`exact_match,<filter>`): the score and its standard error. */
  scores?: { conc: number; task: string; metric: string; score: number; stderr: number; failed: number }[] | undefined;
  /** What the threshold check printed. */
  check?: string | undefined;
}

/** A run directory that cannot be used as asked: the message names the file and the fix. */
export class RunError extends UserError {}

const POINT_STATUSES: readonly string[] = ['pending', 'ok', 'invalid', 'failed', 'deferred'];

/** What keeps a parsed run.json from being a manifest `--resume` can continue, if anything. */
function manifestProblem(m: unknown): string | undefined {
  const o = m as Partial<Record<keyof RunManifest, unknown>> | null;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return 'not a JSON object';
  if (o.version !== 1) return `version ${JSON.stringify(o.version)}, expected 1`;
  if (typeof (o.matrix as { sha256?: unknown } | undefined)?.sha256 !== 'string') return 'no matrix.sha256';
  if (typeof o.started !== 'string') return 'no started time';
  if (!Array.isArray(o.launches)) return 'no launches list';
  if (o.evals !== undefined && !Array.isArray(o.evals)) return 'evals is not a list';
  if (!Array.isArray(o.points)) return 'no points list';
  const bad = (o.points as unknown[]).findIndex((p) => {
    const r = p as Partial<PointRecord> | null;
    return typeof r?.resultFilename !== 'string' || !POINT_STATUSES.includes(r.status as string);
  });
  return bad >= 0 ? `points[${bad}] has no resultFilename or status` : undefined;
}

/**
 * A manifest written before launches had that name: `groups`, and each point's and eval's `group`.
 * Read as today's; rewritten with today's names when the run resumes.
 */
function fromOldNames(m: unknown): unknown {
  const o = m as { groups?: unknown; launches?: unknown; points?: unknown; evals?: unknown } | null;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.groups) || o.launches !== undefined) return m;
  const { groups, ...rest } = o;
  const renamed = (xs: unknown): unknown =>
    Array.isArray(xs)
      ? xs.map((x: unknown) => {
          if (typeof x !== 'object' || x === null || !('group' in x)) return x;
          const { group, ...others } = x as { group: unknown };
          return { ...others, launch: group };
        })
      : xs;
  return { ...rest, launches: groups, points: renamed(rest.points), evals: renamed(rest.evals) };
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A name that becomes part of one path component in the run directory (after a prefix): no separator may lead out of it. */
function fileNamePart(name: string): string {
  if (/[/\\\0]/.test(name))
    throw new RunError(`'${name}' cannot name a file in the run directory: it must not contain '/', '\\' or NUL`);
  return name;
}

export class RunDir {
  constructor(readonly root: string) {}

  /** A point's folder, or with `repeat` the folder of that measurement of a repeated point. */
  bmkDir = (rf: string, repeat?: number): string =>
    repeat === undefined
      ? join(this.root, `bmk_${fileNamePart(rf)}`)
      : join(this.root, `repeats_${fileNamePart(rf)}`, String(repeat));
  rawFile = (rf: string, repeat?: number): string => join(this.bmkDir(rf, repeat), `${rf}.json`);
  aggFile = (rf: string, repeat?: number): string => join(this.bmkDir(rf, repeat), `agg_${rf}.json`);
  agenticAggFile = (rf: string): string => join(this.root, `bmk_agentic_${fileNamePart(rf)}`, `${rf}.json`);
  agenticDir = (rf: string): string => join(this.root, `agentic_${fileNamePart(rf)}`);
  agenticArtifacts = (rf: string): string => join(this.agenticDir(rf), 'aiperf_artifacts');
  serverLogs = (rf: string): string => join(this.root, `server_logs_${fileNamePart(rf)}`);
  evalDir = (exp: string, rf: string): string => join(this.root, `eval_${fileNamePart(exp)}_${fileNamePart(rf)}`);
  get manifestFile(): string {
    return join(this.root, 'run.json');
  }
  /** The engine processes of the local launch that is running (leftovers.ts). */
  get enginesFile(): string {
    return join(this.root, 'engines.json');
  }

  writeRaw(rf: string, text: string, repeat?: number): void {
    writeFileAtomic(this.rawFile(rf, repeat), text, { mkdir: true });
  }

  /** The aggregate and its power sidecar, together: both or neither. */
  writeAggWithPower(rf: string, agg: string, sidecarName: string, sidecar: string, repeat?: number): void {
    writeFilesAtomic(
      [
        [this.aggFile(rf, repeat), agg],
        [join(this.bmkDir(rf, repeat), sidecarName), sidecar],
      ],
      { mkdir: true },
    );
  }

  /** The manifest, undefined when there is none; a RunError when it cannot be read or is not one. */
  readManifest(): RunManifest | undefined {
    let text: string;
    try {
      text = readFileSync(this.manifestFile, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new RunError(`${this.manifestFile}: cannot read it (${(e as Error).message})`);
    }
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch (e) {
      throw this.unusable(`not JSON: ${(e as Error).message}`);
    }
    const manifest = fromOldNames(m);
    const problem = manifestProblem(manifest);
    if (problem) throw this.unusable(problem);
    return manifest as RunManifest;
  }

  private unusable(why: string): RunError {
    return new RunError(
      `${this.manifestFile} is not a run manifest (${why}), so --resume cannot tell which points are done. ` +
        `Repair or restore that file, or start afresh with another --out; nothing in ${this.root} was changed`,
    );
  }

  writeManifest(m: RunManifest): void {
    writeFileAtomic(this.manifestFile, `${JSON.stringify(m, null, 2)}\n`, { mkdir: true });
  }

  /** `results_bmk/agg_bmk.json` and `run_stats.json` from the manifest's points. */
  writeRunResults(m: RunManifest): void {
    // A repeated point is one aggregate, its repeats combined; it has one when some repeat is ok.
    const measured = new Set(m.points.filter((p) => p.status === 'ok' && !p.agentic).map((p) => p.resultFilename));
    const aggs = [...measured].map((rf) => JSON.parse(readFileSync(this.aggFile(rf), 'utf8')) as unknown);
    writeFileAtomic(join(this.root, 'results_bmk', 'agg_bmk.json'), JSON.stringify(aggs, null, 2), { mkdir: true });
    // As calc_success_rate.py: per hardware bucket (the cluster that ran the jobs), a job (a
    // matrix row, with all its concurrencies) succeeds when every point of it does. A deferred job is not counted yet.
    const jobs = new Map<number, boolean>();
    for (const p of m.points) if (p.status !== 'deferred') jobs.set(p.row, (jobs.get(p.row) ?? true) && p.status === 'ok');
    const ok = [...jobs.values()].filter(Boolean).length;
    const stats = jobs.size > 0 ? { [m.cluster.name]: { n_success: ok, total: jobs.size } } : {};
    writeFileAtomic(join(this.root, 'run_stats.json'), JSON.stringify(stats, null, 2), { mkdir: true });
  }
}
