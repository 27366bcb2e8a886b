import { ChangelogEntry as ChangelogEntrySchema, EVAL_SELECTION_FIELDS } from './entry.js';
import type { ChangelogEntry } from './entry.js';
import { isPlainMapping, parseYaml, problemAt } from '../catalog/index.js';
import { schemaProblems } from '../catalog/schema-problems.js';
import { firstInvalidUtf8, positionOf } from '../catalog/yaml/index.js';
import type { Problem, Subject, YamlDocument } from '../catalog/index.js';

/** A perf-changelog.yaml as read: its bytes, text, YAML document and entries. */
export interface ParsedChangelog {
  file: string;
  raw: Buffer;
  text: string;
  doc: YamlDocument | undefined;
  /** The parsed entries as written (raw YAML values); only complete when there are no problems. */
  entries: Record<string, unknown>[];
  problems: Problem[];
}

const ENTRY_START = /^- config-keys:/;

export { positionOf };

/**
 * Parse and validate the whole file: the reference `parse_changelog` rules (final newline, UTF-8,
 * no CR/tab/NUL, a YAML list without duplicate keys, one `- config-keys:` line per entry, every
 * entry a valid ChangelogEntry), each reported with its line and a fix.
 */
export async function parseChangelog(raw: Buffer, file: string): Promise<ParsedChangelog> {
  const problems: Problem[] = [];
  const at = (offset: number, message: string, hint: string, rule = 'changelog-file'): void => {
    const { line, col } = positionOf(raw, offset);
    problems.push({ severity: 'error', rule, file, line, col, message, hint });
  };
  if (raw.length > 0 && raw[raw.length - 1] !== 10) {
    at(raw.length, 'the file does not end with a newline', 'add a newline after the last line');
  }
  const invalid = firstInvalidUtf8(raw);
  if (invalid !== -1) at(invalid, 'the file is not valid UTF-8', 'save the file as UTF-8');
  for (const [byte, name, hint] of [
    [13, 'a CR (\\r) character', 'use Unix line endings (LF only)'],
    [9, 'a tab', 'indent with spaces'],
    [0, 'a NUL byte', 'remove it'],
  ] as const) {
    const offset = raw.indexOf(byte);
    if (offset !== -1) at(offset, `the file contains ${name}`, hint);
  }
  const text = raw.toString('utf8');
  const result: ParsedChangelog = { file, raw, text, doc: undefined, entries: [], problems };
  if (problems.length > 0) return result;

  const doc = await parseYaml(text, file);
  result.doc = doc;
  problems.push(...doc.problems);
  if (doc.problems.length > 0) return result;
  if (!Array.isArray(doc.value)) {
    problems.push({
      severity: 'error',
      rule: 'changelog-file',
      file,
      line: 1,
      col: 1,
      message: 'the root must be a YAML list of entries',
      hint: 'each entry starts with `- config-keys:` at the start of a line',
    });
    return result;
  }
  const values = doc.value as unknown[];
  const entryLines = text.split('\n').filter((l) => ENTRY_START.test(l)).length;
  if (entryLines !== values.length) {
    // Name the entries that do not start with their own `- config-keys:` line.
    const lines = text.split('\n');
    const offenders = values.map((_, i) => doc.locate([i])).filter((pos) => !ENTRY_START.test(lines[pos.line - 1] ?? ''));
    const where = offenders[0] ?? { line: 1, col: 1 };
    problems.push({
      severity: 'error',
      rule: 'changelog-file',
      file,
      line: where.line,
      col: where.col,
      message: `${entryLines} lines start with "- config-keys:" but the YAML has ${values.length} entries`,
      hint: 'start every entry with `- config-keys:` at column 1, one entry per such line',
    });
  }
  values.forEach((value, i) => {
    const subject: Subject = { doc, base: [i], key: `entry ${i + 1}` };
    if (!isPlainMapping(value)) {
      problems.push(
        problemAt(subject, [], 'an entry must be a mapping', {
          rule: 'changelog-entry',
          hint: 'see the entries above for the shape',
        }),
      );
      return;
    }
    problems.push(...validateEntry(subject, value));
  });
  result.entries = values as Record<string, unknown>[];
  return result;
}

/** Schema and field-combination problems of one entry. */
export function validateEntry(subject: Subject, value: Record<string, unknown>): Problem[] {
  const parsed = ChangelogEntrySchema.safeParse(value);
  if (!parsed.success) {
    return schemaProblems(subject, ChangelogEntrySchema, value, parsed.error.issues).map((p) => ({
      ...p,
      rule: 'changelog-entry',
    }));
  }
  const entry = value as ChangelogEntry;
  if (!entry['append-only']) return [];
  const conflicting = EVAL_SELECTION_FIELDS.filter((f) => entry[f] !== undefined && entry[f] !== false);
  return conflicting.map((field) =>
    problemAt(subject, [field], `append-only cannot be combined with ${field}`, {
      rule: 'changelog-entry',
      hint: 'append-only entries add throughput points only: remove the eval field or append-only',
    }),
  );
}
