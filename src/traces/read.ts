import { readFile, stat } from 'node:fs/promises';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../util/json-depth.js';
import { UserError } from '../util/user-error.js';
import { blockTraceReader } from './blocks.js';
import { traceError } from './errors.js';
import type { TraceFormat } from './errors.js';
import { isObject } from './fields.js';
import { MAX_TRACE_FILE_BYTES, MAX_TRACE_LINES, MAX_TRACE_REQUESTS } from './limits.js';
import { objectLines } from './object-lines.js';
import { requestsInOrder } from './stats.js';
import type { SourceLine, Trace } from './types.js';
import { parseWekaTrace } from './weka.js';

export interface ParseOptions {
  /** Tokens per hash block of a block trace (which does not record it); default 512 as in Mooncake. */
  blockSize?: number;
  /**
   * Accept Weka traces whose first entries are subagents. The reference's request cap
   * (build_weka_hf_dataset.py, `frontier traces cap`) writes such traces when it drops the turn
   * that spawned them; otherwise a subagent before any main request is an error.
   */
  leadingSubagents?: boolean;
}

const WEKA: TraceFormat = 'Weka trace';
const BLOCKS: TraceFormat = 'hash_ids block trace';

/** Which format a line's object is written in, or undefined when it has the keys of neither. */
function formatOf(obj: Record<string, unknown>): TraceFormat | undefined {
  if ('requests' in obj || 'block_size' in obj || 'hash_id_scope' in obj) return WEKA;
  if ('input_length' in obj || 'output_length' in obj || 'text_input' in obj) return BLOCKS;
  return undefined;
}

const FORMAT_HINT =
  'a Weka trace has "id" and "requests" (one trace per line, or one pretty-printed trace per file); a block trace has "input_length", "output_length" and "hash_ids" per line';

function parseSingleJson(text: string, file: string, options: ParseOptions): Trace[] | undefined {
  checkDepth(text, { file, line: 1 }, undefined);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const lines = objectLines(text, value);
  if (formatOf(value) !== WEKA)
    throw traceError(
      { file, line: 1 },
      undefined,
      undefined,
      'a JSON object that is not a Weka trace (no "requests")',
      FORMAT_HINT,
    );
  const trace = parseWekaTrace(value, { file, line: lines.get(value) ?? 1 }, (o) => lines.get(o), options);
  checkRequestCount(requestsInOrder(trace).length, { file, line: 1 }, WEKA);
  return [trace];
}

/** `text` refused before it is parsed when it nests deeper than MAX_JSON_DEPTH (objectLines recurses). */
function checkDepth(text: string, at: SourceLine, format: TraceFormat | undefined): void {
  if (jsonTooDeep(text))
    throw traceError(
      at,
      format,
      undefined,
      `nests arrays and objects more than ${MAX_JSON_DEPTH} deep`,
      'a trace nests 6 deep (the trace, requests, a subagent, its requests, hash_ids): remove the deeper values',
    );
}

function checkRequestCount(requests: number, at: SourceLine, format: TraceFormat): void {
  if (requests > MAX_TRACE_REQUESTS)
    throw traceError(
      at,
      format,
      undefined,
      `the file holds more than ${MAX_TRACE_REQUESTS} requests`,
      'split the corpus into several files, or sample it',
    );
}

/** `text` (a file's text or bytes) refused when it has more than MAX_TRACE_LINES lines, before it is split. */
function checkLineCount(text: string | Buffer, file: string): void {
  let newlines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1))
    if (++newlines >= MAX_TRACE_LINES)
      throw new UserError(`${file}: more than ${MAX_TRACE_LINES} lines`, {
        hint: 'a trace file holds one trace (or block-trace request) a line: split the corpus into several files',
      });
}

/**
 * The traces of one file's text: Weka JSONL (a trace per line), a single pretty-printed Weka
 * trace, or a `hash_ids` block trace (a request per line); the format is told by the first
 * line's keys. Every failure is a UserError naming `file:line`, the format and the key.
 */
