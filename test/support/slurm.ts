// A real, throw-away Slurm cluster for integration tests, started from the Debian packages that
// scripts/install-system-deps.sh installs (slurm-wlm, munge). Each startSlurm() gets everything of its own, so that
// several test files can run one in parallel: a temp dir (config, state, spool, logs), a munged on a socket in that
// dir (never the system's /run/munge one), free ports, a unique ClusterName, and one slurmd per node (`slurmd -N`),
// all on 127.0.0.1. GPUs are fake: gres.conf points `File=` at symlinks to /dev/null (Slurm 22.05 drops a GPU
// without a File= and rejects a File= that is not a character or block device), which is enough for
// `--gpus-per-node` to schedule and set CUDA_VISIBLE_DEVICES / SLURM_GPUS_PER_NODE. No slurmdbd, so no sacct:
// follow jobs with squeue and `scontrol show job` (finished jobs stay there for MinJobAge = 300 s).
// The daemons run as root (SlurmUser=root) in the foreground (-D) as children of the test worker.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { processAlive } from '../../src/util/process-alive.js';
import { WaitTimeout, waitFor } from './wait.js';

const execFileAsync = promisify(execFile);

export interface SlurmOptions {
  /** Compute nodes, named n1 … nN, each its own `slurmd -N`; default 2. */
  nodes?: number;
  /** CPUs each node claims (SlurmdParameters=config_overrides, so it may exceed the host's); default 2. */
  cpusPerNode?: number;
  /** Fake GPUs each node offers as gres `gpu` (0: no GresTypes at all); default 8. */
  gpusPerNode?: number;
  /** Extra slurm.conf lines, written after the harness's own (before the node and partition lines). */
  extraConfig?: string[];
}

export interface LocalSlurm {
  /** The temp dir holding slurm.conf, gres.conf, state, spool and logs; removed by stop(). */
  dir: string;
  /** What sbatch/squeue/scontrol/scancel/srun need to talk to this cluster: `{ SLURM_CONF }`. Merge over process.env. */
  env: Record<string, string>;
  /** The node names, n1 … nN, in order. */
  nodeNames: string[];
  /** The (default) partition holding every node. */
  partition: string;
  /** This start's unique ClusterName. */
  clusterName: string;
  cpusPerNode: number;
  gpusPerNode: number;
  /** The last lines of every daemon log (for assertion messages). */
  logs(lines?: number): string;
  /**
   * Cancel every job still in the cluster, end the daemons this harness started (SIGTERM, SIGKILL after 5 s) and
   * any job process left behind (found by this cluster's SLURM_CONF in its environment), wait until they have
   * exited, and remove `dir`. Idempotent.
   */
  stop(): Promise<void>;
}

const BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scontrol', 'scancel', 'sinfo', 'srun'];
const SEARCH_PATH = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin', '/usr/local/bin'];
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const COMMAND_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;
let started = 0;

/** bash -c REAPER slurm-reaper MARKER DIR: on EOF (not on a `stopped` line), SIGKILL every process with MARKER, rm DIR. */
const REAPER = `
if read -r line && [ "$line" = stopped ]; then exit 0; fi
for environ in /proc/[0-9]*/environ; do
  pid=\${environ#/proc/}; pid=\${pid%/environ}
  [ "$pid" = $$ ] && continue
  grep -qzxF -- "$1" "$environ" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
done
rm -rf -- "$2"
`;

function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), ...SEARCH_PATH];
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

/** Ports outside the kernel's ephemeral range (32768–60999), free on all addresses now; distinct within one call. */
async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (ports.includes(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
    });
    if (free) ports.push(port);
  }
  return ports;
}

function range(prefix: string, count: number): string {
  return count === 1 ? `${prefix}0` : `${prefix}[0-${count - 1}]`;
}

/** Processes other than this one whose environment holds `marker` (a `SLURM_CONF=<this cluster's conf>` entry). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)) pids.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

interface Daemon {
  name: string;
  child: ChildProcess;
  pid: number;
  exitInfo?: string;
  exited: Promise<void>;
}

class StartError extends Error {
  constructor(
    message: string,
    readonly portClash: boolean,
  ) {
    super(message);
  }
}

/**
 * Start a Slurm cluster of `nodes` nodes on this host and wait until every node is IDLE. Needs root and the Debian
 * packages slurm-wlm and munge (scripts/install-system-deps.sh). Always `stop()` it (e.g. in afterAll); a process
 * 'exit' handler, the daemons' parent-death signal and a reaper process (which sweeps when this process is gone,
 * however it died) end it and its jobs when the worker dies without stop().
 */
