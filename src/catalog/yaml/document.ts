import type { PathSegment, Problem } from '../problems.js';

/** How deep mappings and sequences may nest (config files need a dozen levels; deeper input would exhaust the stack). */
export const MAX_NESTING = 100;

/** A YAML-level problem (syntax, encoding, nesting, duplicate keys) at a position of `file`. */
export function yamlProblem(file: string, { line, col }: Pos, message: string, hint?: string): Problem {
  return { severity: 'error', rule: 'yaml', file, line, col, message, hint };
}

export const nestingProblem = (file: string, pos: Pos): Problem =>
  yamlProblem(
    file,
    pos,
    `the YAML nests deeper than ${MAX_NESTING} levels`,
    'flatten the structure; no config file needs that depth',
  );

export const duplicateKeyProblem = (file: string, key: string, pos: Pos, first: Pos): Problem =>
  yamlProblem(
    file,
    pos,
    `duplicate key "${key}" (first defined at line ${first.line})`,
    'PyYAML would silently keep only the last one; remove or rename one of them',
  );

export interface Pos {
  line: number;
  col: number;
}

/** Source positions of one mapping or sequence and of its children. */
export interface NodeInfo {
  pos: Pos;
  /** Mapping keys: where each key is written. */
  keyPos?: Map<string, Pos>;
  /** Where each child value starts (mapping key or sequence index). */
  valuePos: Map<PathSegment, Pos>;
}

/** A parsed value with the positions of its containers. */
export interface Located {
  value: unknown;
  info: WeakMap<object, NodeInfo>;
}

/**
 * Position for a field path: a scalar's own position, a container's key (where `field:` is
 * written), or for a missing field the nearest existing ancestor.
 */
export function locateIn(doc: Located, path: readonly PathSegment[]): Pos {
  let node: unknown = doc.value;
  let best: Pos = { line: 1, col: 1 };
  const rootInfo = isContainer(node) ? doc.info.get(node) : undefined;
  if (rootInfo) best = rootInfo.pos;
  for (const seg of path) {
    if (!isContainer(node)) break;
    const info = doc.info.get(node);
    if (!info) break;
    const child = (node as Record<PathSegment, unknown>)[seg];
    const hasChild = Array.isArray(node)
      ? typeof seg === 'number' && seg < node.length
      : typeof seg === 'string' && Object.prototype.hasOwnProperty.call(node, seg);
    if (!hasChild) break;
    const keyPos = typeof seg === 'string' ? info.keyPos?.get(seg) : undefined;
    const valuePos = info.valuePos.get(seg);
    best = (isContainer(child) && keyPos) || valuePos || keyPos || best;
    node = child;
  }
  return best;
}

/** Position of a mapping key itself (for unknown or duplicate keys). */
export function locateKeyIn(doc: Located, path: readonly PathSegment[], key: string): Pos {
  let node: unknown = doc.value;
  for (const seg of path) {
    if (!isContainer(node)) return locateIn(doc, path);
    node = (node as Record<PathSegment, unknown>)[seg];
  }
  const info = isContainer(node) ? doc.info.get(node) : undefined;
  return info?.keyPos?.get(key) ?? locateIn(doc, path);
}

export function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && (Array.isArray(value) || isPlainMapping(value));
}

export function isPlainMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
