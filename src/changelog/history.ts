import { isDeepStrictEqual } from 'node:util';
import type { Problem } from '../catalog/index.js';
import { CANONICAL_PR_LINK, PR_LINK_PLACEHOLDERS, prLink } from './entry.js';
import type { ParsedChangelog } from './parse.js';

/**
 * The history rules of perf-changelog.yaml: it is an append-only audit trail. Entries already on
 * main never change except for a pr-link correction; new entries go at the physical end, each
 * separated from the previous one by exactly one blank line (the merge tooling depends on it).
 * Reference: `compare_entries` and `validate_raw_change` in validate_perf_changelog.py, here
 * reporting every violation with its line and the fix.
 */

export interface HistoryResult {
  problems: Problem[];
  /** Entries appended after the base's entries. */
  additions: number;
  /** Historical entries whose pr-link was corrected. */
  corrections: number;
  /** The head file with the mechanical separator problems repaired, when there were any. */
  fixed?: Buffer;
}

const ENTRY_LINE = /^- config-keys:[^\r\n]*$/;

export function checkHistory(base: ParsedChangelog, head: ParsedChangelog, pr: number | undefined): HistoryResult {
  const problems: Problem[] = [];
  const report = (line: number, message: string, hint: string, rule = 'changelog-history'): void => {
    problems.push({ severity: 'error', rule, file: head.file, line, col: 1, message, hint });
  };
  const entryLine = (i: number): number => head.doc?.locate([i]).line ?? 1;
  const baseEntries = base.entries;
  const headEntries = head.entries;

  // New entries inserted between historical ones (the history itself intact): say so, and
  // offer to move them to the end.
  const inserted = insertedEntries(baseEntries, headEntries);
  if (inserted && inserted.some((i) => i < baseEntries.length)) {
    for (const i of inserted.filter((k) => k < baseEntries.length)) {
      report(
        entryLine(i),
        `entry ${i + 1} is inserted between historical entries; new entries go at the end of the file`,
        'move it after the last entry (frontier changelog check --fix does)',
      );
    }
    checkNewLinks(head, inserted, pr, report);
    const blocks = entryBlocks(head).filter((_, i) => inserted.includes(i));
    const separator = base.raw.length === 0 || base.raw.subarray(-2).equals(Buffer.from('\n\n')) ? '' : '\n';
    const fixed = Buffer.concat([base.raw, Buffer.from(separator + blocks.join('\n'))]);
    return { problems, additions: inserted.length, corrections: 0, fixed };
  }

  let corrections = 0;
  const entryProblems: Problem[] = [];
  const entryReport = (line: number, message: string, hint: string): void => {
    entryProblems.push({ severity: 'error', rule: 'changelog-history', file: head.file, line, col: 1, message, hint });
  };
  if (headEntries.length < baseEntries.length) {
    entryReport(
      head.text.split('\n').length,
      `${baseEntries.length - headEntries.length === 1 ? '1 historical entry was' : `${baseEntries.length - headEntries.length} historical entries were`} deleted`,
      'the changelog is append-only: restore the base file and append new entries at the end',
    );
  }
  const common = Math.min(baseEntries.length, headEntries.length);
  for (let i = 0; i < common; i++) {
    const before = baseEntries[i]!;
    const after = headEntries[i]!;
    if (isDeepStrictEqual(before, after)) continue;
    if (!isDeepStrictEqual(withoutLink(before), withoutLink(after))) {
      entryReport(
        entryLine(i),
        `entry ${i + 1} changed; existing entries are immutable except for pr-link-only corrections`,
        `restore entry ${i + 1} exactly as it is in the base revision (line ${base.doc?.locate([i]).line ?? '?'} there)`,
      );
      continue;
    }
    const link = String(after['pr-link'] ?? '');
    if (String(before['pr-link'] ?? '') === link) {
      entryReport(entryLine(i), `entry ${i + 1} was reformatted without a semantic change`, 'restore its original bytes');
    } else if (!CANONICAL_PR_LINK.test(link)) {
      entryReport(lineOf(head, i, 'pr-link'), `entry ${i + 1} pr-link correction is not canonical: "${link}"`, `use ${PR_URL}`);
    } else {
      corrections++;
    }
  }
  const additions = Math.max(0, headEntries.length - baseEntries.length);
  if (corrections > 0 && additions > 0) {
    entryReport(
      entryLine(baseEntries.length),
      'historical pr-link corrections and new entries are mixed in one change',
      'submit the pr-link corrections in their own pull request',
    );
  }
  const appended = Array.from({ length: additions }, (_, k) => baseEntries.length + k);
  checkNewLinks(head, appended, pr, report);

  // Byte-level: where and how the bytes changed. Each edit is reported once: with appended
  // entries, a changed historical line is named with its original text (the entry-level view
  // would repeat it); without, the entry-level finding is the precise one.
  const raw = checkBytes(base.raw, head.raw, additions, corrections, head.file);
  const byteHistory = raw.problems.filter((p) => p.rule === 'changelog-history');
  if (additions > 0 && byteHistory.length > 0) problems.push(...raw.problems);
  else if (entryProblems.length > 0) problems.push(...entryProblems, ...raw.problems.filter((p) => !byteHistory.includes(p)));
  else problems.push(...raw.problems);
  return { problems, additions, corrections, fixed: raw.fixed };
}

