import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CloneRoute } from '../inferencex/clone-routes.js';

// The commit an imported rule pins, resolving a launcher's moving refs with git when asked.

const run = promisify(execFile);

/** The commit a rule pins: the route's own, the one its ref resolves to now, or (unresolved) the ref as written. */
export async function pin(
  route: CloneRoute,
  resolver: RefResolver | undefined,
): Promise<{ commit: string; note?: string; unpinned?: string }> {
  const { ref } = route;
  if ((ref.kind === 'commit' || ref.kind === 'verified') && ref.commit) {
    return {
      commit: ref.commit,
      note: ref.kind === 'verified' ? `${ref.value} verified against this commit at line ${ref.line}` : undefined,
    };
  }
  const written = ref.kind === 'default' ? 'the default branch' : `${ref.kind} ${ref.value}`;
  if (resolver) {
    const commit = await resolver.resolve(route.repo, ref.kind === 'default' ? 'HEAD' : ref.value!);
    if (commit)
      return {
        commit,
        note: `${written} at line ${ref.line}, resolved to this commit on ${new Date().toISOString().slice(0, 10)}`,
      };
  }
  return { commit: ref.value ?? 'HEAD', note: `${written} at line ${ref.line}: not pinned`, unpinned: written };
}

/** Resolves refs with `git ls-remote`, or for a short sha in a blobless clone; undefined when it cannot. */
export class RefResolver {
  private clones = new Map<string, Promise<string | undefined>>();
  private dir: Promise<string> | undefined;

  async resolve(repo: string, ref: string): Promise<string | undefined> {
    if (/^[0-9a-f]{7,39}$/i.test(ref)) return this.shortSha(repo, ref);
    try {
      const { stdout } = await run('git', ['ls-remote', repo, ref, `${ref}^{}`], { timeout: 60_000 });
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t'));
      // An annotated tag: the commit it points to (`^{}`); else the ref itself.
      const peeled = lines.find(([, name]) => name?.endsWith('^{}')) ?? lines[0];
      return peeled?.[0];
    } catch {
      return undefined;
    }
  }

  private async shortSha(repo: string, sha: string): Promise<string | undefined> {
    this.dir ??= mkdtemp(join(tmpdir(), 'frontier-refs-'));
    const dir = join(await this.dir, String(this.clones.size));
    if (!this.clones.has(repo))
      this.clones.set(
        repo,
        run('git', ['clone', '-q', '--bare', '--filter=blob:none', repo, dir], { timeout: 300_000 }).then(
          () => dir,
          () => undefined,
        ),
      );
    const clone = await this.clones.get(repo);
    if (!clone) return undefined;
    try {
      return (await run('git', ['rev-parse', '--verify', `${sha}^{commit}`], { cwd: clone })).stdout.trim();
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }
}
