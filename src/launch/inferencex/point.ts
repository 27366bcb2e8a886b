import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { isAgenticRow, isMultiNodeRow } from '../../matrix/index.js';
import { resultFilenameOf } from '../../results/index.js';
import type { SingleNodeRow } from '../../matrix/index.js';
import { simulatedModel } from '../../engines/index.js';
import { RUN_NODE_ENV, RUN_SEED_ENV, RUN_VARIATION_ENV } from '../../sim/index.js';
import { NODE_GPUS_ENV, NODE_HARDWARE_ENV } from '../../sim/gpu-registry.js';
import { CLOCK_ANCHOR_ENV } from '../../util/virtual-clock.js';
import type { RunVariation } from '../../sim/index.js';
import { tail } from '../local.js';
import { sampleKeyOf } from '../../plan/launches.js';
import type { PlannedEval, PlannedPoint } from '../../plan/launches.js';
import type { ClusterProfile } from '../../clusters/index.js';
import type { RunDir } from '../run-dir.js';
import type { PointOutcome } from '../point-outcome.js';
import type { FailureKind } from '../failure.js';
import type { AgenticSettings } from '../agentic.js';
import type { EvalSettings } from '../evals.js';
import { contractOf } from './script-record.js';
import type { ScriptPlan } from '../../plan/inferencex/script-plan.js';
import { WORKSPACE, makeWorkspace, readCalls, scratchDir, settingsOf, standinVariables, workspaceOutputs } from './workspace.js';
import type { RecordedCall } from './workspace.js';

/**
 * One point of an InferenceX row, as both executors run it: the row's benchmark script once (as
 * InferenceX runs one job per concurrency: the script starts the engine, waits for it, runs the
 * client), in a workspace of its own; then its raw result, server log and the other files it
 * wrote move into the run directory, with the processes it started (`processes.json`).
 */

const LOG_TAIL_BYTES = 2000;

export interface ScriptPoint {
  point: PlannedPoint;
  row: SingleNodeRow;
  work: string;
  standin: string;
  contract: Record<string, string>;
  /** Everything the script's environment adds to its executor's. */
  env: Record<string, string>;
  logDir: string;
  /** An agentic point's folder in the run directory (`agentic_<RF>/`), where its script's results go. */
  agenticDir?: string | undefined;
  /** The folder of the eval the script runs after its benchmark (RUN_EVAL), where its lm-eval files go. */
  evalDir?: string | undefined;
  /** An eval-only row's run (EVAL_ONLY): the script evaluates its engine and benchmarks nothing. */
  evalOnly?: boolean | undefined;
}

/**
 * The script runs of a launch: one per point, then one per eval whose row has no point here (an
 * eval-only row, or the evals a launch with synthetic acceptance leaves to a launch of their own),
 * at its concurrency under its row's result file name, which InferenceX runs as a job of its own
 * with EVAL_ONLY.
 */
export function scriptRuns(
  points: readonly PlannedPoint[],
  evals: readonly PlannedEval[],
  runner: string,
): { point: PlannedPoint; evalOnly: boolean }[] {
  const evalOnly = evals
    .filter((e) => !isMultiNodeRow(e.row) && !points.some((p) => p.row === e.row))
    .map((e) => ({ conc: e.concs[0]!, resultFilename: resultFilenameOf(e.row, runner), row: e.row }));
  return [...points.map((point) => ({ point, evalOnly: false })), ...evalOnly.map((point) => ({ point, evalOnly: true }))];
}

/** Where and how a point's script runs. */
export interface PointSetting {
  dir: RunDir;
  cluster: ClusterProfile;
  frontier: string[];
  /** Replaces the launcher's port where the node is shared (a local run). */
  port?: number | undefined;
  /** The plan's run-to-run variation (its deployment's). */
  variation?: RunVariation | undefined;
  /** The corpus an agentic point replays, and the run's duration overrides. */
  agentic?: AgenticSettings | undefined;
  /** The launch's pending evals and their data: a point whose row asks for one runs it in its script. */
  evals?: { list: readonly PlannedEval[]; settings: EvalSettings } | undefined;
}

/**
 * What a simulating cluster's stand-ins need: the sim's GPU (the plan's hardware) and options, the
 * client's additions, and the launch's run-to-run variation when its plan has one (the stand-ins
 * mix the launch's seed with their node's name).
 */
