import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { collectEvalResults, formatAggJson } from '../evals/index.js';
import { canaryRow, isAgenticRow } from '../matrix/index.js';
import type { MatrixRow } from '../matrix/index.js';
import { excludedNodesFor } from '../clusters/index.js';
import type { ClusterProfile } from '../clusters/index.js';
import type { InferencexTree } from '../plan/inferencex/tree.js';
import type { RecipeBook } from '../plan/inferencex/recipe-plan.js';
import { GOLDEN_DIR, GoldenError, loadGolden } from '../specdec/golden.js';
import type { GoldenFile } from '../specdec/golden.js';
import { asksForSyntheticAcceptance } from '../specdec/synthetic.js';
import { logsKeyOf, planRun, sampleKeyOf } from '../plan/launches.js';
import type { PlannedEval, PlannedLaunch, PlannedPoint } from '../plan/launches.js';
import type { RepeatSettings } from '../clusters/index.js';
import { clusterSummary, planLaunch } from '../plan/plan-launch.js';
import type { LaunchPlan, RunnablePlan } from '../plan/launch-plan.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { AgenticSettings } from './agentic.js';
import { writeAnswerKeys } from './evals.js';
import { failureKindOf } from './failure.js';
import type { AttemptOutcome } from './failure.js';
import type { EvalSettings } from './evals.js';
import { evalLine, runLaunchEvals, settleEval } from './launch-evals.js';
import { stopLeftovers } from './leftovers.js';
import type { PointOutcome } from './point-outcome.js';
import { combineSettledRepeats } from './point-repeats.js';
import { settlePoint } from './point-settle.js';
import { POWER_INTERVAL_MS, launchNode } from './power.js';
import { RunDir, RunError, sha256 } from './run-dir.js';
import type { LaunchAttempt, LaunchRecord, PointRecord, RunManifest } from './run-dir.js';
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
  /** This attempt at the launch: the nodes it may not use, and the nodes it ran on (the executor says). */
  attempt: AttemptContext;
}

/** What an executor is told of, and tells of, the attempt it runs (failure.ts: which failures are retried). */
export interface AttemptContext {
  /** 1 for the first try, then one more for each retry. */
  number: number;
  /** Nodes it may not use (sbatch `--exclude`): the profile's `exclude-nodes` and the nodes of the attempts that failed before. */
  exclude: string[];
  /** The nodes it ran on, once the executor knows them: a Slurm job's NodeList; locally, this host. */
  nodes: string[];
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
  /** How often a launch that failed for infrastructure reasons is tried again (default: the cluster's `retries`). */
  retries?: number;
  /** `--profile`: each point under the engine's profiler, its trace kept (`PointRecord.profile`). */
  profile?: boolean;
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
  if (o.evals && items.some(({ plan }) => plan && servesEvalAnswers(plan))) writeAnswerKeys(o.evals);
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
  // (A launch of evals alone has no points to defer.)
  if (launch.points.length > 0 && launch.points.every((p) => records.point(p).status === 'deferred')) {
    Object.assign(record, { status: 'deferred', reason: o.defer!.reason });
    return { launch, record };
  }
  const plan = planLaunch(launch, {
    cluster: o.cluster,
    frontierCommand: o.frontierCommand,
    evalAnswers: o.evals?.answersFile,
    tree: o.inferencex,
    recipes: o.recipes,
    golden,
    profile: o.profile,
  });
  if (plan.kind === 'cannot-run') return fail(plan.reasons.join('; '));
  if (isAgenticRow(launch.rows[0]!) && !o.agentic && replaysCorpus(plan))
    return fail('an agentic-coding row replays a trace corpus: pass --traces FILE (frontier traces synth makes one)');
  records.addEvals(launch);
  record.engine = plan.engine;
  return { launch, record, plan };
}

/** Whether a launch's simulated engine answers its evals from the answer keys (an adapter's sim, or a simulating cluster's script). */
const servesEvalAnswers = (plan: LaunchPlan): boolean =>
  plan.kind === 'adapter'
    ? plan.deployment.evalAnswers !== undefined
    : plan.kind === 'script' && plan.simulated && plan.launch.evals.length > 0;

