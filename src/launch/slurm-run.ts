import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { tail } from './local.js';
import type { Deployment, Launch } from '../engines/index.js';
import { agenticPointOf, replayArgsOf } from './agentic.js';
import type { AgenticSettings } from './agentic.js';
import { placeWorkers } from '../plan/placement.js';
import { evalArgsOf, rowEvalTasks } from './evals.js';
import { logsKeyOf, recipeOf } from '../plan/launches.js';
import type { PlannedEval, PlannedPoint } from '../plan/launches.js';
import { routeRecipe, rowRouteRequest } from '../clusters/index.js';
import type { ClusterProfile, SrtctlSettings } from '../clusters/index.js';
import type { RunDir } from './run-dir.js';
import { benchArgsOf, specDecodeMetricsUrlsOf } from './point-bench.js';
import { isAgenticRow, isMultiNodeRow } from '../matrix/index.js';
import type { GroupExecutor, PreparedGroup, SrtctlPlan } from './run.js';
import type { EvalSettings } from './evals.js';
import { renderJobScript } from './slurm-script.js';
import type { JobPower } from './slurm-script.js';
import { monitorSettleMs, simulatedGpus, simulatedMonitorEnv, writeFakeGpuTools } from './power.js';
import { sim } from '../engines/index.js';
import { collectPoint, preparePoint } from './inferencex/point.js';
import type { ScriptPlan } from './inferencex/script-plan.js';
import { renderScriptJob } from './inferencex/slurm-job.js';
import {
  collectSrtctlResults,
  injectIntoRecipe,
  placeRecipe,
  srtctlApply,
  srtctlJobId,
  srtctlRoot,
} from './inferencex/srtctl.js';
import type { RecipePlan } from './inferencex/recipe-plan.js';
import { keepJobScriptLogs, printedJobId, jobScriptResults, setUpJobScript, validityOf } from './inferencex/job-script.js';
import type { JobScriptPlan } from './inferencex/job-script.js';
import { realRecipeProblem, recipeLaunch } from './inferencex/recipe-run.js';
import type { MultiNodeRow } from '../matrix/index.js';

/**
 * The Slurm executor: each launch is one batch job (see slurm-script.ts), submitted with
 * `sbatch`, followed with `squeue` and `scontrol show job` (sacct needs slurmdbd, which many
 * clusters lack), cancelled with `scancel` on interrupt. When the job has ended, each point's
 * raw result (written by `frontier bench` in the job) becomes its aggregate; a point without
 * one fails with the job's state and the logs' tails.
 */

const run = promisify(execFile);

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

