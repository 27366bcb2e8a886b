/**
 * Unpacking an uploaded run directory (a .tar.gz) safely: only regular files and directories,
 * every path relative and inside the destination (no absolute paths, no `..`), no links or device
 * nodes, and a bound on the unpacked size and the number of entries (a small gzip can unpack to
 * gigabytes). Reads ustar, pax (`x` path records) and GNU long names, which is what GNU tar,
 * bsdtar and node-tar write.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { UserError } from '../util/user-error.js';

export class ArchiveError extends UserError {}

export interface ArchiveLimits {
  /** Most bytes the archive may unpack to (the tar stream, headers included). */
  maxBytes: number;
  maxEntries: number;
}

const BLOCK = 512;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.toString('utf8', 0, end < 0 ? length : end);
}

function octal(header: Buffer, start: number, length: number): number {
  // GNU base-256 for sizes of 8 GiB and more: far over any limit here.
  if (header[start]! & 0x80) throw new ArchiveError('an entry of 8 GiB or more');
  const text = field(header, start, length).trim();
  const n = text === '' ? 0 : parseInt(text, 8);
  if (!Number.isFinite(n)) throw new ArchiveError('not a tar archive (a malformed header)');
  return n;
}

function checksumOk(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum === octal(header, 148, 8);
}

/** A path from the archive, made safe to join under the destination, or an error naming it. */
function safePath(name: string): string {
  const parts = name
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw new ArchiveError(`absolute path in the archive: ${name}`);
  if (parts.includes('..')) throw new ArchiveError(`path escapes the archive: ${name}`);
  if (name.includes('\0')) throw new ArchiveError('a path with a NUL byte');
  return parts.join('/');
}

/** The records of a pax extended header ("<len> key=value\n"…). */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.toString('latin1', at, space));
    if (!Number.isInteger(length) || length <= 0) throw new ArchiveError('not a tar archive (a malformed pax header)');
    const record = data.toString('utf8', space + 1, at + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

/** Unpack a .tar.gz into `dest` (which must exist and be empty); returns the files written. */
export function extractTarGz(archive: Buffer, dest: string, limits: ArchiveLimits): string[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive, { maxOutputLength: limits.maxBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new ArchiveError(`the archive unpacks to more than ${Math.round(limits.maxBytes / 2 ** 20)} MiB`);
    }
    throw new ArchiveError(`not a gzip file: ${(e as Error).message}`);
  }
  const files: string[] = [];
  let entries = 0;
  let longName: string | undefined;
  let pax: Map<string, string> | undefined;
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    if (!checksumOk(header)) throw new ArchiveError('not a tar archive (a header checksum does not match)');
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!) || '0';
    const dataStart = at + BLOCK;
    if (dataStart + size > tar.length) throw new ArchiveError('a truncated archive');
    const data = tar.subarray(dataStart, dataStart + size);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (++entries > limits.maxEntries) throw new ArchiveError(`more than ${limits.maxEntries} entries in the archive`);

    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g') continue; // global pax header: nothing the store needs
    const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? field(header, 345, 155) : '';
    const name = pax?.get('path') ?? longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    pax = undefined;
    const path = safePath(name);
    if (type === '1' || type === '2')
      throw new ArchiveError(`links are not accepted in an upload: ${name} → ${field(header, 157, 100)}`);
    if (type === '5') {
      if (path) mkdirSync(join(dest, path), { recursive: true });
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7')
      throw new ArchiveError(`not a regular file or directory: ${name} (type ${type})`);
    if (!path) throw new ArchiveError('a file entry without a name');
    mkdirSync(dirname(join(dest, path)), { recursive: true });
    writeFileSync(join(dest, path), data);
    files.push(path);
  }
  return files;
}
