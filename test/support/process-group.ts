// A child started with `detached: true` leads its own process group: signal the whole group (the
// child and whatever it started), and check that none of it is left.
import type { ChildProcess } from 'node:child_process';

/** Send `signal` to the child's process group; a group already gone is not an error. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Whether any process of the group led by `pid` is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
