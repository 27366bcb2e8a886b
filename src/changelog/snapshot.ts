import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { UserError } from '../util/user-error.js';

const run = promisify(execFile);

/**
 * One side of a change: the repository files at a git ref (read with `git show`, no checkout,
 * so a shallow clone holding both commits is enough) or in a directory.
 */
export interface Snapshot {
  /** How the side is named in `changelog_metadata` (the ref, or the directory). */
  label: string;
  /** How a file of this side is named in messages: `REF:path` (git's notation) or `dir/path`. */
  display(path: string): string;
  /** A file's bytes, or undefined when it does not exist on this side. */
  read(path: string): Promise<Buffer | undefined>;
  /** Master-config files: `configs/*-master.yaml`, sorted (amd before nvidia, as the reference lists them). */
  masterConfigs(): Promise<string[]>;
  /** Every file below a directory (recursively; `` for the whole tree, without .git), as repository-relative paths, sorted. */
  list(dir: string): Promise<string[]>;
  /** Many files at once (one git process for a ref): path → bytes, absent paths left out. */
  readMany(paths: readonly string[]): Promise<Map<string, Buffer>>;
}

const MASTER = /^configs\/[^/]*-master\.ya?ml$/;

/**
 * A git side reads each file once: a revision's files cannot change, and a review reads the same
 * ones from several rules (a git process per read costs more than the read).
 */
export function gitSnapshot(ref: string, repo = '.'): Snapshot {
  return remembered(gitReader(ref, repo));
}

function remembered(snapshot: Snapshot): Snapshot {
  const reads = new Map<string, Promise<Buffer | undefined>>();
  const lists = new Map<string, Promise<string[]>>();
  let masters: Promise<string[]> | undefined;
  const once = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let p = cache.get(key);
    if (!p) cache.set(key, (p = load()));
    return p;
  };
  return {
    ...snapshot,
    read: (path) => once(reads, path, () => snapshot.read(path)),
    list: (dir) => once(lists, dir, () => snapshot.list(dir)),
    masterConfigs: () => (masters ??= snapshot.masterConfigs()),
    async readMany(paths) {
      const missing = paths.filter((p) => !reads.has(p));
      if (missing.length > 0) {
        const batch = snapshot.readMany(missing);
        for (const path of missing)
          reads.set(
            path,
            batch.then((m) => m.get(path)),
          );
      }
      const out = new Map<string, Buffer>();
      for (const path of paths) {
        const bytes = await reads.get(path)!;
        if (bytes) out.set(path, bytes);
      }
      return out;
    },
  };
}

