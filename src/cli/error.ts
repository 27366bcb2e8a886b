import { statSync } from 'node:fs';
import { UserError } from '../util/user-error.js';

/**
 * A directory the user named must exist: a missing one is an error, never read as an empty tree
 * (which would let a review or lint pass on nothing).
 */
export function requireDirectory(path: string, what: string): string {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `${what} ${path} does not exist: give an existing directory`
        : `${what} ${path} cannot be read: ${(e as Error).message}`,
    );
  }
  if (!isDirectory) throw new UserError(`${what} ${path} is a file, not a directory: give the directory it is in`);
  return path;
}
