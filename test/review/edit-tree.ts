import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempFiles } from '../helpers.js';

/** Changes to a copy of a tree, for the review tests. */

/** A fresh copy of `base` to change. */
export function copyTree(base: string): string {
  const dir = join(tempFiles({}), 'head');
  cpSync(base, dir, { recursive: true });
  return dir;
}

/** Replace the first `old` in a file (after `anchor` when given); the test fails if it is not there. */
export function edit(dir: string, path: string, old: string, replacement: string, anchor = ''): void {
  const text = readFileSync(join(dir, path), 'utf8');
  const from = text.indexOf(anchor);
  const at = text.indexOf(old, from);
  if (from < 0 || at < 0) throw new Error(`test setup: ${JSON.stringify(old)} not in ${path}`);
  writeFileSync(join(dir, path), text.slice(0, at) + replacement + text.slice(at + old.length));
}

export function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}