export async function startSlurm(options: SlurmOptions = {}): Promise<LocalSlurm> {
  const nodes = options.nodes ?? 2;
  const cpusPerNode = options.cpusPerNode ?? 2;
  const gpusPerNode = options.gpusPerNode ?? 8;
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`startSlurm: nodes must be a positive integer, not ${nodes}`);
  if (!Number.isInteger(cpusPerNode) || cpusPerNode < 1)
    throw new Error(`startSlurm: cpusPerNode must be ≥ 1, not ${cpusPerNode}`);
  if (!Number.isInteger(gpusPerNode) || gpusPerNode < 0)
    throw new Error(`startSlurm: gpusPerNode must be ≥ 0, not ${gpusPerNode}`);
  const missing = BINARIES.filter((name) => !which(name));
  if (missing.length > 0) {
    throw new Error(`startSlurm: ${missing.join(', ')} not found; run scripts/install-system-deps.sh (slurm-wlm, munge)`);
  }
  if (process.getuid?.() !== 0)
    throw new Error('startSlurm: the Slurm daemons run as root (SlurmUser=root); run the tests as root');

  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(nodes, cpusPerNode, gpusPerNode, options.extraConfig ?? []);
    } catch (error) {
      lastError = error;
      // A probed port may be taken (by another test file's cluster) before our daemon binds it: try new ports.
      if (!(error instanceof StartError && error.portClash)) throw error;
    }
  }
  throw lastError;
}

