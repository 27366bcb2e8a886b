import { LineCounter, isAlias, isCollection, isPair, isScalar, parseDocument, visit } from 'yaml';
import type { Alias, Document, DocumentOptions, Node, ParseOptions, SchemaOptions } from 'yaml';
import { UserError } from './user-error.js';

/**
 * YAML anchors and aliases (`&a`, `*a`) from input files, resolved once and bounded. An alias
 * stands for a whole earlier node, so a few lines can stand for a tree of any size (the "billion
 * laughs" file) that every reader of the value would then walk or copy; the `yaml` package's own
 * guard (`maxAliasCount`) throws a bare ReferenceError without a position. Every reader of YAML
 * from input checks its document here first and reports `refused` as its usual error (file, line,
 * fix).
 */

/**
 * How many nodes a YAML document may stand for once its aliases are expanded. The largest input
 * files (InferenceX's 10,000-line NVIDIA master config) hold about 21,000 nodes;
 * a million leaves room for fifty times that while bounding the work of any reader.
 */
export const MAX_YAML_EXPANDED_NODES = 1_000_000;

export interface ResolvedAliases {
  /** The node an alias stands for: the last node anchored with its name before it. */
  targetOf(alias: Alias): Node | undefined;
  /** The first alias that takes the document past the limit, or that is inside its own anchor; and why. */
  refused: { alias: Alias; offset: number; message: string; hint: string } | undefined;
}

/** Resolves every alias of `doc` in one pass, in document order, and checks what they expand to. */
export function resolveAliases(doc: Document, limit = MAX_YAML_EXPANDED_NODES): ResolvedAliases {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  const sizes = new Map<Node, number>();
  const inProgress = new Set<Node>();
  /** The nodes `node` stands for with its aliases expanded (Infinity for a node that contains itself). */
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) {
      const target = targets.get(node);
      return target === undefined ? 1 : sizeOf(target);
    }
    if (isScalar(node) || node === null || node === undefined) return 1;
    if (isPair(node)) return sizeOf(node.key) + sizeOf(node.value);
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (inProgress.has(node)) return Infinity;
    inProgress.add(node);
    let size = 1;
    for (const item of node.items) if (size <= limit) size += sizeOf(item);
    inProgress.delete(node);
    sizes.set(node, size);
    return size;
  };
  let total = 0;
  let refused: ResolvedAliases['refused'];
  visit(doc, {
    Node: (_key, node) => {
      if (node.anchor) anchors.set(node.anchor, node);
      if (!isAlias(node)) {
        total++;
        return undefined;
      }
      const target = anchors.get(node.source);
      targets.set(node, target);
      const size = target === undefined ? 1 : sizeOf(target);
      total += size;
      if (size === Infinity)
        refused = {
          alias: node,
          offset: node.range?.[0] ?? 0,
          message: `*${node.source} is inside the node its anchor names (a structure that contains itself)`,
          hint: 'write the values out instead of aliasing an enclosing node',
        };
      else if (total > limit)
        refused = {
          alias: node,
          offset: node.range?.[0] ?? 0,
          message: `with its aliases expanded the YAML stands for more than ${limit.toLocaleString('en-US')} values (*${node.source} and the aliases before it)`,
          hint: 'write the values out or alias fewer, larger nodes; no input file needs that many',
        };
      return refused ? visit.BREAK : undefined;
    },
  });
  return { targetOf: (alias) => targets.get(alias), refused };
}

/** A YAML document from input, its line counter and its resolved aliases. */
export interface InputDocument {
  doc: Document;
  lines: LineCounter;
  aliases: ResolvedAliases;
}

/**
 * A YAML text from input parsed, or an error (`Err`, a UserError by default) naming `file`, the
 * line and the fix: for a syntax error, and for aliases refused by resolveAliases.
 */
export function readYamlDocument(
  text: string,
  file: string,
  options: DocumentOptions & ParseOptions & SchemaOptions = {},
  Err: new (message: string, options: { hint?: string }) => UserError = UserError,
): InputDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { ...options, lineCounter: lines, prettyErrors: false });
  const error = doc.errors[0];
  if (error)
    throw new Err(`${file}:${lines.linePos(error.pos[0]).line}: not YAML (${error.message.split('\n')[0]})`, {
      hint: 'fix the YAML at that line',
    });
  const aliases = resolveAliases(doc);
  const { refused } = aliases;
  if (refused) throw new Err(`${file}:${lines.linePos(refused.offset).line}: ${refused.message}`, { hint: refused.hint });
  return { doc, lines, aliases };
}

/** The value of a YAML text from input (a file Frontier reads but does not check key by key): readYamlDocument's. */
export const parseYamlInput = (
  text: string,
  file: string,
  options: DocumentOptions & ParseOptions & SchemaOptions = {},
): unknown => plainValue(readYamlDocument(text, file, options).doc);

/** The value of a document whose aliases resolveAliases accepted (the `yaml` package's own alias count is off then: ours bounds it). */
export const plainValue = (doc: Document): unknown => doc.toJS({ maxAliasCount: -1 }) as unknown;
