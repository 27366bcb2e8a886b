import { Alias, LineCounter, parseDocument, Scalar, YAMLMap, YAMLSeq, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode, Pair } from 'yaml';
import type { PathSegment, Problem } from '../problems.js';
import { MAX_NESTING, duplicateKeyProblem, nestingProblem, yamlProblem } from './document.js';
import type { NodeInfo, Pos } from './document.js';
import { resolveAliases } from '../../util/yaml-input.js';
import { YamlTimestamp, constructBool, constructFloat, constructInt, plainKind, resolvePlain } from './resolve.js';

const TAG = 'tag:yaml.org,2002:';

export interface FullResult {
  value: unknown;
  info: WeakMap<object, NodeInfo>;
  problems: Problem[];
}

/**
 * Parse any YAML with the `yaml` package, then build values with PyYAML's YAML 1.1 rules
 * (implicit typing, merge keys, shared aliases) and the source position of every node.
 * Stricter than PyYAML where it silently loses data: duplicate keys and keys that YAML 1.1
 * reads as non-strings (`on:`, `1:`) are reported.
 */
export function parseFull(text: string, file: string): FullResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    version: '1.1',
    schema: 'failsafe',
    lineCounter,
    uniqueKeys: false,
    strict: true,
    prettyErrors: false,
  });
  const problems: Problem[] = [];
  const reportAt = (pos: Pos, message: string, hint?: string): void => {
    problems.push(yamlProblem(file, pos, message, hint));
  };
  const report = (offset: number, message: string, hint?: string): void => reportAt(lineCounter.linePos(offset), message, hint);
  // Nesting deeper than MAX_NESTING is reported once, where it is first seen.
  let tooDeep = false;
  for (const error of doc.errors) {
    // The yaml package catches its own stack overflow on absurd nesting: report the limit instead.
    if (error.code === 'RESOURCE_EXHAUSTION' && /call stack/.test(error.message)) {
      if (!tooDeep) problems.push(nestingProblem(file, lineCounter.linePos(error.pos[0])));
      tooDeep = true;
      continue;
    }
    report(error.pos[0], error.message.split('\n')[0]!, yamlHint(error.code));
  }
  if (doc.errors.length > 0) return { value: null, info: new WeakMap(), problems };
  const aliases = resolveAliases(doc);
  if (aliases.refused) {
    report(aliases.refused.offset, aliases.refused.message, aliases.refused.hint);
    return { value: null, info: new WeakMap(), problems };
  }
  const targetOf = (node: unknown): unknown => (isAlias(node) ? aliases.targetOf(node as Alias) : node);

  const info = new WeakMap<object, NodeInfo>();
  const built = new Map<YamlNode, unknown>();
  const posOf = (node: { range?: [number, number, number] | null } | null | undefined, fallback: Pos): Pos =>
    node?.range ? lineCounter.linePos(node.range[0]) : fallback;

  let depth = 0;
  const build = (node: unknown, at: Pos): unknown => {
    if (node === null || node === undefined) return null;
    if ((isSeq(node) || isMap(node)) && depth >= MAX_NESTING) {
      if (!tooDeep) problems.push(nestingProblem(file, posOf(node as YamlNode, at)));
      tooDeep = true;
      return null;
    }
    if (isAlias(node)) {
      const target = aliases.targetOf(node as Alias);
      if (!target) return null;
      return built.has(target) ? built.get(target) : build(target, at);
    }
    let value: unknown;
    if (isScalar(node)) value = scalarValue(node as Scalar, (msg, hint) => report(node.range![0], msg, hint));
    else if (isSeq(node) || isMap(node)) {
      depth++;
      value = isSeq(node) ? buildSeq(node as YAMLSeq, at) : buildMap(node as YAMLMap, at);
      depth--;
    } else value = null;
    built.set(node as YamlNode, value);
    return value;
  };

  const buildSeq = (seq: YAMLSeq, at: Pos): unknown[] => {
    const arr: unknown[] = [];
    const valuePos = new Map<PathSegment, Pos>();
    info.set(arr, { pos: posOf(seq, at), valuePos });
    built.set(seq, arr);
    for (const item of seq.items) {
      const p = posOf(item as YamlNode, at);
      valuePos.set(arr.length, p);
      arr.push(build(item, p));
    }
    return arr;
  };

  const buildMap = (map: YAMLMap, at: Pos): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    const keyPos = new Map<string, Pos>();
    const valuePos = new Map<PathSegment, Pos>();
    info.set(obj, { pos: posOf(map, at), keyPos, valuePos });
    built.set(map, obj);
    const own = new Set<string>();
    const set = (key: string, value: unknown): void => {
      Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    };
    // As PyYAML: pairs merged in by `<<` come first, then the mapping's own pairs; later wins.
    const pairs = map.items as Pair<unknown, unknown>[];
    for (const pair of pairs.filter((p) => isMergeKey(p.key))) {
      for (const [k, v, p] of mergedPairs(pair.value)) {
        if (!Object.prototype.hasOwnProperty.call(obj, k)) {
          keyPos.set(k, p);
          valuePos.set(k, p);
        }
        set(k, v);
      }
    }
    for (const pair of pairs) {
      if (isMergeKey(pair.key)) continue;
      const kp = posOf(pair.key as YamlNode, posOf(map, at));
      // An empty value (`key:`) is reported at its key, as the fast parser does.
      const vp = isEmptyScalar(pair.value) ? kp : posOf(pair.value as YamlNode, kp);
      const key = keyString(pair.key, kp);
      if (own.has(key)) {
        const first = keyPos.get(key)!;
        problems.push(duplicateKeyProblem(file, key, lineCounter.linePos((pair.key as YamlNode).range![0]), first));
        // The value is still PyYAML's (the last one wins), for callers that carry on.
        set(key, build(pair.value, vp));
        continue;
      }
      own.add(key);
      keyPos.set(key, kp);
      valuePos.set(key, vp);
      set(key, build(pair.value, vp));
    }
    return obj;
  };

  /** Pairs contributed by a `<<` value, in PyYAML's precedence (earlier maps win). */
  const mergedPairs = (value: unknown): [string, unknown, Pos][] => {
    const target = targetOf(value);
    const maps: unknown[] = isSeq(target) ? (target as YAMLSeq).items.slice().reverse() : [target];
    const out: [string, unknown, Pos][] = [];
    for (const m of maps) {
      const node = targetOf(m);
      if (!isMap(node)) {
        report((value as YamlNode).range![0], 'a merge key (<<) needs a mapping or a list of mappings');
        continue;
      }
      const merged = (built.get(node as YamlNode) ?? build(node, posOf(node as YamlNode, { line: 1, col: 1 }))) as Record<
        string,
        unknown
      >;
      const mergedInfo = info.get(merged);
      for (const [k, v] of Object.entries(merged)) out.push([k, v, mergedInfo?.keyPos?.get(k) ?? mergedInfo!.pos]);
    }
    return out;
  };

  /** Mapping keys must be strings; YAML 1.1 reads some unquoted keys as other types. */
  const keyString = (key: unknown, at: Pos): string => {
    const node = targetOf(key);
    if (isScalar(node)) {
      const value = scalarValue(node as Scalar, () => undefined);
      if (typeof value === 'string') return value;
      const source = String((node as Scalar).source ?? (node as Scalar).value);
      const type = value === null ? 'null' : typeof value === 'object' ? 'a date' : `the ${typeof value} ${String(value)}`;
      reportAt(at, `key ${source} is read as ${type} by YAML 1.1 (PyYAML), not as a string`, `quote it: "${source}"`);
      return source;
    }
    reportAt(at, 'mapping keys must be scalars', 'use a plain string key');
    return `#${at.line}:${at.col}`;
  };

  const value = build(doc.contents, { line: 1, col: 1 });
  return { value, info, problems };
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && (node as Scalar).type === 'PLAIN' && (node as Scalar).source === '' && !(node as Scalar).tag;
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && (key as Scalar).type === 'PLAIN' && !explicitTag(key as Scalar) && (key as Scalar).value === '<<';
}