function gitReader(ref: string, repo: string): Snapshot {
  let paths: Promise<string[]> | undefined;
  // Every file of the revision, listed once; list() and masterConfigs() filter it.
  const allPaths = (): Promise<string[]> =>
    (paths ??= run('git', ['ls-tree', '-r', '--name-only', '-z', ref], { cwd: repo, maxBuffer: 64 << 20 }).then(
      ({ stdout }) => stdout.split('\0').filter(Boolean).sort(),
      (e: unknown) => {
        const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
        throw new UserError(`cannot list the files of ${ref}: ${stderr || (e as Error).message}`);
      },
    ));
  let verified: Promise<void> | undefined;
  // cat-file answers "missing" for a bad revision as for a missing file: tell the two apart.
  const verify = (): Promise<void> =>
    (verified ??= run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{tree}`], { cwd: repo }).then(
      () => undefined,
      () => {
        throw new UserError(`cannot read ${ref}: it is not a revision of ${resolve(repo)}`);
      },
    ));
  // Reads asked for in the same turn of the event loop go to one `git cat-file --batch`.
  let pending: { path: string; done: (bytes: Buffer | undefined) => void; fail: (e: unknown) => void }[] = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    catFile(repo, ref, [...new Set(batch.map((b) => b.path))])
      .then(async (found) => {
        if (batch.some((b) => !found.has(b.path))) await verify();
        for (const b of batch) b.done(found.get(b.path));
      })
      .catch((e: unknown) => batch.forEach((b) => b.fail(e)));
  };
  const read = (path: string): Promise<Buffer | undefined> =>
    new Promise((done, fail) => {
      if (pending.push({ path, done, fail }) === 1) setImmediate(flush);
    });
  return {
    label: ref,
    display: (path) => `${ref}:${path}`,
    read,
    async list(dir) {
      const all = await allPaths();
      return dir === '' ? all : all.filter((p) => p.startsWith(`${dir.replace(/\/+$/, '')}/`));
    },
    async readMany(wanted) {
      const bytes = await Promise.all(wanted.map(read));
      const out = new Map<string, Buffer>();
      wanted.forEach((path, i) => bytes[i] && out.set(path, bytes[i]));
      return out;
    },
    masterConfigs: async () => (await allPaths()).filter((p) => MASTER.test(p)),
  };
}

/** The files of a revision, by path (absent: no such file), read by one `git cat-file --batch`. */
async function catFile(repo: string, ref: string, paths: string[]): Promise<Map<string, Buffer>> {
  const stdout = await new Promise<Buffer>((resolvePromise, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], { cwd: repo });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(Buffer.concat(chunks)) : reject(new UserError(`git cat-file failed at ${ref}`)),
    );
    child.stdin.end(paths.map((p) => `${ref}:${p}\n`).join(''));
  });
  const out = new Map<string, Buffer>();
  let offset = 0;
  for (const path of paths) {
    const eol = stdout.indexOf(10, offset);
    const header = stdout.subarray(offset, eol).toString();
    offset = eol + 1;
    const m = /^\S+ blob (\d+)$/.exec(header);
    if (!m) continue; // "<object> missing"
    const size = Number(m[1]);
    out.set(path, stdout.subarray(offset, offset + size));
    offset += size + 1;
  }
  return out;
}

/** The full message of a commit (for opt-outs such as `[skip-sweep]`). */
export async function commitMessage(ref: string, repo = '.'): Promise<string> {
  try {
    return (await run('git', ['log', '-1', '--format=%B', ref], { cwd: repo })).stdout;
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    throw new UserError(`cannot read the message of ${ref}: ${stderr || (e as Error).message}`);
  }
}

export function dirSnapshot(dir: string, label = dir): Snapshot {
  return {
    label,
    display: (path) => join(dir, path),
    async read(path) {
      try {
        return await readFile(resolve(dir, path));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async list(sub) {
      const out: string[] = [];
      const walk = async (rel: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(join(dir, rel), { withFileTypes: true });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
          throw e;
        }
        for (const entry of entries) {
          if (rel === '' && (entry.name === '.git' || entry.name === 'node_modules')) continue;
          const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
          if (entry.isDirectory()) await walk(path);
          else if (entry.isFile()) out.push(path);
        }
      };
      await walk(sub.replace(/\/+$/, ''));
      return out.sort();
    },
    async readMany(paths) {
      const out = new Map<string, Buffer>();
      await Promise.all(
        paths.map(async (p) => {
          const data = await this.read(p);
          if (data) out.set(p, data);
        }),
      );
      return out;
    },
    async masterConfigs() {
      try {
        return (await readdir(join(dir, 'configs')))
          .map((name) => `configs/${name}`)
          .filter((p) => MASTER.test(p))
          .sort();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}

/** A line of a unified diff: + added, - deleted, with its 1-based line number on its side. */
export interface DiffLine {
  kind: '+' | '-';
  text: string;
  line: number;
}

/**
 * The added and deleted lines between two versions of a file, exactly as `git diff` reports
 * them (the reference gate reads `git diff base head -- file`). Both sides go through
 * `git diff --no-index`, so refs and directories are diffed the same way.
 */
export function diffLines(base: Buffer, head: Buffer): Promise<DiffLine[]> {
  // A review diffs the same two changelogs from several rules: once is enough.
  const id = createHash('sha256').update(base).update('\0').update(head).digest('hex');
  let diff = recentDiffs.get(id);
  if (!diff) {
    diff = gitDiff(base, head);
    recentDiffs.set(id, diff);
    if (recentDiffs.size > 8) recentDiffs.delete(recentDiffs.keys().next().value!);
  }
  return diff;
}

const recentDiffs = new Map<string, Promise<DiffLine[]>>();

async function gitDiff(base: Buffer, head: Buffer): Promise<DiffLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'frontier-diff-'));
  try {
    await Promise.all([writeFile(join(dir, 'base'), base), writeFile(join(dir, 'head'), head)]);
    let stdout = '';
    try {
      ({ stdout } = await run(
        'git',
        ['diff', '--no-index', '--no-color', '--no-ext-diff', '--diff-algorithm=myers', '--', 'base', 'head'],
        { cwd: dir, maxBuffer: 256 << 20 },
      ));
    } catch (e) {
      // Exit status 1 means "the files differ".
      if ((e as { code?: number }).code !== 1) throw new UserError(`git diff failed: ${(e as Error).message}`);
      stdout = (e as { stdout: string }).stdout;
    }
    return parseUnifiedDiff(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let baseLine = 0;
  let headLine = 0;
  for (const line of diff.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      baseLine = Number(hunk[1]);
      headLine = Number(hunk[2]);
    } else if (line.startsWith('-') && !line.startsWith('---')) {
      out.push({ kind: '-', text: line.slice(1), line: baseLine++ });
    } else if (line.startsWith('+') && !line.startsWith('+++')) {
      out.push({ kind: '+', text: line.slice(1), line: headLine++ });
    } else if (line.startsWith(' ')) {
      baseLine++;
      headLine++;
    }
  }
  return out;
}