export function simulationVariables(
  cluster: ClusterProfile,
  row: { model: string },
  hardware: string,
  variation?: RunVariation,
  /** The eval tasks' answer keys, when the sim serves an eval. */
  evalAnswers?: string,
): Record<string, string> {
  const o = cluster.engines.sim ?? {};
  const speed = o.speed === undefined ? 1 : Number(o.speed);
  const simArgs = [
    ...(o.speed !== undefined ? ['--speed', String(o.speed)] : []),
    ...(o.seed !== undefined ? ['--seed', String(o.seed)] : []),
    ...(evalAnswers ? ['--answers', evalAnswers, '--accuracy', String(o['eval-accuracy'] ?? 0.95)] : []),
    ...(o['extra-args'] !== undefined ? String(o['extra-args']).split(/\s+/) : []),
  ];
  return {
    FRONTIER_SIM_MODEL: simulatedModel(row.model, o),
    FRONTIER_SIM_GPU: hardware,
    FRONTIER_SIM_ARGS: simArgs.join(' '),
    FRONTIER_BENCH_ARGS: ['--tokenizer', 'gpt2', ...(speed !== 1 ? ['--time-scale', String(speed)] : [])].join(' '),
    FRONTIER_TIME_SCALE: String(speed),
    ...(variation && variation.cv > 0
      ? { [RUN_VARIATION_ENV]: String(variation.cv), [RUN_SEED_ENV]: String(variation.seed) }
      : {}),
  };
}

/** What InferenceX's profile.yml adds for its run: the script passes --profile to the client and relays the trace. */
const PROFILE_ENV = { PROFILE: '1', SGLANG_TORCH_PROFILER_DIR: `${WORKSPACE}/`, VLLM_TORCH_PROFILER_DIR: `${WORKSPACE}/` };

/**
 * Set a point up: its workspace and environment. A point whose row's eval is pending runs it in
 * its script (RUN_EVAL, its lm-eval served by `frontier eval run` over the run's eval data:
 * src/evals/lm-eval-args.ts); any other runs none. An agentic point replays the run's corpus in
 * place of AIPerf's public dataset (src/engines/standin/aiperf.ts), for the run's duration when it
 * sets one, as the workflow's `duration` input does.
 */
export function preparePoint(p: PlannedPoint, plan: ScriptPlan, o: PointSetting, evalOnly = false): ScriptPoint {
  const { dir, cluster, agentic } = o;
  const rf = p.resultFilename;
  const row = p.row as SingleNodeRow;
  // Each measurement of a repeated point has a workspace and logs of its own.
  const work = join(dir.root, 'work', sampleKeyOf(p));
  const standin = join(work, '.frontier');
  makeWorkspace(work, plan.tree);
  const isAgentic = isAgenticRow(row);
  const pendingEval = o.evals?.list.find((e) => e.row === row);
  const evals = pendingEval ? o.evals!.settings : undefined;
  const contract = {
    ...contractOf(plan, row, rf, o.port),
    RUN_EVAL: String(evals !== undefined),
    EVAL_ONLY: String(evals !== undefined && evalOnly),
    ...(evals?.limit !== undefined ? { EVAL_LIMIT: String(evals.limit) } : {}),
    ...(plan.profile ? PROFILE_ENV : {}),
    ...(isAgentic && agentic?.durationS !== undefined ? { DURATION: String(agentic.durationS) } : {}),
    ...(isAgentic && agentic?.fast ? { AIPERF_EXPERIMENTAL_FAST: '1' } : {}),
  };
  const standins = plan.simulated ? 'run' : plan.client === 'frontier' ? 'client' : undefined;
  const env = {
    ...contract,
    ...(plan.simulated ? simulationVariables(cluster, row, plan.hardware, o.variation, evals?.answersFile) : {}),
    // A single-node script's engines are on the launch's first node, whose allocated GPUs (the
    // row's, as Slurm exposes them) the fake GPU tools report from the start, idle until a sim holds
    // them, as a script's nvidia-smi check expects.
    ...(plan.simulated && o.variation && o.variation.cv > 0 ? { [RUN_NODE_ENV]: 'node0' } : {}),
    ...(plan.simulated ? { [NODE_GPUS_ENV]: String(row.tp * row.pp * row['pcp-size']), [NODE_HARDWARE_ENV]: plan.hardware } : {}),
    // One virtual clock for the point's sim, GPU monitor and client, so their stamps line up.
    ...(plan.simulated ? { [CLOCK_ANCHOR_ENV]: String(Date.now()) } : {}),
    // A simulating cluster: stand-ins for every GPU tool; a real one: only the client's, if frontier bench is it.
    ...(standins ? standinVariables({ bin: join(standin, 'bin'), dir: standin, mode: standins, frontier: o.frontier }) : {}),
    ...(standins && isAgentic && agentic ? { FRONTIER_AGENTIC_TRACES: agentic.tracesFile } : {}),
    ...(standins && evals?.dataDir ? { FRONTIER_EVAL_DATA: evals.dataDir } : {}),
    // The scripts' scratch (AIPerf's virtual environment) goes with the workspace.
    ...(plan.simulated ? { TMPDIR: scratchDir(standin) } : {}),
  };
  return {
    point: p,
    row,
    work,
    standin,
    contract,
    env,
    logDir: dir.serverLogs(sampleKeyOf(p)),
    ...(isAgentic ? { agenticDir: dir.agenticDir(rf) } : {}),
    ...(pendingEval ? { evalDir: join(dir.root, pendingEval.dir) } : {}),
    ...(evalOnly ? { evalOnly } : {}),
  };
}