/** The tag written in the source, if any (the failsafe schema leaves implicit scalars untagged). */
function explicitTag(node: Scalar): string | undefined {
  return node.tag;
}

function scalarValue(node: Scalar, report: (message: string, hint?: string) => void): unknown {
  const text = String(node.value ?? '');
  const tag = explicitTag(node);
  if (tag === undefined) {
    if (node.type !== 'PLAIN') return text;
    const kind = plainKind(text);
    if (kind === 'value' || kind === 'merge') {
      report(`"${text}" is a YAML 1.1 special value, not a string`, `quote it: "${text}"`);
      return text;
    }
    return resolvePlain(text, kind);
  }
  switch (tag) {
    case `${TAG}str`:
      return text;
    case `${TAG}null`:
      return null;
    case `${TAG}bool`:
      return constructBool(text);
    case `${TAG}int`:
      return constructInt(text);
    case `${TAG}float`:
      return constructFloat(text);
    case `${TAG}timestamp`:
      return new YamlTimestamp(text);
    default:
      report(`unsupported tag ${tag}`, 'PyYAML safe_load cannot construct it; remove the tag');
      return text;
  }
}

function yamlHint(code: string): string | undefined {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'indent with spaces, not tabs';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
      return 'check the indentation of this line against its parent';
    case 'MULTIPLE_DOCS':
      return 'keep one document per file (remove the extra ---)';
    default:
      return undefined;
  }
}
