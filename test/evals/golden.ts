import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { INFERENCEX, readFixture, tempFiles, testTempDir } from '../helpers.js';

/** The eval goldens (golden/evals/README.md), where the reference fixtures are (test/helpers.ts). */
export const EVALS = 'golden/evals';

/** Every file under a fixture folder, as path (relative to it, `.gz` dropped) → text. */
export function fixtureTree(rel: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (sub: string): void => {
    for (const name of readdirSync(join(INFERENCEX, rel, sub))) {
      const path = sub === '' ? name : `${sub}/${name}`;
      if (statSync(join(INFERENCEX, rel, path)).isDirectory()) walk(path);
      else files[path.replace(/\.gz$/, '')] = readFixture(`${rel}/${path.replace(/\.gz$/, '')}`);
    }
  };
  walk('');
  return files;
}

/** A fixture folder as plain files in a fresh temporary directory (fresh mtimes, no `.gz`). */
export const materialize = (rel: string): string => tempFiles(fixtureTree(rel));

/** An empty temporary directory. */
export const emptyDir = testTempDir;

/** JSON lines of a fixture file. */
export const jsonLines = <T>(rel: string): T[] =>
  readFixture(rel)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
