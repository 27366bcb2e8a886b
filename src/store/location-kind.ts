import { closeSync, existsSync, openSync, readSync } from 'node:fs';

/** What a store location names, told without opening it (and without loading a database driver). */

export const isPostgres = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** A PostgreSQL URL, or a file that starts as SQLite databases do. */
export function isStoreLocation(location: string): boolean {
  if (isPostgres(location)) return true;
  if (!existsSync(location)) return false;
  const fd = openSync(location, 'r');
  try {
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return head.toString('latin1').startsWith('SQLite format 3');
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
