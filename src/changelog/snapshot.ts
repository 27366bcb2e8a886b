import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

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

export class SnapshotError extends Error {}

const MASTER = /^configs\/[^/]*-master\.ya?ml$/;

export function gitSnapshot(ref: string, repo = '.'): Snapshot {
  return {
    label: ref,
    display: (path) => `${ref}:${path}`,
    async read(path) {
      try {
        const { stdout } = await run('git', ['show', `${ref}:${path}`], { cwd: repo, encoding: 'buffer', maxBuffer: 256 << 20 });
        return stdout;
      } catch (e) {
        const stderr = String((e as { stderr?: Buffer }).stderr ?? '');
        if (/does not exist in|exists on disk, but not in/.test(stderr)) return undefined;
        throw new SnapshotError(`cannot read ${path} at ${ref}: ${stderr.trim() || (e as Error).message}`);
      }
    },
    async list(dir) {
      const paths = dir === '' ? [] : ['--', dir];
      try {
        const { stdout } = await run('git', ['ls-tree', '-r', '--name-only', '-z', ref, ...paths], {
          cwd: repo,
          maxBuffer: 64 << 20,
        });
        return stdout.split('\0').filter(Boolean).sort();
      } catch (e) {
        const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
        throw new SnapshotError(`cannot list ${dir || 'the tree'} at ${ref}: ${stderr || (e as Error).message}`);
      }
    },
    async readMany(paths) {
      const out = new Map<string, Buffer>();
      if (paths.length === 0) return out;
      const stdout = await new Promise<Buffer>((resolvePromise, reject) => {
        const child = spawn('git', ['cat-file', '--batch'], { cwd: repo });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (c: Buffer) => chunks.push(c));
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolvePromise(Buffer.concat(chunks)) : reject(new SnapshotError(`git cat-file failed at ${ref}`)),
        );
        child.stdin.end(paths.map((p) => `${ref}:${p}\n`).join(''));
      });
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
    },
    async masterConfigs() {
      try {
        const { stdout } = await run('git', ['ls-tree', '--name-only', `${ref}:configs`], { cwd: repo });
        return stdout
          .split('\n')
          .map((name) => `configs/${name}`)
          .filter((p) => MASTER.test(p))
          .sort();
      } catch (e) {
        const stderr = String((e as { stderr?: string }).stderr ?? '');
        if (/Not a valid object name|not a tree object/.test(stderr)) return [];
        throw new SnapshotError(`cannot list configs/ at ${ref}: ${stderr.trim() || (e as Error).message}`);
      }
    },
  };
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
export async function diffLines(base: Buffer, head: Buffer): Promise<DiffLine[]> {
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
      if ((e as { code?: number }).code !== 1) throw new SnapshotError(`git diff failed: ${(e as Error).message}`);
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
