import { UserError } from '../util/user-error.js';
import type { SourceLine } from './types.js';

/** The two trace formats, as errors name them. */
export type TraceFormat = 'Weka trace' | 'hash_ids block trace';

/** A user-fixable problem in a trace file: `file:line: format: key: problem`, with the fix as hint. */
export function traceError(
  at: SourceLine,
  format: TraceFormat | undefined,
  key: string | undefined,
  problem: string,
  hint: string,
): UserError {
  const where = `${at.file}:${at.line}`;
  const parts = [where, format, key].filter((p) => p !== undefined && p !== '');
  return new UserError(`${parts.join(': ')}: ${problem}`, { hint });
}