/** A launch's job: its processes placed on the allocation's nodes, and the sbatch script. */
export function jobFor(
  group: PreparedGroup,
  points: readonly PlannedPoint[],
  dir: RunDir,
  cluster: ClusterProfile,
  frontier: string[],
  basePort = 8000,
  evals: { list: readonly PlannedEval[]; settings: EvalSettings } | undefined = undefined,
  agentic: AgenticSettings | undefined = undefined,
  power: { clockAnchorMs: number; intervalMs: number } | undefined = undefined,
): { launch: Launch; logDir: string; script: string; work?: string } {
  const g = group.planned;
  const d = group.deployment;
  const hosts = Array.from({ length: group.nodes }, (_, i) => `\${NODES[${i}]}`);
  let port = basePort;
  if (group.recipe) return recipeJobFor(group, group.recipe, points, dir, cluster, frontier, basePort);
  if (!group.adapter) throw new Error(`${g.label} runs InferenceX's script, not a job of engine processes`);
  const adapter = group.adapter;
  const launch = adapter.launch(d, placeWorkers(d.layout, cluster.gpusPerNode, hosts), { next: () => port++ });
  const logDir = dir.serverLogs(logsKeyOf(g, points));
  const notes: string[] = [];
  const row = g.rows[0]!;
  const recipe = recipeOf(row);
  if (recipe && isMultiNodeRow(row)) {
    const route = routeRecipe(cluster, rowRouteRequest(row, recipe));
    if (!route) throw new Error(`cluster ${cluster.name} has no routing rule for recipe ${recipe}: add one to its routing:`);
    notes.push(
      `recipe ${recipe}: toolchain ${route.rule.toolchain.repo} @ ${route.rule.toolchain.commit} (routing rule ${route.index + 1})`,
    );
    for (const f of route.rule.flags) notes.push(`flag ${f.flag}: ${f.reason}`);
  }
  const baseUrl = `http://${launch.endpoint.host}:${launch.endpoint.port}`;
  const script = renderJobScript(cluster, {
    jobName: `frontier-${g.id}`,
    title: g.label,
    nodes: group.nodes,
    logDir,
    // Engines Frontier builds or runs on the host need no container.
    image: adapter.frameworks.some((f) => f === 'sim' || f === 'llama.cpp') ? undefined : d.image,
    launch,
    points: points.map((p) => ({
      conc: p.conc,
      benchArgs: isAgenticRow(p.row)
        ? agenticArgs(p, agentic, launch, d, dir)
        : benchArgsOf(
            {
              baseUrl,
              model: d.servedModelName,
              isl: d.isl,
              osl: d.osl,
              conc: p.conc,
              client: launch.client,
              specDecodeMetricsUrls: specDecodeMetricsUrlsOf(launch),
            },
            dir.rawFile(p.resultFilename),
          ),
    })),
    evals: (evals?.list ?? []).map((e) => ({
      concs: e.concs,
      tasks: rowEvalTasks(e.row),
      args: evalArgsOf({
        baseUrl,
        model: d.servedModelName,
        maxModelLen: d.maxModelLen,
        concs: e.concs,
        folder: join(dir.root, e.dir),
        rowFile: join(dir.root, e.dir, 'row.json'),
        runner: e.row.runner,
        tasks: rowEvalTasks(e.row).map((n) => evals!.settings.tasks.get(n)!.spec.file),
        dataDir: evals!.settings.dataDir,
        limit: evals!.settings.limit,
      }),
    })),
    frontier,
    notes,
    power:
      power && !isMultiNodeRow(row) && group.nodes === 1
        ? jobPower(
            power,
            launch,
            d,
            adapter === sim,
            logDir,
            isAgenticRow(row) ? dir.agenticDir(points[0]!.resultFilename) : undefined,
          )
        : undefined,
  });
  return { launch, logDir, script };
}

/**
 * The job's GPU monitor (a single-node launch: its one node): `frontier telemetry sample` into the
 * launch's log folder, the simulated engine's GPU tools first on its PATH when the engine is the sim.
 */
function jobPower(
  power: { clockAnchorMs: number; intervalMs: number },
  launch: Launch,
  d: Deployment,
  simulated: boolean,
  logDir: string,
  /** An agentic point's folder: its telemetry goes there, where InferenceX's power adapter reads it. */
  agenticDir: string | undefined,
): JobPower {
  const clock = { scale: launch.client.timeScale, anchorMs: power.clockAnchorMs };
  const gpus = simulated ? simulatedGpus(launch, d.gpu) : undefined;
  const monitor = gpus ? simulatedMonitorEnv(logDir, gpus, clock.scale) : undefined;
  const samplerArgs = ['telemetry', 'sample', '--source', gpus ? `${gpus.vendor}-smi` : 'auto', '--out', agenticDir ?? logDir];
  samplerArgs.push('--interval-ms', String(power.intervalMs), '--time-scale', String(clock.scale));
  return {
    clockAnchorMs: power.clockAnchorMs,
    samplerArgs,
    env: monitor?.env ?? {},
    pathPrefix: monitor?.path,
    settleSeconds: Number((monitorSettleMs(clock, power.intervalMs) / 1000).toFixed(3)),
    offsetFile: agenticDir ? join(agenticDir, 'agentic_power_timezone_offset.txt') : undefined,
  };
}

/** An agentic point's step: `frontier bench --trace` into `agentic_<RF>/aiperf_artifacts` (the run directory is shared). */
function agenticArgs(
  p: PlannedPoint,
  agentic: AgenticSettings | undefined,
  launch: Launch,
  d: Deployment,
  dir: RunDir,
): string[] {
  if (!agentic) throw new Error('an agentic-coding point needs a trace corpus');
  const a = agenticPointOf(p, agentic, launch, {
    model: d.servedModelName,
    maxModelLen: d.maxModelLen,
    artifacts: dir.agenticArtifacts(p.resultFilename),
  });
  return replayArgsOf(a, agentic.tracesFile);
}

