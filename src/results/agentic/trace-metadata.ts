/**
 * The output lengths the replayed traces asked for, from the trace dataset in the local Hugging
 * Face hub cache (`datasets--semianalysisai--cc-traces-weka*`), looked up per record by trace id
 * and turn: the aggregate's `tokens.output_expected`. No cache, no expected lengths.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDict, loads, pyStr, pyTruthy } from '../../pycompat/index.js';
import { toInt } from './common.js';
import type { RecordDict } from './records.js';
import { isDir } from '../../util/fs-kind.js';

/** Trace id → the output length of each of its n/s requests, in order. */
export type TraceOutputLengths = Map<string, number[]>;

/** The parent trace id of an AIPerf conversation id (a subagent's carries `::sa:<agent>`). */
export const conversationToTraceId = (conv: unknown): string | null => (pyTruthy(conv) ? pyStr(conv).split('::')[0]! : null);

const listSorted = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

/** The newest snapshot of the trace dataset that holds .jsonl or .json files. */
export function tracesDir(hubCache: string): string | null {
  if (!isDir(hubCache)) return null;
  const snapshots: { path: string; mtime: number }[] = [];
  for (const name of listSorted(hubCache)) {
    if (!name.startsWith('datasets--semianalysisai--cc-traces-weka')) continue;
    const root = join(hubCache, name, 'snapshots');
    if (!isDir(root)) continue;
    for (const snap of listSorted(root)) {
      const path = join(root, snap);
      if (isDir(path)) snapshots.push({ path, mtime: statSync(path).mtimeMs });
    }
  }
  snapshots.sort((a, b) => b.mtime - a.mtime);
  for (const { path } of snapshots) {
    if (listSorted(path).some((f) => f.endsWith('.jsonl') || f.endsWith('.json'))) return path;
  }
  return null;
}

function* traceBlobs(dir: string): Generator<unknown> {
  const files = listSorted(dir);
  for (const name of files.filter((f) => f.endsWith('.jsonl'))) {
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      try {
        yield loads(line);
      } catch {
        continue;
      }
    }
  }
  for (const name of files.filter((f) => f.endsWith('.json'))) {
    try {
      yield loads(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
  }
}

/** Every trace's per-request output lengths (`output_length`, or its alias `out`; 0 when neither). */
export function loadTraceOutputLengths(hubCache: string): TraceOutputLengths {
  const out: TraceOutputLengths = new Map();
  const dir = tracesDir(hubCache);
  if (dir === null) return out;
  for (const blob of traceBlobs(dir)) {
    if (!isDict(blob) || !pyTruthy(blob.id)) continue;
    const perTurn: number[] = [];
    const requests = Array.isArray(blob.requests) ? blob.requests : [];
    for (const req of requests) {
      if (!isDict(req) || (req.type !== 'n' && req.type !== 's')) continue;
      const length = req.output_length ?? req.out;
      perTurn.push(pyTruthy(length) ? (toInt(length) ?? 0) : 0);
    }
    if (perTurn.length > 0) out.set(pyStr(blob.id), perTurn);
  }
  return out;
}

/** The expected output length of each record whose trace and turn are known. */
export function expectedOutputLengths(records: readonly RecordDict[], traces: TraceOutputLengths): number[] {
  if (traces.size === 0) return [];
  const expected: number[] = [];
  for (const record of records) {
    const metadata = isDict(record.metadata) ? record.metadata : {};
    const traceId = conversationToTraceId(metadata.conversation_id);
    const turn = metadata.turn_index;
    if (traceId === null || turn === null || turn === undefined || typeof turn !== 'number') continue;
    const turns = traces.get(traceId);
    if (!turns || turns.length === 0 || turn >= turns.length) continue;
    // Python indexes a negative turn from the end.
    const length = turns[turn < 0 ? turns.length + turn : turn];
    if (length !== undefined) expected.push(length);
  }
  return expected;
}
