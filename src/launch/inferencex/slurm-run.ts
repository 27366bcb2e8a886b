import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { MultiNodeRow } from '../../matrix/index.js';
import { NODE_EXCLUDES_OF, nodeExcludesFor, parseNodeExcludes } from '../../clusters/index.js';
import { logsKeyOf } from '../../plan/launches.js';
import type { JobScriptLaunchPlan, ScriptLaunchPlan, SrtctlLaunchPlan } from '../../plan/launch-plan.js';
import { tail } from '../local.js';
import type { LaunchContext } from '../run.js';
import { jobWatchOf } from '../slurm-client.js';
import type { FollowedJob, SlurmRunSettings } from '../slurm-client.js';
import { readExits } from '../slurm-exits.js';
import { isInfrastructureState } from '../failure.js';
import { importImages, jobScriptResults, keepJobScriptLogs, printedJobId, setUpJobScript, validityOf } from './job-script.js';
import { collectEvalOnly, collectPoint, preparePoint, scriptRuns } from './point.js';
import { renderScriptJob } from './slurm-job.js';
import { collectSrtctlResults, injectIntoRecipe, placeRecipe, srtctlJobId } from './srtctl.js';

/**
 * The Slurm jobs of rows that run an InferenceX checkout's own material: its benchmark script
 * (one job, a step per point), srtctl's recipe job, or a job script that submits or runs its own.
 */

const exec = promisify(execFile);

const LOG_TAIL = 2000;

/** An InferenceX row: one job running its benchmark script once per point. */
export async function runScriptJob(ctx: LaunchContext, plan: ScriptLaunchPlan, o: SlurmRunSettings): Promise<void> {
  const { points, dir, cluster } = ctx;
  const script = plan.script;
  // On a simulating cluster the nodes are shared (one host): a free port each; a real node is the job's own.
  const scripts = scriptRuns(points, ctx.evals, cluster.name).map(({ point, evalOnly }, i) =>
    preparePoint(
      point,
      script,
      {
        dir,
        cluster,
        frontier: o.frontierCommand,
        port: plan.simulated ? o.basePort + i : undefined,
        variation: plan.deployment.runVariation,
        agentic: ctx.agentic,
        evals: ctx.evalSettings ? { list: ctx.evals, settings: ctx.evalSettings } : undefined,
      },
      evalOnly,
    ),
  );
  const logDir = dir.serverLogs(logsKeyOf(plan.launch, points));
  mkdirSync(logDir, { recursive: true });
  const scriptFile = join(logDir, 'job.sbatch');
  const text = renderScriptJob(cluster, {
    jobName: `frontier-${plan.launch.id}`,
    title: plan.launch.label,
    logDir,
    gpus: plan.gpus,
    image: plan.deployment.image,
    script: script.script,
    points: scripts,
  });
  writeFileSync(scriptFile, text, { mode: 0o755 });
  const job = await o.slurm.follow(jobWatchOf(ctx), scriptFile);
  if (!job) return;
  const exits = readExits(logDir);
  for (const s of scripts) {
    if (s.evalOnly) {
      collectEvalOnly(s, script);
      continue;
    }
    const code = exits.get(s.point.resultFilename);
    const output =
      tail(join(s.logDir, 'script.log'), LOG_TAIL).trimEnd() || tail(join(logDir, `slurm-${job.id}.out`), LOG_TAIL).trimEnd();
    const outcome = collectPoint(s, script, code === undefined ? null : Number(code), output);
    // A job that ended NODE_FAIL (…) blames the node, whatever the script got to.
    if (outcome.status === 'failed' && isInfrastructureState(job.state)) outcome.kind = 'infrastructure';
    ctx.finishPoint(s.point, outcome);
  }
}

