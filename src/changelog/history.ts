import { isDeepStrictEqual } from 'node:util';
import type { Problem } from '../catalog/index.js';
import { DEFAULT_REPOSITORY, isCanonicalPrLink, isPrLinkPlaceholder, prLink } from './entry.js';
import type { ParsedChangelog } from './parse.js';

/**
 * The history rules of perf-changelog.yaml: it is an append-only audit trail. Entries already on
 * main never change except for a pr-link correction; new entries go at the physical end, each
 * separated from the previous one by exactly one blank line (the merge tooling depends on it).
 * Reference: `compare_entries` and `validate_raw_change` in validate_perf_changelog.py, here
 * reporting every violation with its line and the fix.
 *
 * Two departures from the reference, both for changes that do not affect any sweep: emptying a
 * blank line of history that holds spaces (or dropping blank lines at its end) is allowed, and
 * layout problems (`changelog-layout`: whitespace, extra blank lines, an entry inserted before
 * older ones) are warnings that `frontier changelog check --fix` repairs. A new entry glued to the
 * previous one with no blank line stays an error (`changelog-separator`).
 */

export interface HistoryResult {
  problems: Problem[];
  /** Entries appended after the base's entries. */
  additions: number;
  /** Historical entries whose pr-link was corrected. */
  corrections: number;
  /** The head file with the separator and layout problems repaired, when there were any. */
  fixed?: Buffer;
}

const ENTRY_LINE = /^- config-keys:[^\r\n]*$/;