/**
 * An eval-only run's script has ended: what it started beside its logs, its eval's files into the
 * eval's folder (the run scores them), its workspace gone.
 */
export function collectEvalOnly(s: ScriptPoint, plan: ScriptPlan): void {
  keepProcesses(s, plan);
  if (s.evalDir) keepEvalFiles(s.work, s.evalDir, s.point.row);
  rmSync(s.work, { recursive: true, force: true });
}

/** The processes the script started (the stand-ins' calls), as `processes.json` beside its logs; the calls. */
function keepProcesses(s: ScriptPoint, plan: ScriptPlan): RecordedCall[] {
  const given = { ...process.env, ...s.env };
  const calls = readCalls(s.standin);
  const processes = calls
    .filter((c) => c.kind !== 'noop' && c.kind !== 'other')
    .map((c) => ({ kind: c.kind, argv: c.argv, env: settingsOf(c.env, given, s.contract) }));
  mkdirSync(s.logDir, { recursive: true });
  writeFileSync(
    join(s.logDir, 'processes.json'),
    `${JSON.stringify({ script: plan.script, runner: plan.runnerName, processes }, null, 2)}\n`,
  );
  return calls;
}

/** Collect a point whose script has ended (`code`; `output`: the end of what it printed). */
export function collectPoint(s: ScriptPoint, plan: ScriptPlan, code: number | null, output: string): PointOutcome {
  const rf = s.point.resultFilename;
  const calls = keepProcesses(s, plan);
  // The eval's files go to the eval's folder, not also beside the logs.
  if (s.evalDir) keepEvalFiles(s.work, s.evalDir, s.point.row);
  for (const f of workspaceOutputs(s.work, plan.tree))
    if (f !== `${rf}.json` && statSync(join(s.work, f)).isFile()) copyFileSync(join(s.work, f), join(s.logDir, f));
  const outcome = s.agenticDir ? agenticOutcome(s, s.agenticDir, code, output, calls) : outcomeOf(s, code, output, calls);
  // The script's move_profile_trace_for_relay left the profiler's trace in the workspace, now beside its logs.
  const trace = `profile_${rf}.trace.json.gz`;
  if ('raw' in outcome && existsSync(join(s.logDir, trace))) outcome.profile = `${basename(s.logDir)}/${trace}`;
  // The script's own GPU monitor (start_gpu_monitor) wrote its telemetry into the workspace, now beside its logs.
  if ('raw' in outcome && existsSync(join(s.logDir, 'gpu_metrics.csv')))
    outcome.telemetry = { csv: `${basename(s.logDir)}/gpu_metrics.csv` };
  rmSync(s.work, { recursive: true, force: true });
  return outcome;
}

