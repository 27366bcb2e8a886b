/**
 * Files as the reference scripts see them: `str(Path(...))`, the text of the `OSError` that
 * `open()` raises, and `json.load(open(path))`.
 */
import { readFileSync } from 'node:fs';
import { pyRepr } from './builtins.js';
import { PyJsonSyntaxError, loads } from './json.js';

/** `str(Path(p))` on POSIX: repeated and trailing slashes and `.` components go, `""` is `"."`. */
export function pyPath(p: string): string {
  const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
  const parts = p.split('/').filter((part) => part !== '' && part !== '.');
  return root + parts.join('/') || '.';
}

const ERRNO: Record<string, [number, string]> = {
  ENOENT: [2, 'No such file or directory'],
  EACCES: [13, 'Permission denied'],
  EISDIR: [21, 'Is a directory'],
  ENOTDIR: [20, 'Not a directory'],
};

/** The text of the OSError Python raises for `open(path)`: `[Errno 2] No such file or directory: 'x'`. */
function osErrorText(e: unknown, path: string): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const known = ERRNO[code];
  if (known) return `[Errno ${known[0]}] ${known[1]}: ${pyRepr(path)}`;
  return `${(e as Error).message}: ${pyRepr(path)}`;
}

export type JsonRead = { ok: true; value: unknown } | { ok: false; kind: 'os' | 'json'; error: string };

/**
 * `json.load(open(path))`, the error as Python prints it. `shown` is the path as the reference
 * would name it (relative to its working directory).
 */
export function readPyJson(path: string, shown: string): JsonRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { ok: false, kind: 'os', error: osErrorText(e, shown) };
  }
  try {
    return { ok: true, value: loads(text) };
  } catch (e) {
    if (e instanceof PyJsonSyntaxError) return { ok: false, kind: 'json', error: e.describe(text) };
    throw e;
  }
}
