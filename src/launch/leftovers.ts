import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_MARKER } from './local.js';
import { RunError } from './run-dir.js';
import { writeFileAtomic } from '../util/atomic-write.js';

/**
 * The engine processes of the launch that is running, recorded in the run directory
 * (`engines.json`) from their start until they are stopped. Engines die with the run (see
 * local.ts); should their watchdogs have been killed too, `--resume` finds what is still running
 * from this record and stops it. A PID alone could have been reused by an unrelated process since:
 * a process counts as the recorded one only with the same start time (field 22 of
 * /proc/<pid>/stat), and a member of its process group only when it carries the run's marker.
 */

interface ProcessId {
  pid: number;
  /** Clock ticks after boot when it started. */
  start: number;
}

interface EngineRecord extends ProcessId {
  name: string;
  /** Its log folder, the value of its RUN_MARKER. */
  logs: string;
}

interface EnginesFile {
  /** The frontier process that started them. */
  owner: ProcessId;
  engines: EngineRecord[];
}

function stat(pid: number): { state: string; pgid: number; start: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: f[0]!, pgid: Number(f[2]), start: Number(f[19]) };
  } catch {
    return undefined;
  }
}

const running = (id: ProcessId): boolean => {
  const s = stat(id.pid);
  return s !== undefined && s.state !== 'Z' && s.start === id.start;
};

function marked(pid: number, logs: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${RUN_MARKER}=${logs}`);
  } catch {
    return false;
  }
}

/** The live processes of a recorded engine's group: the engine itself, and what it started. */
function survivors(e: EngineRecord): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    const s = Number.isInteger(pid) ? stat(pid) : undefined;
    if (!s || s.state === 'Z' || s.pgid !== e.pid) continue;
    if (pid === e.pid ? s.start === e.start : marked(pid, e.logs)) pids.push(pid);
  }
  return pids;
}

/** Record the engines just started (nothing where there is no /proc to check them by later). */
export function recordEngines(file: string, logs: string, engines: readonly { name: string; pid: number }[]): void {
  const owner = stat(process.pid);
  if (!owner) return;
  const records = engines.flatMap((e) => {
    const s = stat(e.pid);
    return s ? [{ name: e.name, pid: e.pid, start: s.start, logs }] : [];
  });
  const content: EnginesFile = { owner: { pid: process.pid, start: owner.start }, engines: records };
  writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`, { mkdir: true });
}

export function clearEngines(file: string): void {
  rmSync(file, { force: true });
}

/**
 * Stop the engines a previous run of this directory left running (SIGTERM, SIGKILL after
 * `graceMs`) and forget them; one line per engine stopped. A run directory whose frontier process
 * is still running is refused.
 */
export async function stopLeftovers(file: string, graceMs = 5000): Promise<string[]> {
  let record: EnginesFile;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as EnginesFile;
    if (typeof record?.owner?.pid !== 'number' || !Array.isArray(record.engines)) throw new Error('no owner and engines');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RunError(
      `${file}: not a record of engine processes (${(e as Error).message}); check that no engine of this run is still running, then delete it`,
    );
  }
  if (record.owner.pid !== process.pid && running(record.owner))
    throw new RunError(
      `${file}: frontier process ${record.owner.pid} is still running this run directory: stop it first, or choose another --out`,
    );
  const stopped = record.engines.map((e) => ({ e, pids: survivors(e) })).filter((x) => x.pids.length > 0);
  const signal = (pids: number[], s: NodeJS.Signals): void => {
    for (const pid of pids)
      try {
        process.kill(pid, s);
      } catch {
        // exited meanwhile
      }
  };
  for (const { pids } of stopped) signal(pids, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = stopped.flatMap((x) => survivors(x.e));
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = stopped.flatMap((x) => survivors(x.e));
  }
  signal(left, 'SIGKILL');
  clearEngines(file);
  return stopped.map(({ e, pids }) => `${e.name} (pid ${pids.join(', ')}, logs in ${e.logs})`);
}