/**
 * A recipe launch's job: one srun step per process srtctl starts, on its node (a process spanning
 * nodes, TensorRT-LLM's MPI launch, is one step on its first node: the sim serves it from there),
 * then the readiness barrier on the recipe's public endpoint and a benchmark per point. On a
 * simulating cluster the nodes may share a host, so srtctl's per-node ports move to basePort and up.
 */
function recipeJobFor(
  group: PreparedGroup,
  plan: RecipePlan,
  points: readonly PlannedPoint[],
  dir: RunDir,
  cluster: ClusterProfile,
  frontier: string[],
  basePort: number,
): { launch: Launch; logDir: string; script: string; work?: string } {
  const problem = realRecipeProblem(plan, cluster);
  if (problem) throw new Error(problem);
  const g = group.planned;
  const row = g.rows[0] as MultiNodeRow;
  let port = basePort;
  const r = recipeLaunch(plan, row, [...points], group, dir, cluster, {
    host: (n) => `\${NODES[${n}]}`,
    ...(cluster.simulate ? { nextPort: () => port++ } : {}),
    frontier,
  });
  const launch: Launch = {
    processes: r.processes,
    endpoint: r.endpoint,
    ready: [{ path: '/health' }, { path: '/v1/models', contains: r.servedName }],
    metricsPath: '/metrics',
    client: r.client,
  };
  const baseUrl = `http://${r.endpoint.host}:${r.endpoint.port}`;
  const script = renderJobScript(cluster, {
    jobName: `frontier-${g.id}`,
    title: g.label,
    nodes: plan.rendered.nodes,
    logDir: r.logDir,
    // Stand-ins on the host on a simulating cluster; the recipe's container otherwise.
    image: cluster.simulate ? undefined : row.image,
    launch,
    points: points.map((p) => ({
      conc: p.conc,
      benchArgs: benchArgsOf(
        { baseUrl, model: r.servedName, isl: row.isl, osl: row.osl, conc: p.conc, client: r.client },
        dir.rawFile(p.resultFilename),
      ),
    })),
    evals: [],
    frontier,
    notes: [`recipe ${plan.path}${plan.selector ? `:${plan.selector}` : ''} (${plan.rendered.name}), as srtctl renders it`],
  });
  return { launch, logDir: r.logDir, script, work: r.work };
}

