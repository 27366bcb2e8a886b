import { MAX_NESTING } from './document.js';
import type { NodeInfo, Pos } from './document.js';
import { plainKind, resolvePlain } from './resolve.js';

/**
 * A fast parser for the block-style YAML subset that config files are written in: block
 * mappings and sequences (including indentless sequences and `- key: value` items), one-line
 * flow collections, plain and one-line quoted scalars, comments. Anything else (anchors, tags,
 * block scalars, multi-line scalars, odd characters, non-string keys, nesting deeper than
 * MAX_NESTING, and every syntax error) makes it give up, and the full parser takes over; so it
 * never has to produce an error message, only the same value and positions as the full parser on
 * what it accepts. The one problem it reports itself is a duplicate key (with the full parser's
 * value and positions): a big file with one would otherwise cost a full parse, ~10 times slower.
 *
 * It exists because the full parser needs ~300 ms for the 10,000-line NVIDIA master config on a
 * cold start, which is the whole time budget of `frontier matrix full-sweep`.
 */

class Bail extends Error {}

/** A duplicate key without positions: parse again with them, to report it. */
class NeedPositions extends Error {}

const bail = (): never => {
  throw new Bail();
};

// Characters outside the subset: tabs, CR, BOM, NEL/LS/PS (PyYAML line breaks) and controls.
const OUTSIDE_SUBSET = /[\t\r\u0085\u2028\u2029\ufeff\ufffe\uffff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const NON_SPACE = /[^ ]/;
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?: |$)|^%/;
// The longest run of characters a flow plain scalar may contain in the fast subset.
const FLOW_PLAIN = /[^,\]}:?#[{"']*/y;
// A plain scalar may not start with these indicators.
const INDICATORS = '[]{},#&*!|>\'"%@`';

export interface FastResult {
  value: unknown;
  /** Source positions; empty unless asked for (they cost a third of the parse). */
  info: WeakMap<object, NodeInfo>;
  /** Duplicate mapping keys: where each repeat is written and where the key first is. */
  duplicates: { key: string; pos: Pos; first: Pos }[];
}

/** Parse `text`, or return undefined when it is outside the fast subset. */
export function parseFast(text: string, options: { positions?: boolean } = {}): FastResult | undefined {
  if (OUTSIDE_SUBSET.test(text)) return undefined;
  try {
    return new FastParser(text, options.positions ?? false).parseDocument();
  } catch (e) {
    if (e instanceof Bail) return undefined;
    if (e instanceof NeedPositions) return parseFast(text, { positions: true });
    throw e;
  }
}

/** A mapping entry's key, and the index just after its colon. */
interface KeySplit {
  key: string;
  after: number;
}

interface Inline {
  value: unknown;
  end: number;
}

const DOUBLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

class FastParser {
  private readonly lines: string[];
  private readonly indents: Int32Array;
  readonly info = new WeakMap<object, NodeInfo>();
  private readonly duplicates: FastResult['duplicates'] = [];
  /** Index of the first line not yet consumed. */
  private next = 0;

  constructor(
    text: string,
    private readonly positions: boolean,
  ) {
    this.lines = text.split('\n');
    this.indents = new Int32Array(this.lines.length);
    for (let i = 0; i < this.lines.length; i++) {
      const line = this.lines[i]!;
      const n = line.search(NON_SPACE);
      // -1 marks lines without content: blank or comment-only.
      this.indents[i] = n === -1 || line.charCodeAt(n) === 35 ? -1 : n;
      if (n === 0 && DOCUMENT_MARKER.test(line)) bail();
    }
  }

  parseDocument(): FastResult {
    const first = this.nextContent(0);
    if (first === -1) return { value: null, info: this.info, duplicates: this.duplicates };
    const value = this.parseBlockNode(first, this.indents[first]!, 1);
    if (this.nextContent(this.next) !== -1) bail();
    return { value, info: this.info, duplicates: this.duplicates };
  }

  private nextContent(from: number): number {
    for (let i = from; i < this.lines.length; i++) if (this.indents[i]! >= 0) return i;
    return -1;
  }

  private pos(line: number, col: number): Pos {
    return { line: line + 1, col: col + 1 };
  }

