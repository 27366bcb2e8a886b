/** Where a power step reads telemetry from: the file system, or an in-memory tree (tests). */
import { lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import type { PathKind, TelemetryFiles } from './common.js';

/** The file system, relative paths taken from `cwd`. Text is UTF-8 with undecodable bytes replaced (a BOM kept). */
export function fsTelemetry(cwd: string = process.cwd()): TelemetryFiles {
  const abs = (p: string): string => (isAbsolute(p) ? p : join(cwd, p));
  const kindOf = (p: string): PathKind => {
    try {
      const st = statSync(p);
      if (st.isDirectory()) return 'dir';
      if (st.isFile()) return st.size === 0 ? 'empty-file' : 'file';
      return 'missing';
    } catch {
      return 'missing';
    }
  };
  /** realpath of the longest existing prefix, the rest appended (Path.resolve(strict=False)). */
  const resolveLoose = (p: string): string => {
    const full = resolvePath(abs(p));
    try {
      return realpathSync(full);
    } catch {
      const parent = dirname(full);
      return parent === full ? full : join(resolveLoose(parent), basename(full));
    }
  };
  return {
    kind: (p) => kindOf(abs(p)),
    read: (p) => readFileSync(abs(p)).toString('utf8'),
    list: (p) =>
      readdirSync(abs(p))
        .sort()
        .map((name) => {
          const full = join(abs(p), name);
          const l = lstatSync(full);
          if (l.isSymbolicLink()) return { name, kind: 'symlink' as const };
          if (l.isDirectory() || l.isFile()) return { name, kind: kindOf(full) };
          return { name, kind: 'other' as const };
        }),
    resolve: resolveLoose,
  };
}

/** `a/./b//c/` → `a/b/c`; `.` and `` → ``. */
const norm = (p: string): string =>
  p
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');

/** No telemetry anywhere, as on a machine that ran no GPU monitor. */
export const NO_TELEMETRY_FILES: TelemetryFiles = memoryTelemetry({});

/**
 * Files held in memory (relative paths; folders are implied by the paths under them). A value of
 * `null` is a file that exists but cannot be read.
 */
export function memoryTelemetry(files: Record<string, string | null>): TelemetryFiles {
  const entries = new Map(Object.entries(files).map(([p, text]) => [norm(p), text] as const));
  const isDir = (p: string): boolean => p === '' || [...entries.keys()].some((k) => k.startsWith(`${p}/`));
  const kind = (path: string): PathKind => {
    const p = norm(path);
    if (entries.has(p)) return entries.get(p) === '' ? 'empty-file' : 'file';
    return isDir(p) ? 'dir' : 'missing';
  };
  return {
    kind,
    read(path: string): string {
      const p = norm(path);
      const text = entries.get(p);
      if (text === undefined)
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      if (text === null) throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
      return text;
    },
    list(path: string) {
      const p = norm(path);
      const prefix = p === '' ? '' : `${p}/`;
      const names = new Set<string>();
      for (const k of entries.keys()) if (k.startsWith(prefix)) names.add(k.slice(prefix.length).split('/')[0]!);
      return [...names].sort().map((name) => ({ name, kind: kind(prefix + name) }));
    },
  };
}