export function slurmExecutor(o: SlurmExecutorOptions): GroupExecutor {
  const env = o.env ?? process.env;
  const pollMs = o.pollMs ?? 2000;
  const slurm = async (command: string, args: string[]): Promise<string> => {
    try {
      return (await run(command, args, { env, encoding: 'utf8' })).stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`${command} ${args.join(' ')}: ${(err.stderr ?? '').trim() || err.message}`);
    }
  };
  const jobState = async (id: string): Promise<string | undefined> => {
    const queued = (await slurm('squeue', ['-h', '-j', id, '-o', '%T']).catch(() => '')).trim();
    if (queued) return queued;
    const shown = await slurm('scontrol', ['show', 'job', id, '-o']).catch(() => '');
    return /JobState=(\S+)/.exec(shown)?.[1];
  };

  /** Cancel job `id` and wait (up to 30 s) until the queue no longer lists it. */
  const cancel = async (id: string): Promise<void> => {
    await slurm('scancel', [id]).catch(() => undefined);
    for (let i = 0; i < 60 && (await slurm('squeue', ['-h', '-j', id, '-o', '%T']).catch(() => '')).trim(); i++) await sleep(500);
  };

  /** Submit a job (a job script for sbatch, or a submitter that says the job's id) and follow it until it ends: its id and final state. */
  const follow = async (
    ctx: Parameters<GroupExecutor>[0],
    submit: string | (() => Promise<string>),
  ): Promise<{ id: string; state: string | undefined } | undefined> => {
    const { reporter, signal, record } = ctx;
    const id =
      typeof submit === 'string' ? (await slurm('sbatch', ['--parsable', submit])).trim().split(';')[0]! : await submit();
    record.job = id;
    ctx.save();
    reporter.note?.(`  submitted job ${id}`);
    let state: string | undefined;
    let last: string | undefined;
    for (;;) {
      if (signal.aborted) {
        await cancel(id);
        return undefined;
      }
      state = await jobState(id);
      if (state !== last) reporter.note?.(`  job ${id}: ${state ?? 'gone'}`);
      last = state;
      if (!active(state)) return { id, state };
      await sleep(pollMs);
    }
  };

  /** An InferenceX row: one job running its benchmark script once per point. */
  const scriptJob = async (ctx: Parameters<GroupExecutor>[0], plan: ScriptPlan): Promise<void> => {
    const { group, points, dir, cluster } = ctx;
    const frontier = o.frontierCommand;
    // On a simulating cluster the nodes are shared (one host): a free port each; a real node is the job's own.
    const scripts = [];
    for (const p of points)
      scripts.push(
        preparePoint(p, plan, dir, cluster, frontier, cluster.simulate ? (o.basePort ?? 8000) + scripts.length : undefined),
      );
    const logDir = dir.serverLogs(logsKeyOf(group.planned, points));
    mkdirSync(logDir, { recursive: true });
    const scriptFile = join(logDir, 'job.sbatch');
    const text = renderScriptJob(cluster, {
      jobName: `frontier-${group.planned.id}`,
      title: group.planned.label,
      logDir,
      gpus: group.gpus,
      image: group.deployment.image,
      script: plan.script,
      points: scripts,
    });
    writeFileSync(scriptFile, text, { mode: 0o755 });
    const job = await follow(ctx, scriptFile);
    if (!job) return;
    const exits = readExits(logDir);
    for (const s of scripts) {
      const code = exits.get(s.point.resultFilename);
      const output =
        tail(join(s.logDir, 'script.log'), LOG_TAIL).trimEnd() || tail(join(logDir, `slurm-${job.id}.out`), LOG_TAIL).trimEnd();
      ctx.finishPoint(s.point, collectPoint(s, plan, code === undefined ? null : Number(code), output));
    }
  };

  /** A recipe row on a cluster that runs recipes with srtctl: `srtctl apply`, then its job and its outputs. */
  const srtctlJob = async (ctx: Parameters<GroupExecutor>[0], plan: SrtctlPlan, srtctl: SrtctlSettings): Promise<void> => {
    const { group, points, dir } = ctx;
    const row = group.planned.rows[0] as MultiNodeRow;
    const logDir = dir.serverLogs(logsKeyOf(group.planned, points));
    mkdirSync(logDir, { recursive: true });
    const root = srtctlRoot(srtctl, ctx.cluster, row, plan.configFile);
    const argv = srtctlApply(plan.configFile, row, srtctl);
    if (plan.recipe) placeRecipe(plan.recipe, root);
    injectIntoRecipe(root, plan.configFile, row, group.deployment.syntheticAcceptance);
    const job = await follow(ctx, async () => {
      let output: string;
      try {
        output = (
          await run(argv[0]!, argv.slice(1), {
            cwd: root,
            env: { ...env, RUNNER_NAME: `frontier-${group.planned.id}` },
            encoding: 'utf8',
          })
        ).stdout;
      } catch (e) {
        const err = e as { stdout?: string; stderr?: string; message: string };
        throw new Error(`${argv.join(' ')} (in ${root}): ${`${err.stdout ?? ''}${err.stderr ?? ''}`.trim() || err.message}`);
      }
      writeFileSync(join(logDir, 'srtctl.out'), output);
      const id = srtctlJobId(output);
      if (!id) throw new Error(`${argv.join(' ')} printed no job id; its output:\n${output.slice(-LOG_TAIL)}`);
      return id;
    });
    if (!job) return;
    const outcomes = collectSrtctlResults(join(root, 'outputs', job.id, 'logs'), points, logDir);
    for (const p of points) {
      const file = outcomes.get(p.resultFilename);
      if (file) ctx.finishPoint(p, { status: 'ok', raw: readFileSync(file, 'utf8'), problems: [] });
      else
        ctx.finishPoint(p, {
          status: 'failed',
          error: `srtctl's job ${job.id} ended ${job.state ?? ''} without a result for conc ${p.conc} in ${join(root, 'outputs', job.id, 'logs')}`,
        });
    }
  };

  /**
   * A multi-node row of an InferenceX checkout that its launcher runs with a job script: the script
   * submits the job and prints its id, which is then followed, or runs its allocation's steps
   * itself until done (its allocation, which outlives it, is then cancelled); then the results.
   */
  const jobScriptJob = async (ctx: Parameters<GroupExecutor>[0], plan: JobScriptPlan): Promise<void> => {
    const { group, points, dir, cluster, signal } = ctx;
    const row = group.planned.rows[0] as MultiNodeRow;
    const logDir = dir.serverLogs(logsKeyOf(group.planned, points));
    mkdirSync(logDir, { recursive: true });
    const setUp = setUpJobScript(plan, row, cluster, join(dir.root, 'work', group.planned.id), o.frontierCommand);
    const runScript = async (): Promise<string> => {
      try {
        const out = await run('bash', [plan.script], {
          cwd: setUp.work,
          env: { ...env, ...setUp.env },
          encoding: 'utf8',
          maxBuffer: 64 << 20,
          ...(plan.rule.job === 'foreground' ? { signal } : {}),
        });
        writeFileSync(join(logDir, 'job-script.log'), `${out.stderr}${out.stdout}`);
        return out.stdout;
      } catch (e) {
        const err = e as { stdout?: string; stderr?: string; message: string };
        writeFileSync(join(logDir, 'job-script.log'), `${err.stderr ?? ''}${err.stdout ?? ''}`);
        throw new Error(`${plan.script}: ${`${err.stdout ?? ''}${err.stderr ?? ''}`.trim().slice(-LOG_TAIL) || err.message}`);
      }
    };
    let job: { id: string; state: string | undefined } | undefined;
    try {
      if (plan.rule.job === 'printed')
        job = await follow(ctx, async () => {
          const stdout = await runScript();
          const id = printedJobId(stdout);
          if (!id) throw new Error(`${plan.script} printed no job id; the end of its output:\n${stdout.slice(-LOG_TAIL)}`);
          return id;
        });
      else {
        // The script's allocation is named after the runner (RUNNER_NAME) and outlives the script:
        // the one that appears while it runs is this launch's, kept in the manifest (so --resume
        // can cancel it after a kill) and cancelled when the script is done.
        const allocations = async (): Promise<string[]> =>
          (await slurm('squeue', ['-h', '--name', setUp.contract.RUNNER_NAME!, '-o', '%A']).catch(() => ''))
            .split('\n')
            .filter(Boolean);
        const before = new Set(await allocations());
        delete ctx.record.job; // a resumed launch's earlier one is not this one
        const watch = async (): Promise<void> => {
          const id = (await allocations()).find((x) => !before.has(x));
          if (id && !ctx.record.job) {
            ctx.record.job = id;
            ctx.save();
          }
        };
        const watching = setInterval(() => void watch(), pollMs);
        let failure: unknown;
        await runScript()
          .catch((e: unknown) => (failure = e))
          .finally(() => clearInterval(watching));
        await watch();
        if (ctx.record.job) await cancel(ctx.record.job);
        if (failure && !signal.aborted) throw failure;
        job = signal.aborted ? undefined : { id: ctx.record.job ?? '?', state: 'ended' };
      }
    } finally {
      if (!job) keepJobScriptLogs(setUp, plan, logDir);
    }
    if (!job) return;
    const results = jobScriptResults(setUp, plan, row, points);
    const ends = ['out', 'err']
      .map((x) => join(setUp.logs, `slurm_job-${job.id}.${x}`))
      .filter((f) => existsSync(f))
      .map((f) => `--- ${basename(f)} ---\n${tail(f, LOG_TAIL / 2).trimEnd()}`)
      .join('\n');
    for (const p of points) {
      const file = results.get(p.resultFilename);
      if (!file) {
        ctx.finishPoint(p, {
          status: 'failed',
          error: `job ${job.id} of ${plan.script} ended ${job.state ?? ''} without a result for conc ${p.conc}${ends ? `; the end of its logs:\n${ends}` : ''}`,
        });
        continue;
      }
      const v = validityOf(setUp, file);
      ctx.finishPoint(p, {
        status: v && !v.valid ? 'invalid' : 'ok',
        raw: readFileSync(file, 'utf8'),
        problems: v?.problems ?? [],
      });
    }
    keepJobScriptLogs(setUp, plan, logDir);
  };

  const executor: GroupExecutor = async (ctx) => {
    const { group, points, dir, cluster } = ctx;
    if (group.script) return scriptJob(ctx, group.script);
    if (group.jobScript) return jobScriptJob(ctx, group.jobScript);
    if (group.srtctl) return srtctlJob(ctx, group.srtctl, cluster.srtctl!);
    const evals = ctx.evalSettings ? { list: ctx.evals, settings: ctx.evalSettings } : undefined;
    const { launch, logDir, script, work } = jobFor(
      group,
      points,
      dir,
      cluster,
      o.frontierCommand,
      o.basePort,
      evals,
      ctx.agentic,
      { clockAnchorMs: ctx.clockAnchorMs, intervalMs: ctx.powerIntervalMs },
    );
    // The eval step reads its row from the eval folder (meta_env.json is made from it).
    for (const e of evals?.list ?? []) {
      mkdirSync(join(dir.root, e.dir), { recursive: true });
      writeFileSync(join(dir.root, e.dir, 'row.json'), `${JSON.stringify(e.row, null, 2)}\n`);
    }
    mkdirSync(logDir, { recursive: true });
    if (group.adapter === sim) writeFakeGpuTools(join(logDir, 'gpu-tools'), o.frontierCommand);
    const telemetry = { csv: relative(dir.root, join(logDir, 'gpu_metrics.csv')) };
    const scriptFile = join(logDir, 'job.sbatch');
    writeFileSync(scriptFile, script, { mode: 0o755 });
    const job = await follow(ctx, scriptFile);
    if (work) rmSync(work, { recursive: true, force: true });
    if (!job) return;
    const { id, state } = job;

    const exits = readExits(logDir);
    const jobOut = (): string => tail(join(logDir, `slurm-${id}.out`), LOG_TAIL).trimEnd();
    const died = (when: string): string | undefined => {
      for (const p of launch.processes) {
        const code = exits.get(p.name);
        if (code !== undefined) {
          const log = tail(join(logDir, `${p.name}.log`), LOG_TAIL).trimEnd();
          return `${p.name} exited (exit code ${code}) ${when}; the end of its log:\n${log}`;
        }
      }
      return undefined;
    };
    for (const p of points) {
      if (isAgenticRow(p.row)) {
        const records = join(dir.agenticArtifacts(p.resultFilename), 'profile_export.jsonl');
        const dead = died('during the replay');
        if (existsSync(records) && !dead) ctx.finishPoint(p, { status: 'ok', agentic: true, logDir, problems: [] });
        else
          ctx.finishPoint(p, {
            status: 'failed',
            error: `job ${id} ended ${state ?? ''} without the replay's records for conc ${p.conc}${dead ? `: ${dead}` : `; the end of its output:\n${jobOut()}`}`,
          });
        continue;
      }
      const raw = dir.rawFile(p.resultFilename);
      if (!existsSync(raw)) {
        const step = died('before the benchmark');
        ctx.finishPoint(p, {
          status: 'failed',
          error: `job ${id} ended ${state ?? ''} without a result for conc ${p.conc}${step ? `: ${step}` : `; the end of its output:\n${jobOut()}`}`,
        });
        continue;
      }
      const text = readFileSync(raw, 'utf8');
      const result = JSON.parse(text) as { frontier?: { valid?: boolean; problems?: string[] } };
      const valid = result.frontier?.valid === true;
      const dead = valid ? undefined : died('during the benchmark');
      if (dead) ctx.finishPoint(p, { status: 'failed', error: dead });
      else
        ctx.finishPoint(p, { status: valid ? 'ok' : 'invalid', raw: text, problems: result.frontier?.problems ?? [], telemetry });
    }
  };
  // A killed `frontier run` cannot cancel its job, which would hold its nodes until its time
  // limit: --resume cancels the jobs of launches its manifest left running.
  executor.stopLeftovers = async (previous) => {
    const stopped: string[] = [];
    for (const g of previous.groups) {
      if (g.status !== 'running' || !g.job || !active(await jobState(g.job))) continue;
      await cancel(g.job);
      stopped.push(`Slurm job ${g.job} (${g.label})`);
    }
    return stopped;
  };
  return executor;
}

/** `exits.txt`: each step's name and exit status, one per line. */
function readExits(logDir: string): Map<string, string> {
  const file = join(logDir, 'exits.txt');
  return new Map(
    (existsSync(file) ? readFileSync(file, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

const active = (state: string | undefined): boolean =>
  state !== undefined && ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED'].includes(state);