async function startOnce(nodes: number, cpusPerNode: number, gpusPerNode: number, extraConfig: string[]): Promise<LocalSlurm> {
  const dir = mkdtempSync(join(tmpdir(), 'slurm-'));
  // munged insists that every directory above its socket is searchable by all (mkdtemp makes 0700).
  chmodSync(dir, 0o755);
  const clusterName = `t${process.pid.toString(36)}${(started++).toString(36)}${randomBytes(3).toString('hex')}`;
  const nodeNames = Array.from({ length: nodes }, (_, i) => `n${i + 1}`);
  const partition = 'debug';
  const conf = join(dir, 'slurm.conf');
  const marker = `SLURM_CONF=${conf}`;
  const env: Record<string, string> = { SLURM_CONF: conf };
  const daemons: Daemon[] = [];
  let stopped = false;

  const logFiles = (): string[] => {
    try {
      return readdirSync(join(dir, 'log'))
        .sort()
        .map((name) => join(dir, 'log', name));
    } catch {
      return [];
    }
  };
  // slurmd -D writes the same lines to its stderr (slurmd.<node>.out) as to its log file: show the .out only without one.
  const logs = (lines = 20): string =>
    logFiles()
      .filter((path, _, all) => !(path.endsWith('.out') && all.includes(path.replace(/\.out$/, '.log'))))
      .map((path) => `--- ${path}\n${tail(path, lines)}`)
      .join('\n');

  // Synchronous last resort for a worker that exits without stop(): SIGKILL everything of this cluster.
  const killOnExit = (): void => {
    for (const daemon of daemons) if (daemon.exitInfo === undefined) kill(daemon.pid, 'SIGKILL');
    for (const pid of processesWith(marker)) kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  // For a worker killed by a signal (no 'exit' event): a reaper that sweeps when its stdin, a pipe from this
  // process, reaches EOF. The daemons also get SIGKILL as their parent-death signal (setpriv), but slurmstepd and
  // the job processes are not their children.
  const reaper = spawn('bash', ['-c', REAPER, 'slurm-reaper', marker, dir], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  reaper.on('error', () => undefined);
  reaper.unref();
  (reaper.stdin as Socket | null)?.on('error', () => undefined).unref();

  const run = async (command: string, args: string[], timeout = COMMAND_TIMEOUT_MS): Promise<string> => {
    const { stdout } = await execFileAsync(command, args, {
      env: { ...process.env, ...env },
      timeout,
      encoding: 'utf8',
    });
    return stdout;
  };

  const shutdown = async (cancelJobs: boolean): Promise<void> => {
    if (stopped) return;
    stopped = true;
    // Jobs first, while slurmctld and the slurmds can still end them (KillWait=2: SIGKILL 2 s after SIGTERM).
    if (cancelJobs && daemons.every((daemon) => daemon.exitInfo === undefined)) {
      try {
        const ids = (await run('squeue', ['-h', '-o', '%i'])).split(/\s+/).filter(Boolean);
        if (ids.length > 0) {
          await run('scancel', ids);
          await waitFor(async () => (await run('squeue', ['-h', '-o', '%i'])).trim() === '', {
            timeoutMs: 10_000,
            intervalMs: 100,
            what: 'the cancelled jobs to leave the queue',
          });
        }
      } catch {
        // the sweep below ends whatever is left
      }
    }
    const end = async (group: Daemon[]): Promise<void> => {
      for (const daemon of group) if (daemon.exitInfo === undefined) daemon.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        for (const daemon of group) if (daemon.exitInfo === undefined) daemon.child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      await Promise.all(group.map((daemon) => daemon.exited));
      clearTimeout(timer);
    };
    // munged last: slurmd and slurmctld may still authenticate messages while they shut down.
    await end(daemons.filter((daemon) => daemon.name !== 'munged'));
    await end(daemons.filter((daemon) => daemon.name === 'munged'));
    // slurmstepd and job processes are not the daemons' children (slurmstepd double-forks): end any left behind.
    let strays = processesWith(marker).filter(processAlive);
    if (strays.length > 0) {
      for (const pid of strays) kill(pid, 'SIGKILL');
      // Best effort: what SIGKILL has not ended by then is past helping (the dir goes either way).
      await waitFor(() => (strays = strays.filter(processAlive)).length === 0, {
        timeoutMs: STOP_GRACE_MS,
        intervalMs: 50,
        what: 'the processes left behind to end',
      }).catch(() => undefined);
    }
    process.removeListener('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
    reaper.stdin?.end('stopped\n');
  };
  const stop = (): Promise<void> => shutdown(true);

  const launch = async (name: string, command: string, args: string[]): Promise<Daemon> => {
    const log = join(dir, 'log', `${name}.out`);
    const fd = openSync(log, 'a');
    // setpriv --pdeathsig: the daemon gets SIGKILL if the test worker dies without running any handler.
    const setpriv = which('setpriv');
    const [file, argv] = setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
    const child = spawn(file, argv, { stdio: ['ignore', fd, fd], env: { ...process.env, ...env }, cwd: dir });
    closeSync(fd);
    const daemon: Daemon = { name, child, pid: -1, exited: Promise.resolve() };
    daemon.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        daemon.exitInfo = signal ? `signal ${signal}` : `exit code ${code}`;
        resolve();
      });
    });
    const error = await new Promise<Error | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err));
    });
    if (error || child.pid === undefined) throw new Error(`could not start ${command}: ${error?.message ?? 'no pid'}`);
    daemon.pid = child.pid;
    daemons.push(daemon);
    return daemon;
  };

  const fail = async (message: string): Promise<never> => {
    const text = `${message}\n${logs()}`;
    const portClash = /address already in use|unable to bind|bind\(\)|error binding/i.test(text);
    await shutdown(false);
    throw new StartError(`startSlurm (${dir}): ${text}`, portClash);
  };

  try {
    for (const sub of ['munge', 'state', 'log', 'dev', 'spool']) mkdirSync(join(dir, sub), { mode: 0o755 });
    for (const node of nodeNames) mkdirSync(join(dir, 'spool', node), { mode: 0o755 });
    const key = join(dir, 'munge', 'munge.key');
    writeFileSync(key, randomBytes(128), { mode: 0o600 });
    const socket = join(dir, 'munge', 'munge.socket');
    for (let i = 0; i < gpusPerNode; i++) symlinkSync('/dev/null', join(dir, 'dev', `gpu${i}`));

    const [ctldPort = 0, ...nodePorts] = await freePorts(1 + nodes);
    const lines = [
      `ClusterName=${clusterName}`,
      'SlurmctldHost=localhost(127.0.0.1)',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${nodePorts[0]}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      'CredType=cred/munge',
      // Our own munged: clients (sbatch, srun, …) and daemons all read the socket from here.
      `AuthInfo=socket=${socket}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      // Start batch jobs within ~0.5 s of submission rather than ~3 s (the first job after start still takes ~2 s).
      'SchedulerParameters=batch_sched_delay=0',
      'MpiDefault=none',
      'ReturnToService=2',
      // Finished jobs stay visible to `scontrol show job` this long (there is no slurmdbd / sacct).
      'MinJobAge=300',
      'KillWait=2',
      'InactiveLimit=0',
      'Waittime=0',
      // Nodes may claim more CPUs than the host has (and several slurmds share it).
      'SlurmdParameters=config_overrides',
      'JobCompType=jobcomp/none',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool', '%n')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.%n.pid')}`,
      // slurmctld and munged log to their stderr (log/<name>.out); slurmstepd logs only to SlurmdLogFile.
      `SlurmdLogFile=${join(dir, 'log', 'slurmd.%n.log')}`,
      'MailProg=/bin/true',
      'SlurmctldDebug=info',
      'SlurmdDebug=info',
    ];
    // (AccountingStorageTRES=gres/gpu would put the GPUs into `scontrol show job`'s TRES, but slurmctld then
    // refuses to start: "slurmdbd is required to run with TRES gres/gpu". `scontrol -d show job` has GRES=.)
    if (gpusPerNode > 0) lines.push('GresTypes=gpu');
    lines.push(...extraConfig);
    nodeNames.forEach((node, i) => {
      const gres = gpusPerNode > 0 ? ` Gres=gpu:${gpusPerNode}` : '';
      lines.push(
        `NodeName=${node} NodeHostname=localhost NodeAddr=127.0.0.1 Port=${nodePorts[i]} CPUs=${cpusPerNode} RealMemory=1024${gres} State=UNKNOWN`,
      );
    });
    lines.push(`PartitionName=${partition} Nodes=${nodeNames.join(',')} Default=YES MaxTime=INFINITE State=UP`);
    writeFileSync(conf, `${lines.join('\n')}\n`);
    if (gpusPerNode > 0) {
      // Without File= Slurm 22.05 drops the GPUs ("Removing file-less GPU"); /dev/null symlinks pass its device check.
      const gres = [
        'AutoDetect=off',
        `NodeName=${nodeNames.join(',')} Name=gpu File=${join(dir, 'dev', range('gpu', gpusPerNode))}`,
      ];
      writeFileSync(join(dir, 'gres.conf'), `${gres.join('\n')}\n`);
    }

    const munged = await launch('munged', which('munged') ?? 'munged', [
      '-F',
      `--socket=${socket}`,
      `--key-file=${key}`,
      `--pid-file=${join(dir, 'munge', 'munged.pid')}`,
      `--seed-file=${join(dir, 'munge', 'munged.seed')}`,
    ]);
    // One deadline for both waits below; a timeout is a WaitTimeout, which fail() reports with the logs (see the catch).
    const deadline = Date.now() + READY_TIMEOUT_MS;
    await waitFor(
      async () => {
        if (munged.exitInfo !== undefined) await fail(`munged exited (${munged.exitInfo}) before creating ${socket}`);
        return existsSync(socket);
      },
      { timeoutMs: READY_TIMEOUT_MS, what: `munged to create ${socket}` },
    );
    await launch('slurmctld', which('slurmctld') ?? 'slurmctld', ['-D']);
    for (const node of nodeNames) await launch(`slurmd.${node}`, which('slurmd') ?? 'slurmd', ['-D', '-N', node]);

    let states = '';
    await waitFor(
      async () => {
        const dead = daemons.find((daemon) => daemon.exitInfo !== undefined);
        if (dead) await fail(`${dead.name} exited (${dead.exitInfo}) before the nodes were idle`);
        try {
          // A short timeout: with no slurmctld listening, scontrol retries for MessageTimeout (10 s) before failing.
          const out = await run('scontrol', ['show', 'nodes', '--oneliner'], 2_000);
          const byNode = new Map(
            out
              .split('\n')
              .map((line) => [/^NodeName=(\S+)/.exec(line)?.[1], /\bState=(\S+)/.exec(line)?.[1]] as const)
              .filter((pair): pair is readonly [string, string] => pair[0] !== undefined && pair[1] !== undefined),
          );
          states = nodeNames.map((node) => `${node}=${byNode.get(node) ?? '?'}`).join(' ');
          return nodeNames.every((node) => byNode.get(node) === 'IDLE');
        } catch (error) {
          states = `scontrol: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
          return false;
        }
      },
      { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 100, what: () => `every node to be IDLE (${states})` },
    );
  } catch (error) {
    if (error instanceof StartError) throw error;
    if (error instanceof WaitTimeout) await fail(error.message);
    await shutdown(false);
    throw error;
  }

  return { dir, env, nodeNames, partition, clusterName, cpusPerNode, gpusPerNode, logs, stop };
}
