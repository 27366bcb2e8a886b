import { statSync } from 'node:fs';
import type { Stats } from 'node:fs';

/** `path`'s stats, following links; undefined when there is nothing to stat (missing, or a file in the way). */
function stats(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Whether `path` is a regular file (following links). */
export const isFile = (path: string): boolean => stats(path)?.isFile() ?? false;

/** Whether `path` is a folder (following links). */
export const isDir = (path: string): boolean => stats(path)?.isDirectory() ?? false;
