/**
 * profile_export.jsonl: the per-request records, split into the profiled ones the metrics use and
 * an account of those dropped (warm-up rows, error rows, errors by category).
 */
import { readFileSync } from 'node:fs';
import { PyJsonSyntaxError, isDict, loads, pyStr, pyTruthy } from '../../pycompat/index.js';
import { UserError } from '../../util/user-error.js';
import type { PyValue } from './common.js';

/** A record as read (a dict; unknown fields kept). */
export type RecordDict = Record<string, unknown>;

export interface RequestAccounting {
  records_total: number;
  records_profiled: number;
  records_dropped_total: number;
  records_warmup_dropped: number;
  records_error_dropped: number;
  /** Category → count, in first-seen order. */
  error_categories: Map<string, number>;
}

export const emptyAccounting = (records: number): RequestAccounting => ({
  records_total: records,
  records_profiled: records,
  records_dropped_total: 0,
  records_warmup_dropped: 0,
  records_error_dropped: 0,
  error_categories: new Map(),
});

export const accountingValue = (a: RequestAccounting): PyValue => ({ ...a, error_categories: new Map(a.error_categories) });

/** `obj.get(key, {})` of a record part, refusing what Python's `.get` would crash on. */
export function dictPart(record: RecordDict, key: string, where: string): Record<string, unknown> {
  const part = Object.hasOwn(record, key) ? record[key] : {};
  if (!isDict(part))
    throw new UserError(`${where}: "${key}" is not an object`, {
      hint: 'profile_export.jsonl lines are AIPerf MetricRecordInfo objects',
    });
  return part;
}

// str.splitlines() boundaries.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
// str.strip() whitespace.
const STRIP = /^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/gu;

/** The category an error is counted under: its type-like field, else the message up to the first ":" (120 characters at most). */
export function errorCategory(error: unknown): string {
  let message: unknown;
  if (isDict(error)) {
    for (const key of ['type', 'error_type', 'code', 'class', 'status']) {
      const value = Object.hasOwn(error, key) ? error[key] : undefined;
      if (value !== undefined && value !== null && value !== '') return pyStr(value);
    }
    message = pyTruthy(error.message) ? error.message : error.error;
  } else message = error;
  if (!pyTruthy(message)) return 'unknown';
  const text = pyStr(message).replace(STRIP, '');
  const firstLine = text.split(LINE_BREAK)[0] ?? '';
  const head = firstLine.split(':', 1)[0] || 'unknown';
  return Array.from(head).slice(0, 120).join('');
}

/** Read the records and their accounting. `shown` names the file in messages. */
export function loadRecordsWithAccounting(path: string, shown = path): { records: RecordDict[]; accounting: RequestAccounting } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`${shown}: cannot read: ${(e as Error).message}`);
  }
  return recordsFromText(text, shown);
}

/** The records and their accounting of profile_export.jsonl's text (`shown` names it in messages). */
export function recordsFromText(text: string, shown: string): { records: RecordDict[]; accounting: RequestAccounting } {
  const records: RecordDict[] = [];
  const accounting = emptyAccounting(0);
  accounting.records_profiled = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `${shown}:${index + 1}`;
    let obj: unknown;
    try {
      obj = loads(line, { exactInts: true });
    } catch (e) {
      if (e instanceof PyJsonSyntaxError) {
        throw new UserError(`${where}: not JSON: ${e.describe(line)}`, {
          hint: 'each line of profile_export.jsonl is one JSON record',
        });
      }
      throw e;
    }
    if (!isDict(obj)) throw new UserError(`${where}: a record must be a JSON object`);
    accounting.records_total += 1;
    const phase = dictPart(obj, 'metadata', where).benchmark_phase;
    const isWarmup = phase !== undefined && phase !== null && phase !== 'profiling';
    const error = obj.error;
    const failed = pyTruthy(error);
    if (isWarmup) accounting.records_warmup_dropped += 1;
    if (failed) {
      accounting.records_error_dropped += 1;
      const category = errorCategory(error);
      accounting.error_categories.set(category, (accounting.error_categories.get(category) ?? 0) + 1);
    }
    if (failed || isWarmup) return;
    records.push(obj);
  });
  accounting.records_profiled = records.length;
  accounting.records_dropped_total = accounting.records_total - records.length;
  return { records, accounting };
}
