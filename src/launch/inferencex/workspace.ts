import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterProfile } from '../../clusters/index.js';
import { writeStandins } from './standins.js';
import type { InferencexTree } from '../../plan/inferencex/tree.js';

/**
 * Where an InferenceX benchmark script runs. InferenceX runs it in the row's container with the
 * checkout mounted on /workspace (its scripts write `/workspace/server.log` and their results
 * there). Frontier gives each run of a script its own workspace folder (the checkout's top-level
 * entries linked in, outputs written beside them) mounted on /workspace: in the row's image with
 * the cluster's container runtime, or, without one, on this host in a private mount namespace.
 */

/** The in-container path of the workspace, as InferenceX's launchers mount it. */
export const WORKSPACE = '/workspace';

/** A workspace for one run of a script: the checkout's entries linked into a fresh folder. */
export function makeWorkspace(dir: string, tree: InferencexTree): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(tree.root)) if (entry !== '.git') symlinkSync(join(tree.root, entry), join(dir, entry));
}

/** Outputs a script left in its workspace: what is not a link to the checkout. */
export function workspaceOutputs(dir: string, tree: InferencexTree): string[] {
  const linked = new Set(readdirSync(tree.root));
  return readdirSync(dir).filter((f) => !linked.has(f));
}

/** The command that runs `script` (relative to the checkout) with `workspace` on /workspace. */
export function scriptCommand(
  cluster: ClusterProfile,
  image: string,
  workspace: string,
  script: string,
  envKeys: readonly string[],
): string[] {
  switch (cluster.container.runtime) {
    case 'docker':
      return [
        'docker',
        'run',
        '--rm',
        '--init',
        '--network',
        'host',
        '--ipc',
        'host',
        '--gpus',
        'all',
        ...envKeys.flatMap((k) => ['-e', k]),
        '-v',
        `${workspace}:${WORKSPACE}`,
        '-w',
        WORKSPACE,
        image,
        'bash',
        script,
      ];
    case 'enroot':
    case 'apptainer':
      // Under Slurm these become srun --container-* options (slurm-script.ts); on a local cluster
      // the runtime is docker or none.
      throw new Error(
        `cluster ${cluster.name}: container runtime ${cluster.container.runtime} runs InferenceX scripts only under Slurm`,
      );
    case 'none':
      if (process.getuid?.() !== 0)
        throw new Error(
          `cluster ${cluster.name} has no container runtime, so InferenceX scripts run on this host with their workspace mounted on ${WORKSPACE} in a private mount namespace, which needs root; set container.runtime (docker) or run as root`,
        );
      return [
        'unshare',
        '--mount',
        '--propagation',
        'private',
        '--',
        'bash',
        '-c',
        `{ [[ -d ${WORKSPACE} ]] || mkdir ${WORKSPACE}; } && mount --bind "$0" ${WORKSPACE} && cd ${WORKSPACE} && exec bash "$1"`,
        workspace,
        script,
      ];
  }
}

/** One call a stand-in recorded. */
export interface RecordedCall {
  kind: 'engine' | 'client' | 'frontend' | 'proxy' | 'eval' | 'container' | 'job' | 'launcher' | 'gpu' | 'noop' | 'other';
  tool: string;
  cwd: string;
  /** As the script wrote it, the tool's name first. */
  argv: string[];
  env: Record<string, string>;
}

export function readCalls(standinDir: string): RecordedCall[] {
  const dir = join(standinDir, 'calls');
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    // A call whose stand-in was stopped while it recorded has no .done marker: its files may be partial.
    .filter((f) => f.endsWith('.argv') && existsSync(join(dir, f.replace(/\.argv$/, '.done'))))
    .sort((a, b) => {
      const [ta, tb] = [BigInt(a.split('-')[0]!), BigInt(b.split('-')[0]!)]; // microseconds
      return ta < tb ? -1 : ta > tb ? 1 : a.localeCompare(b);
    });
  return names.map((name) => {
    const fields = readFileSync(join(dir, name), 'utf8').split('\0').slice(0, -1);
    const [kind, tool, cwd, ...args] = fields;
    const env: Record<string, string> = {};
    const envFile = join(dir, name.replace(/\.argv$/, '.env'));
    if (existsSync(envFile))
      for (const entry of readFileSync(envFile, 'utf8').split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
    return { kind: kind as RecordedCall['kind'], tool: tool!, cwd: cwd!, argv: [tool!, ...args], env };
  });
}

/** Variables of a recorded environment that are the shell's bookkeeping, not settings. */
const SHELL_VARS = new Set(['_', 'SHLVL', 'PWD', 'OLDPWD']);

/**
 * What a call's environment sets: the script's contract and whatever differs from the environment
 * the script started with (the script's own exports); Frontier's stand-in controls left out.
 */
export function settingsOf(
  env: Record<string, string>,
  base: NodeJS.ProcessEnv,
  contract: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(env).sort()) {
    if (key.startsWith('FRONTIER_') || SHELL_VARS.has(key) || key.startsWith('BASH_FUNC_')) continue;
    if (key in contract || base[key] !== env[key]) out[key] = env[key]!;
  }
  return out;
}

export interface StandinEnv {
  /** Where the stand-ins are (put first on PATH). */
  bin: string;
  /** Where they record calls (`calls/`). */
  dir: string;
  mode: 'record' | 'run' | 'client';
  /** How a stand-in starts Frontier (node and the CLI script). */
  frontier: string[];
}

/** The variables that put the stand-ins in charge of a script's GPU tools. */
export function standinVariables(s: StandinEnv, path = process.env.PATH ?? ''): Record<string, string> {
  writeStandins(s.bin);
  mkdirSync(join(s.dir, 'calls'), { recursive: true });
  // The home of login shells (`bash -l`, whose /etc/profile resets PATH): it puts the stand-ins back.
  const home = join(s.dir, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, '.bash_profile'), 'export PATH="$FRONTIER_STANDIN_BIN:$PATH"\n');
  return {
    PATH: `${s.bin}:${path}`,
    FRONTIER_STANDIN_PATH: path,
    FRONTIER_STANDIN_BIN: s.bin,
    FRONTIER_STANDIN_DIR: s.dir,
    FRONTIER_STANDIN_HOME: home,
    FRONTIER_STANDIN_MODE: s.mode,
    FRONTIER_STANDIN_NODE: s.frontier[0] ?? 'frontier',
    FRONTIER_STANDIN_CLI: s.frontier[1] ?? '',
  };
}

/**
 * Run a script to completion in record mode and return its calls: nothing starts, the script
 * stops at its first readiness check. Its whole process group is killed when it exits (or after
 * `timeoutMs`), so nothing it left in the background survives.
 */
export async function recordScript(
  command: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer): void => {
      output = (output + b.toString('utf8')).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    };
    const timer = setTimeout(killGroup, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      killGroup();
    });
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A script's $TMPDIR beside its stand-ins, removed with its workspace. */
export function scratchDir(standin: string): string {
  const tmp = join(standin, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return tmp;
}
