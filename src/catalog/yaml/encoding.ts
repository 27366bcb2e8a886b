import { isUtf8 } from 'node:buffer';

/** Line and column (1-based) of a byte offset. */
export function positionOf(raw: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = raw.indexOf(10); i !== -1 && i < offset; i = raw.indexOf(10, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** Byte offset of the first byte that is not valid UTF-8, or -1 when all of `raw` is. */
export function firstInvalidUtf8(raw: Buffer): number {
  if (isUtf8(raw)) return -1;
  // The decoder writes U+FFFD for each invalid sequence; a U+FFFD encoded in the file is EF BF BD.
  const text = new TextDecoder('utf-8').decode(raw);
  let bytes = 0;
  let from = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
    bytes += Buffer.byteLength(text.slice(from, i), 'utf8');
    from = i;
    if (raw[bytes] !== 0xef || raw[bytes + 1] !== 0xbf || raw[bytes + 2] !== 0xbd) return bytes;
  }
  return 0;
}

/**
 * Characters YAML does not allow in a stream (PyYAML rejects them too): C0 controls other than
 * tab, LF and CR, DEL, C1 controls other than NEL, and the noncharacters U+FFFE/U+FFFF.
 */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]/;

/** Index of the first character YAML does not allow, or -1. */
export function firstControl(text: string): number {
  return text.search(CONTROL);
}

/** How a disallowed character is named in messages: `U+0000 (NUL)`. */
export function describeChar(c: string): string {
  const code = c.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code === 0 ? `${hex} (NUL)` : hex;
}
