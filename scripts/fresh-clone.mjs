// A fresh clone of this checkout's working tree, as a new user gets it with `git clone`: tracked and
// untracked files that git does not ignore, nothing it ignores (no dist/, runs/, node_modules/). The
// checkout's own index, HEAD and files are left alone. node_modules is the checkout's (a link): what
// runs in the clone is what happens after `npm ci`, not the registry. For the npm start test and perf.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const IDENTITY = {
  GIT_AUTHOR_NAME: 'frontier',
  GIT_AUTHOR_EMAIL: 'frontier@localhost.invalid',
  GIT_COMMITTER_NAME: 'frontier',
  GIT_COMMITTER_EMAIL: 'frontier@localhost.invalid',
};

const git = (args, cwd, env = {}) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY, ...env }, encoding: 'utf8' }).trim();

/** The working tree as a commit object on top of HEAD, written through a throw-away index. */
function workingTreeCommit(scratch) {
  const env = { GIT_INDEX_FILE: join(scratch, 'index') };
  git(['read-tree', 'HEAD'], REPO, env);
  git(['add', '--all', '.'], REPO, env);
  const tree = git(['write-tree'], REPO, env);
  return git(['commit-tree', tree, '-p', 'HEAD', '-m', 'the working tree, for a fresh clone'], REPO);
}

/** `{ dir, remove }`: the clone's root, and a function that removes it and all that ran in it left. */
export function freshClone() {
  const scratch = mkdtempSync(join(tmpdir(), 'frontier-clone-'));
  const dir = join(scratch, 'frontier');
  const commit = workingTreeCommit(scratch);
  // A local clone copies the object store, so the commit above is there without a ref.
  git(['clone', '--quiet', '--no-checkout', REPO, dir], scratch);
  git(['checkout', '--quiet', '--detach', commit], dir);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return { dir, remove: () => rmSync(scratch, { recursive: true, force: true }) };
}
