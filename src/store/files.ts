/**
 * Ingest reads only plain files and folders. A symbolic link in a run directory would be followed
 * (a `server_logs_*` link to /etc/passwd would be stored and served to anyone), and a FIFO or a
 * device would hang or flood the read, so any of them refuses the whole directory before a byte
 * is read, as the upload's unpacking does.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import type { IngestProblem } from './rows.js';

function kind(e: Dirent): string {
  if (e.isFIFO()) return 'a FIFO';
  if (e.isSocket()) return 'a socket';
  if (e.isCharacterDevice() || e.isBlockDevice()) return 'a device';
  return 'not a plain file or folder';
}

/** Every link and special file under `root` (not following links), as problems relative to it. */
export function notPlainFiles(root: string): IngestProblem[] {
  const problems: IngestProblem[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      const file = relative(root, path);
      if (e.isDirectory()) walk(path);
      else if (e.isSymbolicLink()) {
        problems.push({
          file,
          message: `a symbolic link (to ${readlinkSync(path)}): ingest reads only plain files and folders; replace the link by the file it points to (cp --remove-destination "$(readlink -f ${file})" ${file}) or remove it`,
        });
      } else if (!e.isFile()) {
        problems.push({ file, message: `${kind(e)}: ingest reads only plain files and folders; remove it` });
      }
    }
  };
  walk(root);
  return problems;
}