/** `repository`: whose pull requests the entries link to (owner/name). */
export function checkHistory(
  base: ParsedChangelog,
  head: ParsedChangelog,
  pr: number | undefined,
  repository = DEFAULT_REPOSITORY,
): HistoryResult {
  const problems: Problem[] = [];
  const report = (line: number, message: string, hint: string, rule = 'changelog-history'): void => {
    problems.push({ severity: severityOf(rule), rule, file: head.file, line, col: 1, message, hint });
  };
  const entryLine = (i: number): number => head.doc?.locate([i]).line ?? 1;
  const baseEntries = base.entries;
  const headEntries = head.entries;

  // New entries inserted between historical ones (the history itself intact): the sweep still
  // runs exactly the added lines, so this is layout; the fix moves them to the end.
  const inserted = insertedEntries(baseEntries, headEntries);
  if (inserted && inserted.some((i) => i < baseEntries.length)) {
    const blocks = entryBlocks(head);
    for (const i of inserted.filter((k) => k < baseEntries.length)) {
      const lines = blocks[i]!.split('\n').length - 1;
      report(
        entryLine(i),
        `new entry ${i + 1} (lines ${entryLine(i)}–${entryLine(i) + lines - 1}) is inserted before older entries; new entries go at the end of the file`,
        '`frontier changelog check --fix` moves it to the end (the sweep stays the same: it runs the lines a change adds)',
        'changelog-layout',
      );
    }
    checkNewLinks(head, inserted, pr, repository, report);
    const history = historyText(base.raw.toString('utf8'));
    const fixed = Buffer.from([history, ...blocks.filter((_, i) => inserted.includes(i))].filter(Boolean).join('\n'));
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
    } else if (!isCanonicalPrLink(link, repository)) {
      entryReport(
        lineOf(head, i, 'pr-link'),
        `entry ${i + 1} pr-link correction is not canonical: "${link}"`,
        `use ${prLink('<number>', repository)}`,
      );
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
  checkNewLinks(head, appended, pr, repository, report);

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

/** Layout problems change no sweep: reported as warnings, repaired by --fix. */
const severityOf = (rule: string): Problem['severity'] => (rule === 'changelog-layout' ? 'warning' : 'error');

/** pr-link of new entries: canonical on main; this PR's URL or XXX on a pull request. */
function checkNewLinks(
  head: ParsedChangelog,
  indices: number[],
  pr: number | undefined,
  repository: string,
  report: (line: number, message: string, hint: string, rule?: string) => void,
): void {
  for (const i of indices) {
    const link = String(head.entries[i]!['pr-link'] ?? '');
    const line = lineOf(head, i, 'pr-link');
    if (pr === undefined) {
      if (!isCanonicalPrLink(link, repository)) {
        report(
          line,
          `new entry ${i + 1} has pr-link "${link}", not a canonical pull request URL`,
          `on main, link the merged pull request: ${prLink('<number>', repository)}`,
          'changelog-pr-link',
        );
      }
    } else if (!isPrLinkPlaceholder(link, repository) && link !== prLink(pr, repository)) {
      report(
        line,
        `new entry ${i + 1} has pr-link "${link}"`,
        `use ${prLink(pr, repository)} (or XXX until the pull request exists)`,
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

const BLANK = /^[ \t]*$/;

/** The history part of a changelog text: up to and including its last non-blank line, with its newline. */
function historyText(text: string): string {
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && BLANK.test(lines[last]!)) last--;
  return last < 0 ? '' : `${lines.slice(0, last + 1).join('\n')}\n`;
}

/**
 * Where the base's history ends in head (a character offset), when head keeps it: line for line,
 * except that a run of blank lines between entries may be cleaned up (spaces emptied, extra
 * blank lines dropped, at least one kept). Blank lines after the last entry belong to what
 * follows (the separator before appended entries, or the end of the file).
 */
function keptHistory(base: string, head: string): { end: number } | { line: number; was: string } {
  const baseLines = historyText(base).split('\n').slice(0, -1);
  const headLines = head.split('\n');
  const blankRun = (lines: string[], from: number, limit = lines.length): number => {
    let n = 0;
    while (from + n < limit && BLANK.test(lines[from + n]!)) n++;
    return n;
  };
  let end = 0;
  let j = 0;
  for (let i = 0; i < baseLines.length;) {
    const was = baseLines[i]!;
    if (BLANK.test(was)) {
      const k = blankRun(baseLines, i);
      const m = blankRun(headLines, j, j + k);
      if (m === 0) return { line: j + 1, was };
      for (let n = 0; n < m; n++) {
        const now = headLines[j + n]!;
        if (now !== baseLines[i + n] && now !== '') return { line: j + n + 1, was: baseLines[i + n]! };
        end += now.length + 1;
      }
      i += k;
      j += m;
      continue;
    }
    const now = headLines[j];
    if (now !== was) return { line: j + 1, was };
    end += now.length + 1;
    i++;
    j++;
  }
  return { end: Math.min(end, head.length) };
}

interface ByteCheck {
  problems: Problem[];
  fixed?: Buffer;
}

function checkBytes(base: Buffer, head: Buffer, additions: number, corrections: number, file: string): ByteCheck {
  const problems: Problem[] = [];
  const report = (line: number, message: string, hint: string, rule = 'changelog-history'): void => {
    problems.push({ severity: severityOf(rule), rule, file, line, col: 1, message, hint });
  };
  const baseText = base.toString('utf8');
  const headText = head.toString('utf8');

  if (corrections > 0 && additions === 0) {
    const baseLines = baseText.split('\n');
    const headLines = headText.split('\n');
    if (baseLines.length !== headLines.length) {
      report(firstDifferentLine(base, head), 'pr-link corrections may not add or delete lines', 'change only the pr-link lines');
      return { problems };
    }
    let changed = 0;
    baseLines.forEach((before, i) => {
      const after = headLines[i]!;
      if (before === after || (BLANK.test(before) && after === '')) return;
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

  const kept = keptHistory(baseText, headText);
  if ('was' in kept) {
    const { line, was } = kept;
    const message =
      additions > 0
        ? `line ${line} differs from the base revision: appended entries must leave history byte-for-byte unchanged`
        : 'the changelog changed without appending an entry or correcting a pr-link: historical whitespace and formatting are immutable';
    report(line, message, `restore line ${line} as it was: ${JSON.stringify(was)}`);
    return { problems };
  }

  // What follows history: appended entries (or only blank lines), repaired and checked.
  const history = headText.slice(0, kept.end);
  const suffix = headText.slice(kept.end);
  const firstLine = history.split('\n').length;
  const { text: repaired, notes } = normaliseAppended(suffix, history === '');
  const baseSuffix = normaliseAppended(baseText.slice(historyText(baseText).length), history === '');
  for (const note of notes) {
    // Layout the base already had, untouched by the change, is not the change's finding.
    if (additions === 0 && baseSuffix.notes.some((n) => n.kind === note.kind)) continue;
    const line = String(firstLine + note.line);
    report(firstLine + note.line, note.message.replace('{line}', line), note.hint.replace('{line}', line), note.rule);
  }
  if (additions > 0 && !repaired.startsWith(history === '' ? '- config-keys:' : '\n- config-keys:')) {
    report(
      firstLine,
      'the appended text does not start with a new entry (`- config-keys:`)',
      'append complete entries at the end of the file',
    );
  }
  if (additions === 0 && repaired.trim() !== '') {
    report(
      firstLine,
      'the changelog changed without appending an entry or correcting a pr-link: historical whitespace and formatting are immutable',
      'restore the base file byte-for-byte',
    );
  }
  const repairable = problems.some((p) => p.rule === 'changelog-separator' || p.rule === 'changelog-layout');
  const fixed = repairable ? Buffer.from(history + repaired) : undefined;
  return { problems, fixed };
}

/** Line number (1-based) of a byte offset. */
function lineAt(raw: Buffer, offset: number): number {
  let line = 1;
  for (let i = raw.indexOf(10); i !== -1 && i < offset; i = raw.indexOf(10, i + 1)) line++;
  return line;
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
  rule: 'changelog-separator' | 'changelog-layout';
  kind: 'final-newline' | 'blank-spaces' | 'trailing-spaces' | 'glued' | 'extra-blanks' | 'trailing-blanks';
  message: string;
  /** What `--fix` does about it ({line}: the line, numbered in the file). */
  hint: string;
}

/**
 * The text after history with exactly one blank line before each entry, no trailing whitespace,
 * and one final newline; and a note for every repair made. `atStart`: there is no history, so
 * the first entry needs no blank line before it.
 */
export function normaliseAppended(suffix: string, atStart: boolean): { text: string; notes: Note[] } {
  const notes: Note[] = [];
  const layout = (line: number, kind: Note['kind'], message: string, hint: string): void => {
    notes.push({ line, rule: 'changelog-layout', kind, message, hint });
  };
  const lines = suffix.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else if (suffix !== '')
    layout(
      lines.length - 1,
      'final-newline',
      'the file does not end with a newline',
      '`frontier changelog check --fix` adds one',
    );

  const out: string[] = [];
  let first = true;
  let blanks = 0;
  lines.forEach((line, inputLine) => {
    const trimmed = line.replace(/[ \t]+$/, '');
    if (trimmed !== line) {
      if (trimmed === '')
        layout(inputLine, 'blank-spaces', 'a blank line holds spaces', '`frontier changelog check --fix` empties line {line}');
      else layout(inputLine, 'trailing-spaces', 'line {line} ends with spaces', '`frontier changelog check --fix` removes them');
    }
    if (trimmed === '') {
      blanks++;
      return;
    }
    if (ENTRY_LINE.test(trimmed)) {
      const need = first && atStart ? 0 : 1;
      if (blanks < need) {
        notes.push({
          line: inputLine,
          rule: 'changelog-separator',
          kind: 'glued',
          message: `a new entry starts right after ${first ? "the previous entry's" : "the entry above's"} last line, with no blank line between them`,
          hint: '`frontier changelog check --fix` inserts one blank line before line {line}',
        });
      } else if (blanks > need) {
        layout(
          inputLine,
          'extra-blanks',
          `${blanks} blank lines before this entry; entries are separated by ${need === 1 ? 'one' : 'none at the start of the file'}`,
          `\`frontier changelog check --fix\` removes ${blanks - need} of them`,
        );
      }
      for (let k = 0; k < need; k++) out.push('');
      first = false;
    } else {
      for (let k = 0; k < blanks; k++) out.push('');
    }
    blanks = 0;
    out.push(trimmed);
  });
  if (blanks > 0 && !(atStart && out.length === 0)) {
    layout(
      lines.length - blanks,
      'trailing-blanks',
      `${blanks === 1 ? 'a blank line' : `${blanks} blank lines`} at the end of the file`,
      "`frontier changelog check --fix` removes them: the file ends with the last entry's newline",
    );
  }
  return { text: out.length > 0 ? `${out.join('\n')}\n` : '', notes };
}
