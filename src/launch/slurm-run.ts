import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { tail } from './local.js';
import type { Launch } from '../engines/index.js';
import { placeWorkers } from './placement.js';
import { evalArgsOf } from './evals.js';
import { logsKeyOf, recipeOf } from './plan.js';
import type { PlannedEval, PlannedPoint } from './plan.js';
import type { ClusterProfile } from './profile.js';
import type { RunDir } from './run-dir.js';
import { benchArgsOf } from './point-bench.js';
import { routeRecipe } from './routing.js';
import type { EvalSettings, GroupExecutor, PreparedGroup } from './run.js';
import { renderJobScript } from './slurm-script.js';

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
): { launch: Launch; logDir: string; script: string } {
  const g = group.planned;
  const d = group.deployment;
  const hosts = Array.from({ length: group.nodes }, (_, i) => `\${NODES[${i}]}`);
  let port = basePort;
  const launch = group.adapter.launch(d, placeWorkers(d.layout, cluster.gpusPerNode, hosts), { next: () => port++ });
  const logDir = dir.serverLogs(logsKeyOf(g, points));
  const notes: string[] = [];
  const row = g.rows[0]!;
  const recipe = recipeOf(row);
  if (recipe) {
    const route = routeRecipe(cluster, {
      framework: row.framework,
      modelPrefix: row['model-prefix'],
      precision: row.precision,
      recipe,
    });
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
    image: group.adapter.frameworks.some((f) => f === 'sim' || f === 'llama.cpp') ? undefined : d.image,
    launch,
    points: points.map((p) => ({
      conc: p.conc,
      benchArgs: benchArgsOf(
        { baseUrl, model: d.servedModelName, isl: d.isl, osl: d.osl, conc: p.conc, client: launch.client },
        dir.rawFile(p.resultFilename),
      ),
    })),
    evals: (evals?.list ?? []).map((e) => ({
      concs: e.concs,
      args: evalArgsOf({
        baseUrl,
        model: d.servedModelName,
        maxModelLen: d.maxModelLen,
        concs: e.concs,
        folder: join(dir.root, e.dir),
        rowFile: join(dir.root, e.dir, 'row.json'),
        runner: e.row.runner,
        datasetDir: evals!.settings.datasetDir,
        limit: evals!.settings.limit,
      }),
    })),
    frontier,
    notes,
  });
  return { launch, logDir, script };
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

  const executor: GroupExecutor = async (ctx) => {
    const { group, points, dir, cluster, reporter, signal, record } = ctx;
    const evals = ctx.evalSettings ? { list: ctx.evals, settings: ctx.evalSettings } : undefined;
    const { launch, logDir, script } = jobFor(group, points, dir, cluster, o.frontierCommand, o.basePort, evals);
    // The eval step reads its row from the eval folder (meta_env.json is made from it).
    for (const e of evals?.list ?? []) {
      mkdirSync(join(dir.root, e.dir), { recursive: true });
      writeFileSync(join(dir.root, e.dir, 'row.json'), `${JSON.stringify(e.row, null, 2)}\n`);
    }
    mkdirSync(logDir, { recursive: true });
    const scriptFile = join(logDir, 'job.sbatch');
    writeFileSync(scriptFile, script, { mode: 0o755 });
    const id = (await slurm('sbatch', ['--parsable', scriptFile])).trim().split(';')[0]!;
    record.job = id;
    ctx.save();
    reporter.note?.(`  submitted job ${id}`);

    let state: string | undefined;
    let last: string | undefined;
    for (;;) {
      if (signal.aborted) return cancel(id);
      state = await jobState(id);
      if (state !== last) reporter.note?.(`  job ${id}: ${state ?? 'gone'}`);
      last = state;
      if (!active(state)) break;
      await sleep(pollMs);
    }

    const exits = new Map(
      (existsSync(join(logDir, 'exits.txt')) ? readFileSync(join(logDir, 'exits.txt'), 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ') as [string, string]),
    );
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
      else ctx.finishPoint(p, { status: valid ? 'ok' : 'invalid', raw: text, problems: result.frontier?.problems ?? [] });
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

const active = (state: string | undefined): boolean =>
  state !== undefined && ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED'].includes(state);
