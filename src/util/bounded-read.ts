import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * A file from input read whole only when it is a regular file of at most `maxBytes`: a device
 * (`/dev/zero`) or a FIFO would never end, and a huge file would be held in memory whole. Returns
 * the bytes, or why not in words that fit after the file's name ("is not a regular file…").
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | { refused: string } {
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO returns at once; the kind is checked on what was opened.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { refused: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { refused: 'is not a regular file (a device, FIFO or folder is never read)' };
    if (stat.size > maxBytes)
      return { refused: `is larger than ${maxBytes.toLocaleString('en-US')} bytes (${stat.size.toLocaleString('en-US')})` };
    // One byte more than the size: a file that grew since the check is refused, not cut.
    const buffer = Buffer.alloc(stat.size + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > stat.size) return { refused: 'grew while it was read' };
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * readRegularFile, then for a `.gz` file its contents, unpacked to at most `maxUnpackedBytes`
 * (a few MB of gzip can unpack to gigabytes): the bytes, or why not.
 */
export function readUnpacked(path: string, maxBytes: number, maxUnpackedBytes: number): Buffer | { refused: string } {
  const bytes = readRegularFile(path, maxBytes);
  if (!Buffer.isBuffer(bytes) || !path.endsWith('.gz')) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: maxUnpackedBytes });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      return { refused: `unpacks to more than ${maxUnpackedBytes.toLocaleString('en-US')} bytes` };
    return { refused: `is not gzip (${(e as Error).message})` };
  }
}
