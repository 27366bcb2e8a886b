import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A job's `exits.txt` (slurm-script.ts writes it): each step's name and exit status, one per line. */
export function readExits(logDir: string): Map<string, string> {
  const file = join(logDir, 'exits.txt');
  return new Map(
    (existsSync(file) ? readFileSync(file, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

/** Whether the job's readiness barrier passed (slurm-script.ts writes `ready.txt` then): its engine served. */
export const jobWasReady = (logDir: string): boolean => existsSync(join(logDir, 'ready.txt'));
