import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` is running: it exists (EPERM: it does, under another user) and, where
 * /proc tells, is not a zombie (exited, waiting to be reaped by a parent that may never do so).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // no /proc here, or gone since
  }
  // The command name (field 2) is in parentheses and may hold spaces: the state follows it.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
