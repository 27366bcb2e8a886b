/**
 * Engine logs the KV-cache capacity is read from when the metrics do not carry it: the point's
 * `server.log`, and on multinode the `watchtower-*.out` worker logs up to three folders above.
 */
import { closeSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isDir, isFile } from '../../util/fs-kind.js';

/** The first `maxBytes` of a log as text (undecodable bytes replaced, NULs dropped); null when missing. */
export function loadServerLogHead(path: string, maxBytes = 64 * 1024 * 1024): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(Math.min(maxBytes, Math.max(0, statSync(path).size)));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return new TextDecoder('utf-8').decode(buffer.subarray(0, read)).replaceAll('\x00', '');
  } finally {
    closeSync(fd);
  }
}

/** The sum over logs of what the parser finds in each; null when it finds nothing in any. */
export function sumServerLogCapacities(paths: readonly string[], parser: (log: string | null) => number | null): number | null {
  let total = 0;
  let found = false;
  for (const path of paths) {
    const value = parser(loadServerLogHead(path));
    if (value === null) continue;
    total += value;
    found = true;
  }
  return found ? total : null;
}

/** `Path.parents[:3]` of a path as given (lexical, like pathlib: `a/b` has parents `a` and `.`). */
function parents(path: string, count: number): string[] {
  const out: string[] = [];
  let current = path;
  for (let i = 0; i < count; i++) {
    const up = dirname(current);
    if (up === current) break;
    out.push(up);
    current = up;
  }
  return out;
}

/** `server.log` in the result folder, then `watchtower-*.out` there and in up to three parents, without duplicates. */
export function findServerLogPaths(resultDir: string): string[] {
  const paths: string[] = [];
  const direct = join(resultDir, 'server.log');
  if (isFile(direct)) paths.push(direct);
  for (const root of [resultDir, ...parents(resultDir, 3)]) {
    if (!isDir(root)) continue;
    const names = readdirSync(root)
      .filter((n) => n.startsWith('watchtower-') && n.endsWith('.out'))
      .sort();
    for (const name of names) paths.push(join(root, name));
  }
  const seen = new Set<string>();
  return paths.filter((p) => {
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      real = resolve(p);
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}
