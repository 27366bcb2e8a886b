/** `--db` and opening the store it names: the same for every command that reads or writes the store. */
import { userPath, pathOption } from './paths.js';
import { UserError } from '../util/user-error.js';

export const dbOption = () =>
  pathOption('--db <location>', 'the store: a SQLite file or a postgres:// URL (default $FRONTIER_DB, else ./frontier.db)');

/** Open the store `--db` names (else $FRONTIER_DB, else ./frontier.db); the store and its drivers load only now. */
export async function openDb(db: string | undefined) {
  const { openStore, storeLocation } = await import('../store/index.js');
  try {
    return await openStore(userPath(storeLocation(db)));
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}