  /** Position maps for a new container, or undefined when positions are not tracked. */
  private track(container: object, line: number, col: number, withKeys: boolean): NodeInfo | undefined {
    if (!this.positions) return undefined;
    const info: NodeInfo = { pos: this.pos(line, col), valuePos: new Map() };
    if (withKeys) info.keyPos = new Map();
    this.info.set(container, info);
    return info;
  }

  /** Record a repeated key (needs positions); returns where the first one's value is. */
  private duplicate(info: NodeInfo | undefined, key: string, line: number, col: number): Pos {
    if (!info) throw new NeedPositions();
    this.duplicates.push({ key, pos: this.pos(line, col), first: info.keyPos!.get(key)! });
    return info.valuePos.get(key)!;
  }

  private isSeqItem(line: number, col: number): boolean {
    const text = this.lines[line]!;
    return text.charCodeAt(col) === 45 /* - */ && (col + 1 === text.length || text.charCodeAt(col + 1) === 32);
  }

  /** The node whose content starts at (line, col); consumes through its last line. */
  private parseBlockNode(line: number, col: number, depth: number): unknown {
    if (this.isSeqItem(line, col)) return this.parseSequence(line, col, depth);
    const split = this.splitKey(line, col);
    if (split) return this.parseMapping(line, col, depth, split);
    return this.parseInlineRest(line, col, depth).value;
  }

  /** A block mapping whose first entry, at (startLine, col), splits as `first`. */
  private parseMapping(startLine: number, col: number, depth: number, first: KeySplit): Record<string, unknown> {
    if (depth > MAX_NESTING) bail();
    const obj: Record<string, unknown> = {};
    const info = this.track(obj, startLine, col, true);
    let line = startLine;
    let split = first;
    for (;;) {
      const { key, after } = split;
      if (key === '__proto__') bail();
      // A duplicate is reported; its value replaces the first one (PyYAML's), the positions stay the first's.
      const firstValuePos = Object.prototype.hasOwnProperty.call(obj, key) ? this.duplicate(info, key, line, col) : undefined;
      if (!firstValuePos) info?.keyPos!.set(key, this.pos(line, col));
      const text = this.lines[line]!;
      const start = skipSpaces(text, after);
      if (start >= text.length || text.charCodeAt(start) === 35) {
        const child = this.nextContent(line + 1);
        const childIndent = child === -1 ? -1 : this.indents[child]!;
        if (childIndent > col) {
          info?.valuePos.set(key, this.pos(child, childIndent));
          obj[key] = this.parseBlockNode(child, childIndent, depth + 1);
        } else if (childIndent === col && this.isSeqItem(child, col)) {
          info?.valuePos.set(key, this.pos(child, col));
          obj[key] = this.parseSequence(child, col, depth + 1);
        } else {
          info?.valuePos.set(key, this.pos(line, col));
          obj[key] = null;
          this.next = line + 1;
        }
      } else {
        info?.valuePos.set(key, this.pos(line, start));
        obj[key] = this.parseInlineRest(line, start, depth + 1).value;
      }
      if (firstValuePos) info!.valuePos.set(key, firstValuePos);
      const following = this.nextContent(this.next);
      if (following === -1) return obj;
      const indent = this.indents[following]!;
      if (indent < col) return obj;
      if (indent > col || this.isSeqItem(following, col)) bail();
      line = following;
      split = this.splitKey(line, col) ?? bail();
    }
  }

  private parseSequence(startLine: number, col: number, depth: number): unknown[] {
    if (depth > MAX_NESTING) bail();
    const arr: unknown[] = [];
    const info = this.track(arr, startLine, col, false);
    let line = startLine;
    for (;;) {
      const text = this.lines[line]!;
      const start = skipSpaces(text, col + 1);
      if (start >= text.length || text.charCodeAt(start) === 35) {
        const child = this.nextContent(line + 1);
        const childIndent = child === -1 ? -1 : this.indents[child]!;
        if (childIndent > col) {
          info?.valuePos.set(arr.length, this.pos(child, childIndent));
          arr.push(this.parseBlockNode(child, childIndent, depth + 1));
        } else {
          info?.valuePos.set(arr.length, this.pos(line, col));
          arr.push(null);
          this.next = line + 1;
        }
      } else {
        if (this.isSeqItem(line, start)) bail();
        info?.valuePos.set(arr.length, this.pos(line, start));
        const split = this.splitKey(line, start);
        arr.push(split ? this.parseMapping(line, start, depth + 1, split) : this.parseInlineRest(line, start, depth + 1).value);
      }
      const following = this.nextContent(this.next);
      if (following === -1) return arr;
      const indent = this.indents[following]!;
      if (indent < col) return arr;
      if (indent > col) bail();
      if (!this.isSeqItem(following, col)) return arr;
      line = following;
    }
  }

