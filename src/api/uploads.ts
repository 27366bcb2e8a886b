/**
 * Where uploads wait while they are checked: one temp directory per upload, named
 * `frontier-upload-<pid>-<random>` in a known folder (the system temp dir by default), so that a
 * server starting after a killed one can find and remove what the dead process left. The body is
 * streamed to a file there with the size limit enforced while it arrives; nothing holds it in memory.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UserError } from '../util/user-error.js';
import { processAlive } from '../util/process-alive.js';

/** The largest ingest upload by default, MiB (`frontier serve --max-upload-mb`). */
export const DEFAULT_MAX_UPLOAD_MB = 256;
/** How many times the upload an archive may unpack to: a gzip bomb stops there. */
export const UNPACKED_UPLOAD_FACTOR = 4;
/** Entries (files and folders) an uploaded archive may hold: a run directory has a few hundred. */
export const MAX_ARCHIVE_ENTRIES = 100_000;

const PREFIX = 'frontier-upload-';

/** A fresh upload directory under `root`, owned by this process. */
export function uploadDir(root: string): string {
  return mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
}

/** Remove the upload directories under `root` whose process is gone (a server that was killed); returns them. */
export function sweepStaleUploads(root: string): string[] {
  const stale: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return stale;
  }
  for (const name of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    removeTree(join(root, name));
    stale.push(name);
  }
  return stale;
}

/**
 * Delete a directory tree of any depth without recursion and without long paths: each directory's
 * children are moved up into `root` before it is removed, so no path is ever deeper than two levels
 * (fs.rmSync recurses on the JS stack and overflows it at ~10,000 levels; fs.rm builds paths past
 * PATH_MAX). Links are removed, never followed.
 */
export function removeTree(root: string): void {
  const tag = `.removing-${randomBytes(6).toString('hex')}-`;
  let moved = 0;
  for (;;) {
    let entries;
    try {
      entries = readdirSync(root, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (entries.length === 0) break;
    for (const entry of entries) {
      const path = join(root, entry.name);
      if (!entry.isDirectory()) {
        unlinkSync(path);
        continue;
      }
      for (const child of readdirSync(path)) renameSync(join(path, child), join(root, `${tag}${moved++}`));
      rmdirSync(path);
    }
  }
  rmdirSync(root);
}

export class UploadTooLarge extends UserError {}

/**
 * Write the request body to `file`, failing with UploadTooLarge as soon as it passes `limit` bytes.
 * The body is not destroyed on failure (the server can still answer on its connection); returns its size.
 */
export async function receiveUpload(body: Readable, file: string, limit: number): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) callback(new UploadTooLarge(`the upload is larger than ${limit} bytes`));
      else callback(null, chunk);
    },
  });
  const written = pipeline(counter, createWriteStream(file));
  body.once('error', (e) => counter.destroy(e));
  body.once('close', () => {
    if (!body.readableEnded) counter.destroy(new Error('the upload was cut off before its end'));
  });
  body.pipe(counter);
  try {
    await written;
  } finally {
    body.unpipe(counter);
  }
  return size;
}
