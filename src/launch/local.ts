import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineProcess } from '../engines/index.js';

/**
 * Runs engine processes on this machine: each in its own process group (stopping it stops
 * whatever it spawned), output to `<logDir>/<name>.log`. Every group started here is remembered
 * until it exits and killed when this process exits, so nothing survives a run; and should this
 * process die without exiting (kill -9, the OOM killer), each group's watchdog stops it (GUARD).
 */

/** In the environment of every process of a run: its log folder (a stray one leads to its run). */
export const RUN_MARKER = 'FRONTIER_RUN_LOGS';

/**
 * How each engine is started (`sh -c GUARD frontier-engine COMMAND ARGS…`): a watcher in the
 * background blocks reading fd 3, a pipe whose other end only this process holds, and the engine
 * replaces the shell (same PID and process group; its exit status is this child's). The kernel
 * closes the pipe however this process ends: the watcher then stops the group, SIGTERM and after
 * the grace period SIGKILL, ignoring the SIGTERM itself.
 */
const GUARD = [
  'command -v -- "$1" >/dev/null 2>&1 || { echo "frontier: could not start $1: no such command" >&2; exit 127; }',
  '(trap "" TERM; read -r _ <&3; kill -TERM 0; sleep 5; kill -KILL 0) &',
  'exec 3<&-',
  'exec "$@"',
].join('\n');

export interface ProcessExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcesses {
  /** Resolves when the first process exits. */
  firstExit: Promise<ProcessExit>;
  /** The exit of a process, if it has exited. */
  exitOf(name: string): ProcessExit | undefined;
  /** The end of a process's log. */
  logTail(name: string, bytes?: number): string;
  /** Each process's PID, which is also its process group's id. */
  pids: { name: string; pid: number }[];
  /** SIGTERM every process group, SIGKILL after `graceMs`; resolves when all have exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Signal a child's whole process group: what it spawned may outlive it. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/** The last `bytes` of a file ('' when it does not exist). */
export function tail(file: string, bytes = 4000): string {
  let fd: number | undefined;
  try {
    const size = statSync(file).size;
    fd = openSync(file, 'r');
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function startProcesses(processes: readonly EngineProcess[], logDir: string): RunningProcesses {
  mkdirSync(logDir, { recursive: true });
  const exits = new Map<string, ProcessExit>();
  const children: { child: ChildProcess; exited: Promise<void> }[] = [];
  let resolveFirst!: (e: ProcessExit) => void;
  const firstExit = new Promise<ProcessExit>((resolve) => (resolveFirst = resolve));
  const logOf = (name: string): string => join(logDir, `${name}.log`);
  for (const p of processes) {
    const log = openSync(logOf(p.name), 'a');
    const env = {
      ...process.env,
      ...(p.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: p.gpus.join(',') } : {}),
      ...p.env,
      [RUN_MARKER]: logDir,
    };
    const [command] = p.command;
    const child = spawn('sh', ['-c', GUARD, 'frontier-engine', ...p.command], {
      stdio: ['ignore', log, log, 'pipe'],
      env,
      detached: true,
    });
    closeSync(log);
    live.add(child);
    const exited = new Promise<void>((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (exits.has(p.name)) return;
        const e = { name: p.name, code, signal };
        exits.set(p.name, e);
        resolveFirst(e);
        resolve();
      };
      child.once('exit', done);
      child.once('error', (error) => {
        // The shell could not start: say so where the engine's output would have been.
        appendFileSync(logOf(p.name), `frontier: could not start ${command}: ${error.message}\n`);
        done(127, null);
      });
    });
    children.push({ child, exited });
  }
  return {
    firstExit,
    pids: children.flatMap(({ child }, i) => (child.pid === undefined ? [] : [{ name: processes[i]!.name, pid: child.pid }])),
    exitOf: (name) => exits.get(name),
    logTail: (name, bytes) => tail(logOf(name), bytes),
    async stop(graceMs = 5000) {
      for (const { child } of children) killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => {
        for (const { child } of children) killGroup(child, 'SIGKILL');
      }, graceMs);
      await Promise.all(children.map((c) => c.exited));
      clearTimeout(timer);
      // Whatever a process spawned and left behind goes with its group.
      for (const { child } of children) {
        killGroup(child, 'SIGKILL');
        live.delete(child);
      }
    },
  };
}