  /**
   * If a mapping entry `key: …` starts at (line, col), its key and the index just after the
   * colon. Non-string keys (`yes:`, `1:`) and merge keys are left to the full parser.
   */
  private splitKey(line: number, col: number): KeySplit | undefined {
    const text = this.lines[line]!;
    const c = text[col];
    if (c === undefined) return undefined;
    if (c === '"' || c === "'") {
      const quoted = c === '"' ? parseDoubleQuoted(text, col) : parseSingleQuoted(text, col);
      const j = skipSpaces(text, quoted.end);
      if (text[j] === ':' && (j + 1 === text.length || text[j + 1] === ' ')) {
        return { key: quoted.value as string, after: j + 1 };
      }
      return undefined;
    }
    if (INDICATORS.includes(c)) return undefined;
    const second = text[col + 1];
    if ((c === '-' || c === '?' || c === ':') && (second === undefined || second === ' ')) return undefined;
    const comment = text.indexOf(' #', col);
    const limit = comment === -1 ? text.length : comment;
    for (let j = text.indexOf(':', col); j !== -1 && j < limit; j = text.indexOf(':', j + 1)) {
      if (j + 1 === text.length || text.charCodeAt(j + 1) === 32) {
        const key = text.slice(col, j).trimEnd();
        if (plainKind(key) !== 'str') bail();
        return { key, after: j + 1 };
      }
    }
    return undefined;
  }

  /** A scalar or flow collection filling the rest of the line (an optional comment may follow). */
  private parseInlineRest(line: number, col: number, depth: number): Inline {
    const text = this.lines[line]!;
    const c = text[col]!;
    let result: Inline;
    if (c === '"') result = parseDoubleQuoted(text, col);
    else if (c === "'") result = parseSingleQuoted(text, col);
    else if (c === '[' || c === '{') result = this.parseFlow(line, col, depth);
    else result = parseBlockPlain(text, col);
    const j = skipSpaces(text, result.end);
    if (j < text.length && (text.charCodeAt(j) !== 35 || j === result.end)) bail();
    this.next = line + 1;
    return result;
  }

  private parseFlow(line: number, col: number, depth: number): Inline {
    if (depth > MAX_NESTING) bail();
    const text = this.lines[line]!;
    const isSeq = text[col] === '[';
    const close = isSeq ? ']' : '}';
    const container: unknown[] | Record<string, unknown> = isSeq ? [] : {};
    const info = this.track(container, line, col, !isSeq);
    let i = col + 1;
    for (;;) {
      i = skipSpaces(text, i);
      if (i >= text.length) bail();
      if (text[i] === close) return { value: container, end: i + 1 };
      if (isSeq) {
        const item = this.parseFlowItem(line, i, depth + 1);
        info?.valuePos.set((container as unknown[]).length, this.pos(line, i));
        (container as unknown[]).push(item.value);
        i = item.end;
      } else {
        const keyStart = i;
        const keyItem = text[i] === '"' ? parseDoubleQuoted(text, i) : text[i] === "'" ? parseSingleQuoted(text, i) : undefined;
        let key: string;
        if (keyItem) {
          key = keyItem.value as string;
          i = skipSpaces(text, keyItem.end);
        } else {
          const plain = scanFlowPlain(text, i);
          if (plainKind(plain.text) !== 'str') bail();
          key = plain.text;
          i = plain.end;
        }
        if (text[i] !== ':' || text[i + 1] !== ' ') bail();
        const obj = container as Record<string, unknown>;
        if (key === '__proto__') bail();
        if (Object.prototype.hasOwnProperty.call(obj, key)) this.duplicate(info, key, line, keyStart);
        else info?.keyPos!.set(key, this.pos(line, keyStart));
        const valueStart = skipSpaces(text, i + 1);
        const item = this.parseFlowItem(line, valueStart, depth + 1);
        if (!info?.valuePos.has(key)) info?.valuePos.set(key, this.pos(line, valueStart));
        obj[key] = item.value;
        i = item.end;
      }
      i = skipSpaces(text, i);
      if (text[i] === ',') i++;
      else if (text[i] !== close) bail();
    }
  }

