import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isAgenticRow } from '../matrix/index.js';
import type { PlannedPoint } from '../plan/launches.js';
import { unhandledKind } from '../plan/launch-plan.js';
import type { AdapterPlan, RecipeLaunchPlan } from '../plan/launch-plan.js';
import { runJobScript, runScriptJob, runSrtctlJob } from './inferencex/slurm-run.js';
import { tail } from './local.js';
import { writeFakeGpuTools } from './power.js';
import type { LaunchContext, LaunchExecutor } from './run.js';
import { SlurmClient, isActive, jobWatchOf } from './slurm-client.js';
import type { SlurmRunSettings } from './slurm-client.js';
import { isInfrastructureState } from './failure.js';
import type { FailureKind } from './failure.js';
import { jobWasReady, readExits } from './slurm-exits.js';
import { jobFor } from './slurm-job.js';
import type { SlurmJob } from './slurm-job.js';

/**
 * The Slurm executor: each launch is one batch job, submitted and followed by the Slurm client
 * (slurm-client.ts), cancelled on interrupt. What the job is depends on the plan's kind: the
 * processes Frontier starts (an adapter's or a recipe's, slurm-job.ts), or an InferenceX
 * checkout's own material (inferencex/slurm-run.ts). When the job has ended each point's raw
 * result becomes its aggregate; a point without one fails with the job's state and the logs' tails.
 */

export interface SlurmExecutorOptions {
  /** Environment of the Slurm commands (SLURM_CONF…); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** How to run frontier on the nodes (a shared file system holds it and the run directory). */
  frontierCommand: string[];
  /** First port of a job's processes (they are numbered up from it). */
  basePort?: number;
  pollMs?: number;
}

const LOG_TAIL = 2000;

export function slurmExecutor(options: SlurmExecutorOptions): LaunchExecutor {
  const pollMs = options.pollMs ?? 2000;
  const slurm = new SlurmClient(options.env ?? process.env, pollMs);
  const o: SlurmRunSettings = { slurm, frontierCommand: options.frontierCommand, basePort: options.basePort ?? 8000, pollMs };
  const executor: LaunchExecutor = async (ctx) => {
    const { plan } = ctx;
    switch (plan.kind) {
      case 'adapter':
        return runLaunchJob(ctx, plan, o);
      case 'recipe':
        if (plan.unstartable) throw new Error(plan.unstartable);
        return runLaunchJob(ctx, plan, o);
      case 'script':
        return runScriptJob(ctx, plan, o);
      case 'srtctl':
        return runSrtctlJob(ctx, plan, o);
      case 'job-script':
        return runJobScript(ctx, plan, o);
      default:
        return unhandledKind(plan);
    }
  };
  // A killed `frontier run` cannot cancel its job, which would hold its nodes until its time
  // limit: --resume cancels the jobs of launches its manifest left running.
  executor.stopLeftovers = async (previous) => {
    const stopped: string[] = [];
    for (const launch of previous.launches) {
      if (launch.status !== 'running' || !launch.job || !isActive(await slurm.state(launch.job))) continue;
      await slurm.cancel(launch.job);
      stopped.push(`Slurm job ${launch.job} (${launch.label})`);
    }
    return stopped;
  };
  return executor;
}