export function parseTraces(text: string, file: string, options: ParseOptions = {}): Trace[] {
  checkLineCount(text, file);
  return parseLines(text.split('\n'), file, options, () => text);
}

function parseLines(lines: readonly string[], file: string, options: ParseOptions, wholeText: () => string | undefined): Trace[] {
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0)
    throw new UserError(`${file}: empty: no traces`, {
      hint: 'point at a traces.jsonl (Weka) or a hash_ids block trace; regenerate it if it was cut short',
    });
  let firstValue: unknown;
  checkDepth(lines[first]!, { file, line: first + 1 }, undefined);
  try {
    firstValue = JSON.parse(lines[first]!);
  } catch {
    const text = wholeText();
    const single = text === undefined ? undefined : parseSingleJson(text, file, options);
    if (single) return single;
  }
  let format: TraceFormat | undefined;
  const blocks = blockTraceReader(options.blockSize);
  const weka: Trace[] = [];
  let requests = 0;
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const at = { file, line: i + 1 };
    checkDepth(raw, at, format);
    let value: unknown;
    try {
      value = i === first && firstValue !== undefined ? firstValue : JSON.parse(raw);
    } catch (e) {
      throw traceError(
        at,
        format,
        undefined,
        `not JSON: ${(e as Error).message}`,
        'each line holds one complete JSON object; fix or remove the line',
      );
    }
    if (!isObject(value)) throw traceError(at, format, undefined, 'not a JSON object', FORMAT_HINT);
    if (format === undefined) {
      format = formatOf(value);
      if (format === undefined)
        throw traceError(at, undefined, undefined, 'neither a Weka trace nor a block-trace request', FORMAT_HINT);
    }
    if (format === WEKA) {
      const trace = parseWekaTrace(value, at, undefined, options);
      weka.push(trace);
      requests += requestsInOrder(trace).length;
    } else {
      blocks.line(value, at);
      requests++;
    }
    checkRequestCount(requests, at, format);
  });
  return format === WEKA ? weka : blocks.traces;
}

/**
 * Past this size a file is decoded a line at a time: a whole corpus can pass the longest string
 * V8 makes (about 512 MiB), and then it can only be JSONL.
 */
const WHOLE_TEXT_LIMIT = 256 << 20;

function bufferLines(buffer: Buffer): string[] {
  const lines: string[] = [];
  for (let start = 0; start <= buffer.length;) {
    let end = buffer.indexOf(10, start);
    if (end < 0) end = buffer.length;
    lines.push(buffer.toString('utf8', start, end));
    start = end + 1;
  }
  return lines;
}

/** The traces of a file (see parseTraces); a file that cannot be read is a UserError. */
export async function readTraceFile(path: string, options: ParseOptions = {}): Promise<Trace[]> {
  let buffer: Buffer;
  try {
    const { size } = await stat(path);
    if (size > MAX_TRACE_FILE_BYTES)
      throw new UserError(`${path}: ${size} bytes, above the limit of ${MAX_TRACE_FILE_BYTES}`, {
        hint: 'split the corpus into several files, or cap it (`frontier traces cap`)',
      });
    buffer = await readFile(path);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: 'pass the path of a traces.jsonl (Weka) or a hash_ids block trace',
    });
  }
  return parseTraceBuffer(buffer, path, options);
}

/** parseTraces on a file's bytes, a line at a time past `wholeTextLimit` bytes. */
export function parseTraceBuffer(
  buffer: Buffer,
  file: string,
  options: ParseOptions = {},
  wholeTextLimit = WHOLE_TEXT_LIMIT,
): Trace[] {
  if (buffer.length <= wholeTextLimit) return parseTraces(buffer.toString('utf8'), file, options);
  checkLineCount(buffer, file);
  return parseLines(bufferLines(buffer), file, options, () => undefined);
}