/** A recipe row on a cluster that runs recipes with srtctl: `srtctl apply`, then its job and its outputs. */
export async function runSrtctlJob(ctx: LaunchContext, plan: SrtctlLaunchPlan, o: SlurmRunSettings): Promise<void> {
  const { points, dir } = ctx;
  const row = plan.launch.rows[0] as MultiNodeRow;
  const logDir = dir.serverLogs(logsKeyOf(plan.launch, points));
  mkdirSync(logDir, { recursive: true });
  const { root, submit: argv } = plan;
  if (plan.recipe) placeRecipe(plan.recipe, root);
  injectIntoRecipe(root, plan.configFile, row, plan.deployment.syntheticAcceptance);
  const job = await o.slurm.follow(jobWatchOf(ctx), async () => {
    let output: string;
    try {
      output = (
        await exec(argv[0]!, argv.slice(1), {
          cwd: root,
          env: { ...o.slurm.env, RUNNER_NAME: `frontier-${plan.launch.id}` },
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
  const outputs = join(root, 'outputs', job.id, 'logs');
  const outcomes = collectSrtctlResults(outputs, points, logDir);
  for (const p of points) {
    const file = outcomes.get(p.resultFilename);
    if (file) ctx.finishPoint(p, { status: 'ok', raw: readFileSync(file, 'utf8'), problems: [] });
    else
      ctx.finishPoint(p, {
        status: 'failed',
        error: `srtctl's job ${job.id} ended ${job.state ?? ''} without a result for conc ${p.conc} in ${outputs}`,
        kind: isInfrastructureState(job.state) ? 'infrastructure' : 'measurement',
      });
  }
}

/**
 * A multi-node row of an InferenceX checkout that its launcher runs with a job script: the script
 * submits the job and prints its id, which is then followed, or runs its allocation's steps
 * itself until done (its allocation, which outlives it, is then cancelled); then the results.
 */
export async function runJobScript(ctx: LaunchContext, plan: JobScriptLaunchPlan, o: SlurmRunSettings): Promise<void> {
  const { points, dir, cluster } = ctx;
  const { jobScript } = plan;
  const row = plan.launch.rows[0] as MultiNodeRow;
  const logDir = dir.serverLogs(logsKeyOf(plan.launch, points));
  mkdirSync(logDir, { recursive: true });
  const setUp = setUpJobScript(
    jobScript,
    row,
    cluster,
    join(dir.root, 'work', plan.launch.id),
    o.frontierCommand,
    'run',
    plan.deployment.runVariation,
  );
  await excludeNodes(ctx, setUp, row);
  let job: FollowedJob | undefined;
  try {
    job = await followJobScript(ctx, plan, setUp, logDir, o);
  } finally {
    if (!job) keepJobScriptLogs(setUp, jobScript, logDir);
  }
  if (!job) return;
  const results = jobScriptResults(setUp, jobScript, row, points);
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
        error: `job ${job.id} of ${jobScript.script} ended ${job.state ?? ''} without a result for conc ${p.conc}${ends ? `; the end of its logs:\n${ends}` : ''}`,
        kind: isInfrastructureState(job.state) ? 'infrastructure' : 'measurement',
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
  keepJobScriptLogs(setUp, jobScript, logDir);
}

type JobScriptSetUp = ReturnType<typeof setUpJobScript>;

/**
 * The nodes the attempt may not use, for a job script that submits its own job: AMD's submit.sh
 * takes SLURM_EXCLUDE_NODES in place of its node_excludes.yaml lookup, so that lookup's nodes go
 * in too. (Scripts that read neither submit without the exclusion.)
 */
async function excludeNodes(ctx: LaunchContext, setUp: JobScriptSetUp, row: MultiNodeRow): Promise<void> {
  if (ctx.attempt.exclude.length === 0) return;
  const file = join(setUp.work, NODE_EXCLUDES_OF['mi355x-amds']!);
  const listed = existsSync(file) ? nodeExcludesFor(await parseNodeExcludes(readFileSync(file, 'utf8'), file), row) : [];
  setUp.env.SLURM_EXCLUDE_NODES = [...new Set([...listed, ...ctx.attempt.exclude])].join(',');
}

/** Run the job script and follow its job: the one it prints, or the allocation it holds while it runs. */
async function followJobScript(
  ctx: LaunchContext,
  plan: JobScriptLaunchPlan,
  setUp: JobScriptSetUp,
  logDir: string,
  o: SlurmRunSettings,
): Promise<FollowedJob | undefined> {
  const { jobScript } = plan;
  const runScript = (): Promise<string> => runJobScriptOnce(ctx, plan, setUp, logDir, o);
  if (jobScript.rule.job === 'printed')
    return o.slurm.follow(jobWatchOf(ctx), async () => {
      const stdout = await runScript();
      const id = printedJobId(stdout);
      if (!id) throw new Error(`${jobScript.script} printed no job id; the end of its output:\n${stdout.slice(-LOG_TAIL)}`);
      return id;
    });
  // The script's allocation is named after the runner (RUNNER_NAME) and outlives the script:
  // the one that appears while it runs is this launch's, kept in the manifest (so --resume
  // can cancel it after a kill) and cancelled when the script is done.
  const name = setUp.contract.RUNNER_NAME!;
  const before = new Set(await o.slurm.named(name));
  delete ctx.record.job; // a resumed launch's earlier one is not this one
  const watch = async (): Promise<void> => {
    const id = (await o.slurm.named(name)).find((x) => !before.has(x));
    if (id && !ctx.record.job) {
      ctx.record.job = id;
      ctx.save();
    }
  };
  const watching = setInterval(() => void watch(), o.pollMs);
  let failure: unknown;
  await runScript()
    .catch((e: unknown) => (failure = e))
    .finally(() => clearInterval(watching));
  await watch();
  const nodes = ctx.record.job ? await o.slurm.nodesOf(ctx.record.job) : [];
  ctx.attempt.nodes = nodes;
  if (ctx.record.job) await o.slurm.cancel(ctx.record.job);
  if (failure && !ctx.signal.aborted) throw failure;
  return ctx.signal.aborted ? undefined : { id: ctx.record.job ?? '?', state: 'ended', nodes };
}

/** The job script, run once in its workspace; its output kept beside the launch's logs. */
async function runJobScriptOnce(
  ctx: LaunchContext,
  plan: JobScriptLaunchPlan,
  setUp: JobScriptSetUp,
  logDir: string,
  o: SlurmRunSettings,
): Promise<string> {
  const { jobScript } = plan;
  const env = { ...o.slurm.env, ...setUp.env };
  let imported = '';
  try {
    imported = await importImages(setUp, env);
  } catch (e) {
    writeFileSync(join(logDir, 'job-script.log'), `${(e as Error).message}\n`);
    throw e;
  }
  try {
    const out = await exec('bash', [jobScript.script], {
      cwd: setUp.work,
      env,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      ...(jobScript.rule.job === 'foreground' ? { signal: ctx.signal } : {}),
    });
    writeFileSync(join(logDir, 'job-script.log'), `${imported}${out.stderr}${out.stdout}`);
    return out.stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    writeFileSync(join(logDir, 'job-script.log'), `${imported}${err.stderr ?? ''}${err.stdout ?? ''}`);
    throw new Error(`${jobScript.script}: ${`${err.stdout ?? ''}${err.stderr ?? ''}`.trim().slice(-LOG_TAIL) || err.message}`);
  }
}