const PR_URL = 'https://github.com/SemiAnalysisAI/InferenceX/pull/<number>';

/** pr-link of new entries: canonical on main; this PR's URL or XXX on a pull request. */
function checkNewLinks(
  head: ParsedChangelog,
  indices: number[],
  pr: number | undefined,
  report: (line: number, message: string, hint: string, rule?: string) => void,
): void {
  for (const i of indices) {
    const link = String(head.entries[i]!['pr-link'] ?? '');
    const line = lineOf(head, i, 'pr-link');
    if (pr === undefined) {
      if (!CANONICAL_PR_LINK.test(link)) {
        report(
          line,
          `new entry ${i + 1} has pr-link "${link}", not a canonical pull request URL`,
          `on main, link the merged pull request: ${PR_URL}`,
          'changelog-pr-link',
        );
      }
    } else if (!PR_LINK_PLACEHOLDERS.has(link) && link !== prLink(pr)) {
      report(
        line,
        `new entry ${i + 1} has pr-link "${link}"`,
        `use ${prLink(pr)} (or XXX until the pull request exists)`,
        'changelog-pr-link',
      );
    }
  }
}

/**
 * When every base entry is still there, in order, with new ones mixed in: the indices of the
 * new ones. Undefined when the base entries are not an ordered subset of the head's.
 */
function insertedEntries(base: Record<string, unknown>[], head: Record<string, unknown>[]): number[] | undefined {
  const inserted: number[] = [];
  let b = 0;
  for (let h = 0; h < head.length; h++) {
    if (b < base.length && isDeepStrictEqual(base[b], head[h])) b++;
    else inserted.push(h);
  }
  return b === base.length ? inserted : undefined;
}

/** Each entry's text: from its `- config-keys:` line to the next, without trailing blank lines. */
export function entryBlocks(parsed: ParsedChangelog): string[] {
  const lines = parsed.text.split('\n');
  const starts = lines.flatMap((l, i) => (ENTRY_LINE.test(l) ? [i] : []));
  return starts.map((start, k) => {
    const block = lines.slice(start, starts[k + 1] ?? lines.length).map((l) => l.replace(/[ ]+$/, ''));
    while (block.length > 0 && block[block.length - 1] === '') block.pop();
    return `${block.join('\n')}\n`;
  });
}

function withoutLink(entry: Record<string, unknown>): Record<string, unknown> {
  const { 'pr-link': _, ...rest } = entry;
  return rest;
}

function lineOf(parsed: ParsedChangelog, index: number, field: string): number {
  return parsed.doc?.locate([index, field]).line ?? 1;
}

/** Line number (1-based) of a byte offset. */
function lineAt(raw: Buffer, offset: number): number {
  let line = 1;
  for (let i = raw.indexOf(10); i !== -1 && i < offset; i = raw.indexOf(10, i + 1)) line++;
  return line;
}