  private parseFlowItem(line: number, i: number, depth: number): Inline {
    const text = this.lines[line]!;
    const c = text[i];
    if (c === '"') return parseDoubleQuoted(text, i);
    if (c === "'") return parseSingleQuoted(text, i);
    if (c === '[' || c === '{') return this.parseFlow(line, i, depth);
    const plain = scanFlowPlain(text, i);
    const kind = plainKind(plain.text);
    if (kind === 'merge' || kind === 'value') bail();
    return { value: resolvePlain(plain.text, kind), end: plain.end };
  }
}

function skipSpaces(text: string, i: number): number {
  while (text.charCodeAt(i) === 32) i++;
  return i;
}

/** A plain scalar in block context: up to ` #` or the end of the line. */
function parseBlockPlain(text: string, col: number): Inline {
  const c = text[col]!;
  if (INDICATORS.includes(c)) bail();
  if ((c === '-' || c === '?' || c === ':') && (col + 1 === text.length || text[col + 1] === ' ')) bail();
  let end = text.length;
  const comment = text.indexOf(' #', col);
  if (comment !== -1) end = comment;
  const raw = text.slice(col, end).trimEnd();
  // `a: b: c` and a trailing colon are errors in YAML: leave them to the full parser.
  if (raw.includes(': ') || raw.endsWith(':')) bail();
  const kind = plainKind(raw);
  if (kind === 'merge' || kind === 'value') bail();
  return { value: resolvePlain(raw, kind), end: col + raw.length };
}

/** A plain scalar in a flow collection; anything unusual (`:`, `?`, `#`, quotes) bails. */
/** A plain scalar in a flow collection; anything unusual (`:`, `?`, `#`, brackets, quotes) bails. */
function scanFlowPlain(text: string, i: number): { text: string; end: number } {
  FLOW_PLAIN.lastIndex = i;
  FLOW_PLAIN.test(text);
  const j = FLOW_PLAIN.lastIndex;
  const stop = text[j];
  if (stop !== undefined && stop !== ',' && stop !== ']' && stop !== '}' && !(stop === ':' && text[j + 1] === ' ' && j > i))
    bail();
  const raw = text.slice(i, j).trimEnd();
  if (
    raw === '' ||
    INDICATORS.includes(raw[0]!) ||
    ((raw[0] === '-' || raw[0] === '?') && (raw.length === 1 || raw[1] === ' '))
  ) {
    bail();
  }
  return { text: raw, end: i + raw.length };
}

function parseSingleQuoted(text: string, col: number): Inline {
  let out = '';
  let i = col + 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close === -1) bail();
    out += text.slice(i, close);
    if (text[close + 1] === "'") {
      out += "'";
      i = close + 2;
    } else {
      return { value: out, end: close + 1 };
    }
  }
}

function parseDoubleQuoted(text: string, col: number): Inline {
  let out = '';
  let i = col + 1;
  for (;;) {
    if (i >= text.length) bail();
    const ch = text[i]!;
    if (ch === '"') return { value: out, end: i + 1 };
    if (ch !== '\\') {
      out += ch;
      i++;
      continue;
    }
    const esc = text[i + 1];
    if (esc === undefined) bail();
    const simple = DOUBLE_ESCAPES[esc!];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const width = HEX_ESCAPES[esc!];
    if (width === undefined) bail();
    const hex = text.slice(i + 2, i + 2 + width!);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) bail();
    out += String.fromCodePoint(parseInt(hex, 16));
    i += 2 + width!;
  }
}
