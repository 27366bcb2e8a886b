/**
 * A monitoring tool run as a child process: its own process group (so stopping it also stops
 * whatever it started, and a terminal's Ctrl-C reaches the sampler, which stops it in order), its
 * exit recorded the moment it happens, the tail of its stderr kept for the summary, and a guard
 * that stops the group should this process die without stopping it (kill -9).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { guardGroup } from '../util/group-guard.js';

const STDERR_TAIL = 2000;
const TERM_GRACE_MS = 5000;
const KILL_GRACE_MS = 2000;

export class ToolProcess {
  readonly child: ChildProcess;
  exitCode: number | null = null;
  exitSignal: string | null = null;
  /** Exited (or failed to start) before stop was asked. */
  diedBeforeStop = false;
  spawnError: Error | undefined;
  private stopping = false;
  private stderr = '';
  private readonly closed: Promise<void>;

  constructor(path: string, args: string[], env: NodeJS.ProcessEnv, stdout: 'pipe' | number) {
    this.child = spawn(path, args, {
      env,
      detached: true,
      stdio: ['ignore', stdout, 'pipe'],
    });
    const guard = this.child.pid === undefined ? undefined : guardGroup(this.child.pid);
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-STDERR_TAIL);
    });
    this.closed = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.spawnError = e;
        if (!this.stopping) this.diedBeforeStop = true;
        resolve();
      });
      this.child.on('exit', (code, signal) => {
        guard?.release();
        this.exitCode = code;
        this.exitSignal = signal;
        if (!this.stopping) this.diedBeforeStop = true;
      });
      this.child.on('close', () => resolve());
    });
  }

  get stderrTail(): string {
    return this.stderr;
  }

  alive(): boolean {
    return this.exitCode === null && this.exitSignal === null && this.spawnError === undefined;
  }

  /** SIGTERM to the group, then SIGKILL if it lingers; resolves once its output is all read (or given up on). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.alive()) this.signal('SIGTERM');
    if (await within(this.closed, TERM_GRACE_MS)) return;
    this.signal('SIGKILL');
    if (await within(this.closed, KILL_GRACE_MS)) return;
    // A grandchild still holds the pipes: stop reading them.
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  /** Resolves when the tool has exited and its pipes are closed. */
  get done(): Promise<void> {
    return this.closed;
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  }
}

function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export interface OneShot {
  ok: boolean;
  stdout: string;
  detail: string;
}

/** Run a tool once (a post-exit sample, a snapshot): its stdout whatever the outcome. */
export function runOnce(path: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<OneShot> {
  return new Promise((resolve) => {
    execFile(path, args, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      const detail = error ? `${error.message.split('\n')[0]}${stderr ? `: ${stderr.trim().slice(-300)}` : ''}` : '';
      resolve({ ok: !error, stdout: stdout ?? '', detail });
    });
  });
}
