// The build before, for timing side by side: `frontier` built from another revision of this
// repository ($PERF_BASELINE, default HEAD: the last commit, so a working tree's changes are
// timed against what they change; `none` skips it). Built in a temporary folder from `git
// archive`, with this checkout's node_modules.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `{ label, cli }` of the baseline build, or undefined (with the reason printed) when there is none. */
export function baselineBuild(repo) {
  const rev = process.env.PERF_BASELINE ?? 'HEAD';
  if (rev === 'none') return undefined;
  let sha;
  try {
    sha = execFileSync('git', ['-C', repo, 'rev-parse', '--short', `${rev}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    console.log(`  (no baseline: ${rev} is not a revision of ${repo}; set PERF_BASELINE to one, or to none)`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'frontier-perf-baseline-'));
  execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, repo, sha, dir]);
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8' });
  if (built.status !== 0) {
    console.log(`  (no baseline: building ${sha} failed: ${built.stderr.trim().split('\n').at(-1)})`);
    return undefined;
  }
  return { label: sha, cli: join(dir, 'dist', 'frontier.cjs') };
}
