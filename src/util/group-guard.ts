import { spawn } from 'node:child_process';

/**
 * A watcher that stops a process group when this process ends however it ends (kill -9, the OOM
 * killer): a detached `sh` blocks reading a pipe whose other end only this process holds; the
 * kernel closes it when this process dies, and the watcher then sends the group SIGTERM and, after
 * a grace period, SIGKILL. `release()` ends the watcher when the group was stopped in order.
 * (Engines get the same watcher inside their own group: GUARD in launch/local.ts.)
 */
export interface GroupGuard {
  release(): void;
}

const WATCH = 'trap "" TERM; read -r _ <&3; kill -TERM -"$1" 2>/dev/null; sleep "$2"; kill -KILL -"$1" 2>/dev/null';

export function guardGroup(pgid: number, graceSeconds = 5): GroupGuard {
  const watcher = spawn('sh', ['-c', WATCH, 'frontier-guard', String(pgid), String(graceSeconds)], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    detached: true,
  });
  // Neither the watcher nor its pipe keeps this process alive.
  watcher.unref();
  const pipe = watcher.stdio[3] as { unref?: () => void } | null;
  pipe?.unref?.();
  return {
    release() {
      try {
        watcher.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
