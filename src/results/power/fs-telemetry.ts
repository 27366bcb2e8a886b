/** `TelemetryFiles` over the real file system, relative paths taken from `cwd`. */
import { lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import type { PathKind, TelemetryFiles } from './common.js';

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
