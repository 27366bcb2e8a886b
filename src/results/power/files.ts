/** Where a power step reads telemetry from: the file system, or an in-memory tree (tests). */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PathKind, TelemetryFiles } from './common.js';

/** The file system, relative paths resolved from `cwd`. Text is UTF-8 with undecodable bytes replaced (a BOM kept). */
export function fsTelemetry(cwd = '.'): TelemetryFiles {
  const at = (path: string): string => resolve(cwd, path);
  return {
    kind(path: string): PathKind {
      try {
        const stat = statSync(at(path));
        if (stat.isDirectory()) return 'dir';
        if (stat.isFile()) return stat.size === 0 ? 'empty-file' : 'file';
        return 'missing';
      } catch {
        return 'missing';
      }
    },
    read: (path: string): string => readFileSync(at(path)).toString('utf8'),
    list(path: string) {
      return readdirSync(at(path), { withFileTypes: true })
        .map((e) => ({
          name: e.name,
          kind: e.isSymbolicLink()
            ? ('symlink' as const)
            : e.isDirectory()
              ? ('dir' as const)
              : e.isFile()
                ? statSync(at(`${path}/${e.name}`)).size === 0
                  ? ('empty-file' as const)
                  : ('file' as const)
                : ('other' as const),
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
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