/** Whether Frontier replays an agentic launch's traces: all but a script whose own AIPerf runs (a real cluster's InferenceX client). */
const replaysCorpus = (plan: LaunchPlan): boolean =>
  !(plan.kind === 'script' && !plan.simulated && plan.script.client === 'inferencex');

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

/** What one attempt did: its record, and the points it left unfinished for infrastructure reasons. */
interface AttemptResult {
  attempt: LaunchAttempt;
  unfinished: PlannedPoint[];
}

/**
 * A failure in one line, short enough for a table, a store column and a report: its first line,
 * and when a log's end follows, that log's last line (what the process said last).
 */
const reasonOf = (message: string): string => {
  const lines = message.split('\n').map((l) => l.trim());
  const last = lines.slice(1).filter(Boolean).at(-1);
  const line = last ? `${lines[0]!.replace(/[;:]?\s*the end of its (log|output):?$/, '')} … ${last}` : lines[0]!;
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
};

const now = (): string => new Date().toISOString();

/**
 * Runs one planned launch through the executor and settles its records. A launch whose attempt
 * failed for infrastructure reasons (failure.ts) is tried again, up to `retries` times, with the
 * points that did not finish, away from the nodes the failed attempts ran on; every attempt is
 * recorded in the launch's record (`attempts`).
 */
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
    const { launch, record } = item;
    const records = this.records;
    const points = records.pendingPoints(only ?? launch.points);
    const evals = only ? [] : records.pendingEvals(launch.evals);
    if (points.length === 0 && evals.length === 0) {
      record.status = 'done';
      return true;
    }
    const retries = this.o.retries ?? this.o.cluster.retries;
    // Nodes are Slurm's to exclude; locally every node is this host.
    const slurm = this.o.cluster.scheduler === 'slurm';
    const profileExcludes = slurm ? excludedNodesFor(this.o.cluster, launch.rows[0]!) : [];
    const failedNodes: string[] = [];
    // A resumed launch whose last attempt (the previous run's) failed: its logs make way too.
    const previous = record.attempts?.at(-1);
    if (previous && previous.outcome !== 'ok' && !previous.logs)
      this.setAside(previous, `server_logs_${logsKeyOf(launch, points)}`, points);
    let todo = { points, evals };
    for (let retry = 0; ; retry++) {
      const exclude = [...new Set([...profileExcludes, ...failedNodes])].sort();
      const { attempt, unfinished } = await this.attempt(item, todo.points, todo.evals, exclude);
      if (attempt.outcome !== 'infrastructure' || this.signal.aborted || unfinished.length === 0) break;
      if (retry >= retries) {
        if (retries > 0) this.reporter.note?.(`  ${launch.label}: no retries left (${retries} used)`);
        break;
      }
      // A Slurm retry goes to other nodes; a local one has only this host.
      if (slurm) failedNodes.push(...attempt.nodes);
      this.setAside(attempt, record.logs, unfinished);
      records.resetPoints(unfinished);
      todo = { points: unfinished, evals: only ? [] : records.pendingEvals(launch.evals) };
      const away = [...new Set([...profileExcludes, ...failedNodes])];
      this.reporter.note?.(
        `  ${launch.label}: attempt ${attempt.attempt} failed (infrastructure${attempt.nodes.length > 0 ? ` on ${attempt.nodes.join(', ')}` : ''}: ${attempt.reason}); ` +
          `retrying ${unfinished.length === points.length ? 'the launch' : `${unfinished.length} unfinished point${unfinished.length === 1 ? '' : 's'}`}` +
          `${away.length > 0 ? ` without ${away.join(', ')}` : ''} (retry ${retry + 1} of ${retries})`,
      );
    }
    const ok = points.every((p) => records.point(p).status === 'ok') && evals.every((e) => records.eval(e).status === 'passed');
    if (record.status === 'running') record.status = ok ? 'done' : 'failed';
    records.save();
    this.reporter.launchDone?.(launch, record);
    return ok;
  }

  /** One attempt: the executor on `points` and `evals`, then its outcome, recorded. */
  private async attempt(
    item: Required<RunItem>,
    points: PlannedPoint[],
    evals: PlannedEval[],
    exclude: string[],
  ): Promise<AttemptResult> {
    const { launch, record, plan } = item;
    const records = this.records;
    record.attempts ??= [];
    const attempt: LaunchAttempt = {
      attempt: (record.attempts.at(-1)?.attempt ?? 0) + 1,
      nodes: [],
      started: now(),
      ended: now(),
      outcome: 'ok',
      concs: points.map((p) => p.conc),
      ...(exclude.length > 0 ? { excluded: exclude } : {}),
    };
    record.attempts.push(attempt);
    delete record.error;
    delete record.job;
    Object.assign(record, { status: 'running', logs: `server_logs_${logsKeyOf(launch, points)}` });
    records.save();
    const context: AttemptContext = { number: attempt.attempt, exclude, nodes: [] };
    // The points that failed for infrastructure reasons, and the first failure of all.
    const infrastructure = new Set<PlannedPoint>();
    let first: string | undefined;
    const failed = (p: PlannedPoint, outcome: PointOutcome): void => {
      if (outcome.status !== 'failed') return;
      if (outcome.kind === 'infrastructure') infrastructure.add(p);
      first ??= `conc ${p.conc}: ${outcome.error}`;
    };
    let thrown: unknown;
    try {
      await this.o.executor(this.contextOf(plan, record, points, evals, context, failed));
    } catch (e) {
      thrown = e;
      record.error = e instanceof Error ? e.message : String(e);
      if (failureKindOf(e) === 'infrastructure')
        for (const p of points) if (records.point(p).status === 'pending') infrastructure.add(p);
      records.failPending(points, record.error);
    }
    if (!this.signal.aborted) for (const e of evals) this.settleEval(e, record.error);
    attempt.nodes = context.nodes;
    if (record.job) attempt.job = record.job;
    attempt.ended = now();
    const invalid = points.find((p) => records.point(p).status === 'invalid');
    const evalFailed = evals.find((e) => records.eval(e).status !== 'passed');
    const outcome: AttemptOutcome = this.signal.aborted
      ? 'interrupted'
      : infrastructure.size > 0
        ? 'infrastructure'
        : thrown !== undefined ||
            first !== undefined ||
            invalid ||
            evalFailed ||
            points.some((p) => records.point(p).status !== 'ok')
          ? 'measurement'
          : 'ok';
    attempt.outcome = outcome;
    if (outcome === 'infrastructure' || outcome === 'measurement') {
      const why =
        thrown !== undefined
          ? record.error!
          : (first ??
            (invalid
              ? `conc ${invalid.conc} invalid: ${records.point(invalid).error ?? ''}`
              : evalFailed
                ? `eval ${records.eval(evalFailed).status}: ${records.eval(evalFailed).error ?? records.eval(evalFailed).check ?? ''}`
                : 'a point did not finish'));
      attempt.reason = reasonOf(why);
    } else if (outcome === 'interrupted') attempt.reason = 'the run was interrupted';
    records.save();
    return { attempt, unfinished: points.filter((p) => infrastructure.has(p)) };
  }

  /**
   * Before a retry (or a resumed run) reuses them, move what a failed attempt left in its log
   * folders (the launch's, `logs`, and each retried point's own) into `attempt-<n>/` inside each:
   * every attempt's logs are kept.
   */
  private setAside(attempt: LaunchAttempt, logs: string | undefined, retried: readonly PlannedPoint[]): void {
    const folders = new Set([logs, ...retried.map((p) => basename(this.dir.serverLogs(sampleKeyOf(p))))]);
    const into = `attempt-${attempt.attempt}`;
    for (const folder of folders) {
      if (!folder) continue;
      const from = join(this.dir.root, folder);
      if (!existsSync(from)) continue;
      const entries = readdirSync(from).filter((f) => !/^attempt-\d+$/.test(f));
      if (entries.length === 0) continue;
      mkdirSync(join(from, into), { recursive: true });
      for (const f of entries) renameSync(join(from, f), join(from, into, f));
      if (folder === logs) attempt.logs = `${folder}/${into}`;
    }
  }

  private contextOf(
    plan: RunnablePlan,
    record: LaunchRecord,
    points: PlannedPoint[],
    evals: PlannedEval[],
    attempt: AttemptContext,
    failed: (p: PlannedPoint, outcome: PointOutcome) => void,
  ): LaunchContext {
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
      attempt,
      finishPoint: (p, outcome) => {
        failed(p, outcome);
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
