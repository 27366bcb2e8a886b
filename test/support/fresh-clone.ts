// A fresh clone of this checkout's working tree, as a new user gets it with `git clone`: tracked and
// untracked files that git does not ignore, nothing it ignores (no dist/, runs/, .cache/). The
// checkout's own index, HEAD and files are left alone. node_modules is the checkout's (a link):
// these tests are about what happens after `npm ci`, not about the registry.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'frontier tests',
  GIT_AUTHOR_EMAIL: 'tests@frontier.invalid',
  GIT_COMMITTER_NAME: 'frontier tests',
  GIT_COMMITTER_EMAIL: 'tests@frontier.invalid',
};

function git(args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY, ...env }, encoding: 'utf8' }).trim();
}

/** The working tree as a commit object on top of HEAD, written through a throw-away index. */
function workingTreeCommit(scratch: string): string {
  const env = { GIT_INDEX_FILE: join(scratch, 'index') };
  git(['read-tree', 'HEAD'], REPO, env);
  git(['add', '--all', '.'], REPO, env);
  const tree = git(['write-tree'], REPO, env);
  return git(['commit-tree', tree, '-p', 'HEAD', '-m', 'the working tree, for a fresh-clone test'], REPO);
}

export interface FreshClone {
  /** The clone's root. */
  dir: string;
  /** Removes the clone (and whatever ran in it left behind). */
  remove(): void;
}

export function freshClone(): FreshClone {
  const scratch = mkdtempSync(join(tmpdir(), 'frontier-clone-'));
  const dir = join(scratch, 'frontier');
  const commit = workingTreeCommit(scratch);
  // A local clone copies the object store, so the commit above is there without a ref.
  git(['clone', '--quiet', '--no-checkout', REPO, dir], scratch);
  git(['checkout', '--quiet', '--detach', commit], dir);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return { dir, remove: () => rmSync(scratch, { recursive: true, force: true }) };
}
