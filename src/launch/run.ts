import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { collectEvalResults, formatAggJson } from '../evals/index.js';
import { canaryRow, isAgenticRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import type { InferencexTree } from '../plan/inferencex/tree.js';
import type { RecipeBook } from '../plan/inferencex/recipe-plan.js';
import { GOLDEN_DIR, GoldenError, loadGolden } from '../specdec/golden.js';
import type { GoldenFile } from '../specdec/golden.js';
import { asksForSyntheticAcceptance } from '../specdec/synthetic.js';
import { logsKeyOf, planRun } from '../plan/launches.js';
import type { PlannedEval, PlannedLaunch, PlannedPoint } from '../plan/launches.js';
import type { RepeatSettings } from '../clusters/index.js';
import { clusterSummary, planLaunch } from '../plan/plan-launch.js';
import type { RunnablePlan } from '../plan/launch-plan.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { AgenticSettings } from './agentic.js';
import { writeAnswerKeys } from './evals.js';
import type { EvalSettings } from './evals.js';
import { evalLine, runLaunchEvals, settleEval } from './launch-evals.js';
import { stopLeftovers } from './leftovers.js';
import type { PointOutcome } from './point-outcome.js';
import { combineSettledRepeats } from './point-repeats.js';
import { settlePoint } from './point-settle.js';
import { POWER_INTERVAL_MS, launchNode } from './power.js';
import { RunDir, RunError, sha256 } from './run-dir.js';
import type { LaunchRecord, PointRecord, RunManifest } from './run-dir.js';
import { RunRecords } from './run-records.js';
import type { Deferral } from './run-records.js';

/**
 * `frontier run`: execute a matrix on a cluster. Plans each launch once (plan/plan-launch.ts),
 * runs the runnable ones through the cluster's executor (local processes or Slurm jobs), turns
 * every raw result into its aggregate and keeps the manifest current after every point, so an
 * interrupted run says where it stopped and `resume` picks up from there.
 */

export interface Reporter {
  launchStart?(launch: PlannedLaunch, index: number, total: number): void;
  waiting?(launch: PlannedLaunch, attempt: number, pending: string[]): void;
  pointStart?(launch: PlannedLaunch, p: PlannedPoint): void;
  pointProgress?(launch: PlannedLaunch, p: PlannedPoint, done: number, total: number, tokens: number, elapsedMs: number): void;
  pointDone?(launch: PlannedLaunch, p: PlannedPoint, record: PointRecord): void;
  launchDone?(launch: PlannedLaunch, record: LaunchRecord): void;
  note?(message: string): void;
}

/** What an executor is given to run one launch. */
export interface LaunchContext {
  plan: RunnablePlan;
  /** The points to run (all of the launch's, less those a resumed run already has). */
  points: PlannedPoint[];
  dir: RunDir;
  cluster: ClusterProfile;
  reporter: Reporter;
  signal: AbortSignal;
  record: LaunchRecord;
  finishPoint(p: PlannedPoint, outcome: PointOutcome): void;
  /** The corpus and replay settings of agentic-coding points. */
  agentic?: AgenticSettings | undefined;
  /** Persist the manifest (after the launch record changed). */
  save(): void;
  /** The launch's pending evals (none without a dataset), run after its points. */
  evals: PlannedEval[];
  evalSettings?: EvalSettings;
  /** Local executors: run the pending evals against the endpoint, writing their folders. */
  evaluate?: (baseUrl: string) => Promise<void>;
  /** Where the run's clock meets the wall clock (epoch ms): a simulated run's times are on it (src/util/virtual-clock.ts). */
  clockAnchorMs: number;
  /** How often the GPU monitor samples power (ms on the run's clock). */
  powerIntervalMs: number;
}

/**
 * Runs one launch: starts the engine, waits until it is ready, benches each point, stops it.
 * `stopLeftovers`, for `--resume`: stop what a killed run's launches left running elsewhere (a
 * scheduler's jobs) and name each; local engines are found from the run directory (leftovers.ts).
 */
export type LaunchExecutor = ((ctx: LaunchContext) => Promise<void>) & {
  stopLeftovers?: (previous: RunManifest) => Promise<string[]>;
};

export interface RunOptions {
  rows: readonly MatrixRow[];
  matrix: { file: string; text: string };
  cluster: ClusterProfile;
  out: string;
  executor: LaunchExecutor;
  frontierVersion: string;
  /** How to run Frontier itself on the nodes (sim engines, job scripts). */
  frontierCommand: string[];
  commit: string | null;
  failFast?: boolean;
  canary?: boolean;
  resume?: boolean;
  reporter?: Reporter;
  signal?: AbortSignal;
  /** The eval tasks of the rows with `run-eval`; without them their evals are not run (and say so). */
  evals?: EvalSettings;
  /** An InferenceX checkout: its single-node rows run through its benchmark scripts. */
  inferencex?: InferencexTree;
  /** Its recipes the multi-node rows name (`loadRecipeBook`): those rows run them. */
  recipes?: RecipeBook;
  /** The trace corpus agentic-coding rows replay; without it they fail and say so. */
  agentic?: AgenticSettings;
  /** InferenceX's REQUIRE_POWER=1: a point whose power is not valid is invalid (its results still written). */
  requirePower?: boolean;
  /** The GPU monitor's sampling interval, ms (default POWER_INTERVAL_MS, once a second as InferenceX's). */
  powerIntervalMs?: number;
  /** Rows not to run this time, and why (`--defer`): their points are recorded as deferred, and `resume` runs them. */
  defer?: Deferral;
  /** How many times each point is measured, and whether each time is a fresh launch (default: once). */
  repeats?: RepeatSettings;
}

export { RunError };

/** The golden AL curves a run injects: the InferenceX checkout's, else the working directory's or the built-in copy. */
export async function goldenFor(tree: InferencexTree | undefined): Promise<GoldenFile[]> {
  const own = tree && join(tree.root, GOLDEN_DIR);
  try {
    return (await loadGolden(own && existsSync(own) ? own : undefined)).files;
  } catch (e) {
    if (e instanceof GoldenError) throw new RunError(e.message);
    throw e;
  }
}

/** A launch of the run: its record, and its plan unless it does not run now. */
interface RunItem {
  launch: PlannedLaunch;
  record: LaunchRecord;
  plan?: RunnablePlan;
}

type StopReason = 'failed' | 'interrupted' | undefined;

export async function run(o: RunOptions): Promise<{ manifest: RunManifest; dir: RunDir }> {
  const dir = new RunDir(o.out);
  const previous = await previousRun(o, dir);
  const launches = planRun(o.rows, o.cluster.name, o.repeats);
  const golden = o.rows.some(asksForSyntheticAcceptance) ? await goldenFor(o.inferencex) : undefined;
  const records = new RunRecords(
    dir,
    {
      frontier: o.frontierVersion,
      matrix: { ...o.matrix, rows: o.rows },
      cluster: clusterSummary(o.cluster),
      commit: o.commit,
    },
    previous,
    o.defer,
    launches,
  );
  const items = launches.map((launch) => itemOf(launch, records, o, golden));
  if (o.evals && items.some(({ plan }) => plan?.kind === 'adapter' && plan.deployment.evalAnswers !== undefined))
    writeAnswerKeys(o.evals);
  records.save();
  const runner = new LaunchRunner(o, dir, records);
  const stopped = await runAll(items, runner, o);
  records.finish(stopped);
  const manifest = records.manifest;
  if (manifest.evals.some((e) => e.scores))
    writeFileAtomic(join(dir.root, 'agg_eval_all.json'), formatAggJson(collectEvalResults(dir.root)), { mkdir: true });
  return { manifest, dir };
}

/** The manifest `--resume` continues (after stopping what its launches left running); a fresh run's directory must have none. */
async function previousRun(o: RunOptions, dir: RunDir): Promise<RunManifest | undefined> {
  if (!o.resume && existsSync(dir.manifestFile))
    throw new RunError(`${dir.manifestFile} exists: pass --resume to continue that run, or choose another --out`);
  const previous = o.resume ? dir.readManifest() : undefined;
  if (!previous) return undefined;
  if (previous.matrix.sha256 !== sha256(o.matrix.text))
    throw new RunError(`--resume: ${dir.manifestFile} is a run of another matrix (its sha256 differs); use a new --out`);
  const left = [...(await stopLeftovers(dir.enginesFile)), ...((await o.executor.stopLeftovers?.(previous)) ?? [])];
  for (const what of left) o.reporter?.note?.(`--resume: stopped ${what}, left running by the previous run`);
  return previous;
}

/** A launch's record and plan: deferred, failed before it starts (no trace corpus, cannot run here), or planned. */
function itemOf(launch: PlannedLaunch, records: RunRecords, o: RunOptions, golden: GoldenFile[] | undefined): RunItem {
  const record = records.addLaunch(launch);
  const fail = (error: string): RunItem => {
    Object.assign(record, { status: 'failed', error });
    for (const p of launch.points) Object.assign(records.point(p), { status: 'failed', error });
    return { launch, record };
  };
  if (launch.points.every((p) => records.point(p).status === 'deferred')) {
    Object.assign(record, { status: 'deferred', reason: o.defer!.reason });
    return { launch, record };
  }
  if (isAgenticRow(launch.rows[0]!) && !o.agentic)
    return fail('an agentic-coding row replays a trace corpus: pass --traces FILE (frontier traces synth makes one)');
  records.addEvals(launch);
  const plan = planLaunch(launch, {
    cluster: o.cluster,
    frontierCommand: o.frontierCommand,
    evalAnswers: o.evals?.answersFile,
    tree: o.inferencex,
    recipes: o.recipes,
    golden,
  });
  if (plan.kind === 'cannot-run') return fail(plan.reasons.join('; '));
  record.engine = plan.engine;
  return { launch, record, plan };
}

/** The canary first (`--canary`), then every launch in order, until one fails under `--fail-fast` or the run is interrupted. */
async function runAll(items: readonly RunItem[], runner: LaunchRunner, o: RunOptions): Promise<StopReason> {
  const signal = o.signal;
  let stopped: StopReason;
  if (o.canary) stopped = await runCanary(items, runner, o.reporter ?? {}, signal);
  for (const [index, item] of items.entries()) {
    if (stopped) break;
    o.reporter?.launchStart?.(item.launch, index + 1, items.length);
    if (!item.plan) {
      o.reporter?.launchDone?.(item.launch, item.record);
      if (o.failFast && item.record.status === 'failed') stopped = 'failed';
      continue;
    }
    const ok = await runner.run(item as Required<RunItem>);
    if (signal?.aborted) stopped = 'interrupted';
    else if (!ok && o.failFast) stopped = 'failed';
  }
  return stopped;
}

/** InferenceX's canary (the lowest-concurrency single-node throughput row): a cheap check that the setup works. */
async function runCanary(
  items: readonly RunItem[],
  runner: LaunchRunner,
  reporter: Reporter,
  signal: AbortSignal | undefined,
): Promise<StopReason> {
  const points = items.filter((x) => x.plan).flatMap((x) => x.launch.points.map((p) => ({ x, p })));
  const canary = canaryRow(points.map(({ p }) => p.row));
  const first = points.find(({ p }) => p.row === canary);
  if (!first) {
    reporter.note?.('canary: none (no single-node throughput row): the run starts at once');
    return undefined;
  }
  reporter.note?.(`canary: ${first.x.launch.label} at conc ${first.p.conc}`);
  const ok = await runner.run(first.x as Required<RunItem>, [first.p]);
  if (signal?.aborted) return 'interrupted';
  if (ok) return undefined;
  reporter.note?.('canary failed: stopping the run');
  return 'failed';
}

/** Runs one planned launch through the executor and settles its records. */
class LaunchRunner {
  private readonly reporter: Reporter;
  private readonly signal: AbortSignal;
  private readonly clockAnchorMs = Date.now();

  constructor(
    private readonly o: RunOptions,
    private readonly dir: RunDir,
    private readonly records: RunRecords,
  ) {
    this.reporter = o.reporter ?? {};
    this.signal = o.signal ?? new AbortController().signal;
  }

  /** `only`: just these points, and no evals (the canary). Whether every point and eval passed. */
  async run(item: Required<RunItem>, only?: PlannedPoint[]): Promise<boolean> {
    const { launch, record, plan } = item;
    const records = this.records;
    const points = records.pendingPoints(only ?? launch.points);
    const evals = only ? [] : records.pendingEvals(launch.evals);
    if (points.length === 0 && evals.length === 0) {
      record.status = 'done';
      return true;
    }
    Object.assign(record, { status: 'running', logs: `server_logs_${logsKeyOf(launch, points)}` });
    records.save();
    try {
      await this.o.executor(this.contextOf(plan, record, points, evals));
    } catch (e) {
      record.error = e instanceof Error ? e.message : String(e);
      records.failPending(points, record.error);
    }
    if (!this.signal.aborted) for (const e of evals) this.settleEval(e, record.error);
    const ok = points.every((p) => records.point(p).status === 'ok') && evals.every((e) => records.eval(e).status === 'passed');
    if (record.status === 'running') record.status = ok ? 'done' : 'failed';
    records.save();
    this.reporter.launchDone?.(launch, record);
    return ok;
  }

  private contextOf(plan: RunnablePlan, record: LaunchRecord, points: PlannedPoint[], evals: PlannedEval[]): LaunchContext {
    const { o, dir, records, reporter, signal } = this;
    const settings = o.evals;
    return {
      plan,
      points,
      dir,
      cluster: o.cluster,
      reporter,
      signal,
      record,
      finishPoint: (p, outcome) => {
        settlePoint(
          { dir, node: launchNode(plan, o.cluster), requirePower: o.requirePower ?? false },
          p,
          records.point(p),
          outcome,
        );
        combineSettledRepeats(dir, p, records.repeatsOf(p));
        records.save();
        reporter.pointDone?.(plan.launch, p, records.point(p));
      },
      save: records.save,
      agentic: o.agentic,
      clockAnchorMs: this.clockAnchorMs,
      powerIntervalMs: o.powerIntervalMs ?? POWER_INTERVAL_MS,
      evals: settings ? evals : [],
      ...(settings && evals.length > 0
        ? {
            evalSettings: settings,
            evaluate: (baseUrl: string) =>
              runLaunchEvals(
                { dir, deployment: plan.deployment, settings, frontierVersion: o.frontierVersion, signal },
                evals,
                baseUrl,
                (line) => reporter.note?.(line),
              ),
          }
        : {}),
    };
  }

  private settleEval(e: PlannedEval, launchError: string | undefined): void {
    const record = this.records.eval(e);
    settleEval(record, join(this.dir.root, e.dir), e, this.o.evals, launchError);
    this.reporter.note?.(evalLine(record));
  }
}