/**
 * A script without a result failed for infrastructure reasons when the stand-ins watched it and its
 * benchmark client never started (the engine did not come up, or the script stopped before it);
 * once the client ran, or without stand-ins to say, it is the measurement's failure.
 */
function failureKindOfScript(s: ScriptPoint, calls: readonly RecordedCall[]): FailureKind {
  const watched = s.env.FRONTIER_STANDIN_MODE !== undefined;
  return watched && !calls.some((c) => c.kind === 'client') ? 'infrastructure' : 'measurement';
}

function outcomeOf(s: ScriptPoint, code: number | null, output: string, calls: readonly RecordedCall[]): PointOutcome {
  const rf = s.point.resultFilename;
  const raw = join(s.work, `${rf}.json`);
  if (!existsSync(raw)) {
    const server = tail(join(s.work, 'server.log'), LOG_TAIL_BYTES).trimEnd();
    return {
      status: 'failed',
      error: `the benchmark script ended (${code === null ? 'killed' : `exit code ${code}`}) without ${rf}.json; the end of its output:\n${output}${server ? `\n--- server.log ---\n${server}` : ''}`,
      kind: failureKindOfScript(s, calls),
    };
  }
  const validity = join(s.standin, `${rf}.validity.json`);
  const v = existsSync(validity)
    ? (JSON.parse(readFileSync(validity, 'utf8')) as { valid: boolean; problems: string[] })
    : undefined;
  return { status: v && !v.valid ? 'invalid' : 'ok', raw: readFileSync(raw, 'utf8'), problems: v?.problems ?? [] };
}

/**
 * An agentic point's script has ended: its results folder (RESULT_DIR: AIPerf's artifacts, the
 * benchmark command and log, its GPU telemetry and power audit) becomes the point's `agentic_<RF>/`,
 * with the aggregate InferenceX's own process_agentic_result wrote (`<RF>.json`) beside it. A
 * script that exits non-zero after writing records (its own validate_agentic_result or power check
 * refused them) measured an invalid point.
 */
function agenticOutcome(
  s: ScriptPoint,
  agenticDir: string,
  code: number | null,
  output: string,
  calls: readonly RecordedCall[],
): PointOutcome {
  const rf = s.point.resultFilename;
  const results = join(s.work, s.contract.RESULT_DIR!.replace(new RegExp(`^${WORKSPACE}/?`), ''));
  if (!existsSync(join(results, 'aiperf_artifacts', 'profile_export.jsonl')))
    return {
      status: 'failed',
      error: `the agentic script ended (${code === null ? 'killed' : `exit code ${code}`}) without AIPerf records in RESULT_DIR/aiperf_artifacts; the end of its output:\n${output}`,
      kind: failureKindOfScript(s, calls),
    };
  // Moved, not copied: the workspace is in the run directory and goes once the point is collected.
  rmSync(agenticDir, { recursive: true, force: true });
  renameSync(results, agenticDir);
  if (existsSync(join(s.work, `${rf}.json`))) renameSync(join(s.work, `${rf}.json`), join(agenticDir, `${rf}.json`));
  const problems =
    code === 0 ? [] : [`the script ended with exit code ${code ?? 'killed'}: ${output.split('\n').slice(-3).join(' ')}`];
  // Its server log is the one in the results folder, as InferenceX's aggregation reads it.
  return { status: problems.length > 0 ? 'invalid' : 'ok', agentic: true, logDir: agenticDir, problems };
}

/**
 * The files the script's eval left in the workspace (append_lm_eval_summary moves lm-eval's
 * `results_*.json` and `samples_*.jsonl` there, with its `meta_env.json`) into the eval's folder,
 * with the row it evaluated, where the run's eval step reads them.
 */
function keepEvalFiles(work: string, evalDir: string, row: PlannedPoint['row']): void {
  const files = readdirSync(work).filter(
    (f) => f === 'meta_env.json' || /^results.*\.json$/.test(f) || /^samples_.*\.jsonl$/.test(f),
  );
  if (files.length === 0) return;
  mkdirSync(evalDir, { recursive: true });
  for (const f of files) renameSync(join(work, f), join(evalDir, f));
  writeFileSync(join(evalDir, 'row.json'), `${JSON.stringify(row, null, 2)}\n`);
}
