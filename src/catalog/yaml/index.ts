import type { PathSegment, Problem } from '../problems.js';
import { locateIn, locateKeyIn } from './document.js';
import type { Located, Pos } from './document.js';
import { parseFast } from './fast.js';
import type { parseFull as ParseFull } from './full.js';

export { isContainer, isPlainMapping, locateIn, locateKeyIn } from './document.js';
export type { Located, NodeInfo, Pos } from './document.js';
export { YamlTimestamp, plainKind, resolvePlain } from './resolve.js';
export type { YamlScalar } from './resolve.js';
export { parseFast } from './fast.js';

/** A parsed YAML file: its value (PyYAML semantics), YAML-level problems, and positions on demand. */
export class YamlDocument {
  private located: Located | undefined;

  constructor(
    readonly file: string,
    private readonly text: string,
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
 */
export async function parseYaml(text: string, file: string): Promise<YamlDocument> {
  const fast = parseFast(text);
  if (fast) return new YamlDocument(file, text, fast.value, [], 'fast');
  const full = (await loadFullParser())(text, file);
  return new YamlDocument(file, text, full.value, full.problems, 'full', full);
}

/** The full parser is loaded only when needed: most files never need it, and it is a large module. */
export async function loadFullParser(): Promise<typeof ParseFull> {
  return (await import('./full.js')).parseFull;
}