function checkBytes(
  base: Buffer,
  head: Buffer,
  additions: number,
  corrections: number,
  file: string,
): { problems: Problem[]; fixed?: Buffer } {
  const problems: Problem[] = [];
  const report = (line: number, message: string, hint: string, rule = 'changelog-history'): void => {
    problems.push({ severity: 'error', rule, file, line, col: 1, message, hint });
  };

  if (additions > 0) {
    if (!head.subarray(0, base.length).equals(base)) {
      const line = firstDifferentLine(base, head);
      const was = base.toString('utf8').split('\n')[line - 1];
      report(
        line,
        `line ${line} differs from the base revision: appended entries must leave history byte-for-byte unchanged`,
        was === undefined
          ? 'restore the base file and append at the end'
          : `restore line ${line} as it was: ${JSON.stringify(was)}`,
      );
      return { problems };
    }
    if (base.length > 0 && base[base.length - 1] !== 10) {
      report(lineAt(head, base.length), 'the base revision does not end with a newline', 'fix the base file first');
      return { problems };
    }
    // Repair the separators of the appended part; what is left after the repair must be clean.
    const suffix = head.subarray(base.length).toString('utf8');
    const baseEndsBlank = base.length === 0 || base.subarray(-2).equals(Buffer.from('\n\n'));
    const { text: repaired, notes } = normaliseAppended(suffix, baseEndsBlank);
    const firstAppended = lineAt(head, base.length);
    for (const note of notes) {
      const line = firstAppended + note.line;
      report(line, note.message, note.hint.replace('{line}', String(line)), 'changelog-separator');
    }
    if (!repaired.startsWith(baseEndsBlank ? '- config-keys:' : '\n- config-keys:')) {
      report(
        firstAppended,
        'the appended text does not start with a new entry (`- config-keys:`)',
        'append complete entries at the end of the file',
      );
    }
    const fixed = notes.length > 0 ? Buffer.concat([base, Buffer.from(repaired)]) : undefined;
    return { problems, fixed };
  }

  if (corrections > 0) {
    const baseLines = base.toString('utf8').split('\n');
    const headLines = head.toString('utf8').split('\n');
    if (baseLines.length !== headLines.length) {
      report(firstDifferentLine(base, head), 'pr-link corrections may not add or delete lines', 'change only the pr-link lines');
      return { problems };
    }
    let changed = 0;
    baseLines.forEach((before, i) => {
      const after = headLines[i]!;
      if (before === after) return;
      changed++;
      if (!before.startsWith('  pr-link:') || !after.startsWith('  pr-link:')) {
        report(i + 1, `line ${i + 1} changed outside a pr-link line`, `restore it as it was: ${JSON.stringify(before)}`);
      }
    });
    if (changed !== corrections) {
      report(
        1,
        `expected ${corrections} changed pr-link line(s), found ${changed}`,
        'change only the pr-link lines of the corrected entries',
      );
    }
    return { problems };
  }

  if (!base.equals(head)) {
    report(
      firstDifferentLine(base, head),
      'the changelog changed without appending an entry or correcting a pr-link: historical whitespace and formatting are immutable',
      'restore the base file byte-for-byte',
    );
  }
  return { problems };
}

function firstDifferentLine(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return lineAt(b, i);
}

interface Note {
  /** Line within the appended text (0-based), where the fix applies. */
  line: number;
  message: string;
  hint: string;
}

/**
 * The appended text with exactly one blank line before each new entry, no trailing whitespace,
 * and one final newline; and a note for every repair made.
 */
export function normaliseAppended(suffix: string, baseEndsBlank: boolean): { text: string; notes: Note[] } {
  const notes: Note[] = [];
  const lines = suffix.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else
    notes.push({
      line: lines.length - 1,
      message: 'the file does not end with a newline',
      hint: 'add a newline after the last line',
    });

  const out: string[] = [];
  let inputLine = 0;
  // Blank lines before the first entry: the base's own trailing newline counts.
  const wanted = (first: boolean): number => (first ? (baseEndsBlank ? 0 : 1) : 1);
  let first = true;
  let blanks = 0;
  for (const line of lines) {
    const trimmed = line.replace(/[ ]+$/, '');
    if (trimmed !== line) {
      notes.push(
        trimmed === ''
          ? { line: inputLine, message: 'a blank line holds spaces', hint: 'leave the blank line empty' }
          : {
              line: inputLine,
              message: 'trailing whitespace on an appended line',
              hint: 'remove the spaces at the end of the line',
            },
      );
    }
    if (trimmed === '') {
      blanks++;
    } else {
      if (ENTRY_LINE.test(trimmed)) {
        const need = wanted(first);
        if (blanks < need) {
          const after = first ? 'the previous entry' : 'the entry above';
          notes.push({
            line: inputLine,
            message: `a new entry starts right after ${after}'s last line, with no blank line between them`,
            hint: `insert one blank line before line {line}`,
          });
        } else if (blanks > need) {
          notes.push({
            line: inputLine,
            message: `${blanks} blank lines before this entry`,
            hint: 'keep exactly one blank line between entries',
          });
        }
        for (let k = 0; k < need; k++) out.push('');
        first = false;
      } else {
        for (let k = 0; k < blanks; k++) out.push('');
      }
      blanks = 0;
      out.push(trimmed);
    }
    inputLine++;
  }
  if (blanks > 0) {
    notes.push({
      line: inputLine - blanks,
      message: 'blank lines at the end of the file',
      hint: 'end the last entry with a single newline',
    });
  }
  return { text: out.length > 0 ? `${out.join('\n')}\n` : '', notes };
}
