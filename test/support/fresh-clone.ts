// scripts/fresh-clone.mjs (shared with perf/), typed for the tests.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers.js';

export interface FreshClone {
  /** The clone's root. */
  dir: string;
  /** Removes the clone (and whatever ran in it left behind). */
  remove(): void;
}

export const freshClone = async (): Promise<FreshClone> =>
  ((await import(pathToFileURL(join(REPO, 'scripts/fresh-clone.mjs')).href)) as { freshClone(): FreshClone }).freshClone();
