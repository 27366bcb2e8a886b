import type { PathSegment, Problem } from '../problems.js';
import { duplicateKeyProblem, locateIn, locateKeyIn, yamlProblem } from './document.js';
import type { Located, Pos } from './document.js';
import { describeChar, firstControl, firstInvalidUtf8, positionOf } from './encoding.js';
import { parseFast } from './fast.js';
import type { parseFull as ParseFull } from './full.js';

export { isContainer, isPlainMapping, locateIn, locateKeyIn } from './document.js';
export type { Located, NodeInfo, Pos } from './document.js';
export { YamlTimestamp, plainKind, resolvePlain } from './resolve.js';
export type { YamlScalar } from './resolve.js';
export { parseFast } from './fast.js';
export { MAX_NESTING } from './document.js';
export { firstInvalidUtf8, positionOf } from './encoding.js';

/** A parsed YAML file: its value (PyYAML semantics), YAML-level problems, and positions on demand. */
export class YamlDocument {
  private located: Located | undefined;

  constructor(
    readonly file: string,
    /** The source text, for what the value drops (comments). */
    readonly text: string,
    readonly value: unknown,
    readonly problems: Problem[],
    /** Which parser produced the value: the fast block-subset parser or the full one. */
    readonly parser: 'fast' | 'full',
    located?: Located,
  ) {
    this.located = located;
  }

  /**
   * Positions are computed on first use (only problems need them) by a second, position-tracking
   * parse. A document the fast parser declined already has them from the full parser.
   */
  positions(): Located {
    this.located ??= parseFast(this.text, { positions: true });
    if (!this.located) throw new Error(`internal: no positions for ${this.file}`);
    return this.located;
  }

  /** Where a field path is written (a scalar's value, a container's key, or the nearest ancestor). */
  locate(path: readonly PathSegment[]): Pos {
    return locateIn(this.positions(), path);
  }

  /** Where a mapping key is written. */
  locateKey(path: readonly PathSegment[], key: string): Pos {
    return locateKeyIn(this.positions(), path, key);
  }
}

/**
 * Parse one YAML document with PyYAML (YAML 1.1) semantics.
 * The fast block-subset parser handles typical config files; anything else goes to the full one.
 * Bytes are checked to be UTF-8 first; text YAML does not allow (NUL and other control
 * characters) is reported, not parsed.
 */
export async function parseYaml(source: string | Buffer, file: string): Promise<YamlDocument> {
  if (typeof source !== 'string') {
    const bad = firstInvalidUtf8(source);
    if (bad !== -1) {
      const { line, col } = positionOf(source, bad);
      return encodingError(
        file,
        '',
        line,
        col,
        `the file is not valid UTF-8 (byte 0x${source[bad]!.toString(16)})`,
        'save the file as UTF-8',
      );
    }
  }
  const text = typeof source === 'string' ? source : source.toString('utf8');
  const fast = parseFast(text);
  if (fast) {
    const problems = fast.duplicates.map((d) => duplicateKeyProblem(file, d.key, d.pos, d.first));
    return new YamlDocument(file, text, fast.value, problems, 'fast', problems.length > 0 ? fast : undefined);
  }
  // The fast parser declines every control character, so only declined files need the scan.
  const control = firstControl(text);
  if (control !== -1) {
    const before = text.slice(0, control);
    const line = before.split('\n').length;
    const col = control - before.lastIndexOf('\n');
    const hint = 'remove it, or spell it as an escape (e.g. \\x00) inside a double-quoted string';
    return encodingError(file, text, line, col, `the file contains the control character ${describeChar(text[control]!)}`, hint);
  }
  const full = (await loadFullParser())(text, file);
  return new YamlDocument(file, text, full.value, full.problems, 'full', full);
}

function encodingError(file: string, text: string, line: number, col: number, message: string, hint: string): YamlDocument {
  return new YamlDocument(file, text, null, [yamlProblem(file, { line, col }, message, hint)], 'full', {
    value: null,
    info: new WeakMap(),
  });
}

/** The full parser is loaded only when needed: most files never need it, and it is a large module. */
export async function loadFullParser(): Promise<typeof ParseFull> {
  return (await import('./full.js')).parseFull;
}
