import { join } from 'node:path';
import type { SingleNodeRow } from '../../matrix/index.js';
import { workflowEnv } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import { makeWorkspace, readCalls, recordScript, scratchDir, scriptCommand, settingsOf, standinVariables } from './workspace.js';
import type { RecordedCall } from './workspace.js';
import type { ScriptPlan } from '../../plan/inferencex/script-plan.js';

/**
 * The script's environment contract for one point: the launcher's port (for a launcher that
 * derives it from the Slurm job's id, as job 0: there is no job before the run) unless `port`
 * moves it.
 */
export function contractOf(plan: ScriptPlan, row: SingleNodeRow, resultFilename: string, port?: number): Record<string, string> {
  const env = workflowEnv(row, {
    resultFilename,
    runnerName: plan.runnerName,
    port: port ?? plan.rule.port(plan.runnerName, 0),
  });
  const docker = plan.rule.containerEnv;
  if (!docker) return env;
  return { ...Object.fromEntries(docker.pass.flatMap((k) => (k in env ? [[k, env[k]!]] : []))), ...docker.set(env) };
}

/** What a dry run starts a script with besides its contract: the host's basics, nothing of the caller's shell. */
const BASICS = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR'];
export const basics = (): Record<string, string> =>
  Object.fromEntries(BASICS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])));

/**
 * The processes a script starts: its engines and launchers (an engine that a launcher such as
 * mpirun starts is part of the launcher's command line, not a process of its own).
 */
export function startedProcesses(calls: readonly RecordedCall[]): RecordedCall[] {
  const out: RecordedCall[] = [];
  for (const c of calls) {
    if (c.kind !== 'engine' && c.kind !== 'launcher') continue;
    const previous = out[out.length - 1];
    const launched = previous?.kind === 'launcher' && previous.argv.join('\0').endsWith(`\0${c.argv.join('\0')}`);
    if (!launched) out.push(c);
  }
  return out;
}

/** A process the script starts, as a dry run shows it. */
export interface ScriptProcess {
  kind: RecordedCall['kind'];
  argv: string[];
  /** The contract and what the script exported, as the process received them. */
  env: Record<string, string>;
}

export interface RecordedScript {
  script: string;
  runner: string;
  contract: Record<string, string>;
  processes: ScriptProcess[];
  /** The script ended without starting an engine: its output's end, to say why. */
  problem?: string;
}

/**
 * Run the script for a point against recording stand-ins (nothing starts) and return the
 * processes it would start, each with its exact argv and environment.
 */
export async function recordPoint(
  plan: ScriptPlan,
  row: SingleNodeRow,
  resultFilename: string,
  cluster: ClusterProfile,
  work: string,
  frontier: string[],
): Promise<RecordedScript> {
  const contract = contractOf(plan, row, resultFilename);
  makeWorkspace(work, plan.tree);
  const standin = join(work, '.frontier');
  const env = {
    ...basics(),
    ...contract,
    ...standinVariables({ bin: join(standin, 'bin'), dir: standin, mode: 'record', frontier }),
    // The script's scratch (an agentic script's AIPerf environment) goes with the workspace.
    TMPDIR: scratchDir(standin),
  };
  const command = scriptCommand(
    { ...cluster, container: { ...cluster.container, runtime: 'none' } },
    row.image,
    work,
    plan.script,
    [],
  );
  const { output } = await recordScript(command, env);
  const processes = startedProcesses(readCalls(standin)).map((c) => ({
    kind: c.kind,
    argv: c.argv,
    env: settingsOf(c.env, env, contract),
  }));
  return {
    script: plan.script,
    runner: plan.runnerName,
    contract,
    processes,
    ...(processes.length === 0
      ? { problem: `the script started no engine; the end of its output:\n${output.trimEnd().split('\n').slice(-15).join('\n')}` }
      : {}),
  };
}