/** A launch whose processes Frontier starts: its sbatch job, followed, then each point from what the job left. */
async function runLaunchJob(ctx: LaunchContext, plan: AdapterPlan | RecipeLaunchPlan, o: SlurmRunSettings): Promise<void> {
  const { points, dir } = ctx;
  const evals = ctx.evalSettings ? { list: ctx.evals, settings: ctx.evalSettings } : undefined;
  const job = jobFor(plan, points, dir, ctx.cluster, {
    frontier: o.frontierCommand,
    basePort: o.basePort,
    evals,
    agentic: ctx.agentic,
    power: { clockAnchorMs: ctx.clockAnchorMs, intervalMs: ctx.powerIntervalMs },
  });
  // The eval step reads its row from the eval folder (meta_env.json is made from it).
  for (const e of evals?.list ?? []) {
    mkdirSync(join(dir.root, e.dir), { recursive: true });
    writeFileSync(join(dir.root, e.dir, 'row.json'), `${JSON.stringify(e.row, null, 2)}\n`);
  }
  mkdirSync(job.logDir, { recursive: true });
  if (plan.kind === 'adapter' && plan.simulated) writeFakeGpuTools(join(job.logDir, 'gpu-tools'), o.frontierCommand);
  const scriptFile = join(job.logDir, 'job.sbatch');
  writeFileSync(scriptFile, job.script, { mode: 0o755 });
  const followed = await o.slurm.follow(jobWatchOf(ctx), scriptFile);
  if (job.work) rmSync(job.work, { recursive: true, force: true });
  if (!followed) return;
  const outcomes = new JobOutcomes(job, followed.id, followed.state);
  const telemetry = { csv: relative(dir.root, join(job.logDir, 'gpu_metrics.csv')) };
  for (const p of points)
    if (isAgenticRow(p.row)) outcomes.agentic(ctx, p);
    else outcomes.fixedLength(ctx, p, telemetry);
}

/**
 * What an ended job says of each point: its result, or why there is none (a step that died, the
 * job's output) and whether that is the infrastructure's failure: the engine never passed the
 * readiness barrier, or the job ended in a state that blames the node (NODE_FAIL…).
 */
class JobOutcomes {
  private readonly exits: Map<string, string>;
  /** The kind of failure of a point without a result. */
  private readonly missing: FailureKind;

  constructor(
    private readonly job: SlurmJob,
    private readonly id: string,
    private readonly state: string | undefined,
  ) {
    this.exits = readExits(job.logDir);
    this.missing = isInfrastructureState(state) || !jobWasReady(job.logDir) ? 'infrastructure' : 'measurement';
  }

  private jobOut = (): string => tail(join(this.job.logDir, `slurm-${this.id}.out`), LOG_TAIL).trimEnd();

  /** The first of the launch's processes that exited, with the end of its log. */
  private died(when: string): string | undefined {
    for (const p of this.job.launch.processes) {
      const code = this.exits.get(p.name);
      if (code === undefined) continue;
      const log = tail(join(this.job.logDir, `${p.name}.log`), LOG_TAIL).trimEnd();
      return `${p.name} exited (exit code ${code}) ${when}; the end of its log:\n${log}`;
    }
    return undefined;
  }

  private ended = (p: PlannedPoint, what: string, dead: string | undefined): string =>
    `job ${this.id} ended ${this.state ?? ''} without ${what} for conc ${p.conc}${dead ? `: ${dead}` : `; the end of its output:\n${this.jobOut()}`}`;

  agentic(ctx: LaunchContext, p: PlannedPoint): void {
    const records = join(ctx.dir.agenticArtifacts(p.resultFilename), 'profile_export.jsonl');
    const dead = this.died('during the replay');
    if (existsSync(records) && !dead) ctx.finishPoint(p, { status: 'ok', agentic: true, logDir: this.job.logDir, problems: [] });
    else ctx.finishPoint(p, { status: 'failed', error: this.ended(p, "the replay's records", dead), kind: this.missing });
  }

  fixedLength(ctx: LaunchContext, p: PlannedPoint, telemetry: { csv: string }): void {
    const raw = ctx.dir.rawFile(p.resultFilename);
    if (!existsSync(raw)) {
      ctx.finishPoint(p, {
        status: 'failed',
        error: this.ended(p, 'a result', this.died('before the benchmark')),
        kind: this.missing,
      });
      return;
    }
    const text = readFileSync(raw, 'utf8');
    const result = JSON.parse(text) as { frontier?: { valid?: boolean; problems?: string[] } };
    const valid = result.frontier?.valid === true;
    const dead = valid ? undefined : this.died('during the benchmark');
    if (dead)
      ctx.finishPoint(p, {
        status: 'failed',
        error: dead,
        kind: isInfrastructureState(this.state) ? 'infrastructure' : 'measurement',
      });
    else
      ctx.finishPoint(p, { status: valid ? 'ok' : 'invalid', raw: text, problems: result.frontier?.problems ?? [], telemetry });
  }
}
