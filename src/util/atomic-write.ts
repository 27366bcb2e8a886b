import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files written whole or not at all: the data goes to a temporary file in the target's own
 * directory (so the rename stays on one file system), which is then renamed over the target. A
 * reader sees the old file or the new one, never a part; a temporary file is removed when a step
 * fails. Temporary names are hidden (`.…frontier-tmp`) and end in neither `.json` nor `.jsonl`,
 * so nothing that lists a directory for results picks one up.
 */

export interface AtomicWriteOptions {
  /** Create the target's directory (and its parents) first. */
  mkdir?: boolean;
}

type Data = string | NodeJS.ArrayBufferView;

const tempFor = (path: string): string => join(dirname(path), `.${process.pid}-${randomBytes(4).toString('hex')}.frontier-tmp`);

/** Write `data` to `path` whole or not at all. */
export function writeFileAtomic(path: string, data: Data, options: AtomicWriteOptions = {}): void {
  writeFilesAtomic([[path, data]], options);
}

/**
 * Write every file under a temporary name first, then rename each over its target: a failed
 * write leaves every target as it was (a failed rename, those before it replaced).
 */
export function writeFilesAtomic(
  files: readonly (readonly [path: string, data: Data])[],
  options: AtomicWriteOptions = {},
): void {
  const staged: [temp: string, target: string][] = [];
  try {
    for (const [path, data] of files) {
      if (options.mkdir) mkdirSync(dirname(path), { recursive: true });
      const temp = tempFor(path);
      staged.push([temp, path]);
      writeFileSync(temp, data);
    }
    for (const [temp, target] of staged) renameSync(temp, target);
  } catch (e) {
    for (const [temp] of staged) {
      try {
        rmSync(temp, { force: true });
      } catch {
        // The first error is the one to report.
      }
    }
    throw e;
  }
}
