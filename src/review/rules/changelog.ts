import { isDeepStrictEqual } from 'node:util';
import { ProblemsError } from '../../catalog/index.js';
import {
  ChangelogError,
  DEFAULT_CHANGELOG,
  addedEntries,
  checkChangelog,
  parseChangelog,
  readChange,
} from '../../changelog/index.js';
import type { CheckReport, ParsedChangelog } from '../../changelog/index.js';
import { DESCRIPTIVE_FIELDS, descriptiveFields } from '../../clusters/index.js';
import type { Problem } from '../../catalog/index.js';
import type { Finding, Rule, RuleContext } from '../rule.js';
import { subject } from '../rule.js';
import { once } from '../../util/once.js';
import { fromProblem } from './shared.js';

/**
 * The changelog gate (`frontier changelog check`) as review rules: one rule per category of
 * problem it reports. In `frontier lint` (no base) only the file's own rules apply.
 */
function changelogProblems(context: RuleContext): Promise<Problem[]> {
  return changelogReport(context).then((r) => r.problems);
}

/** The changelog gate's report on the change, once per review: its problems, and the keys it found edited in metadata only. */
export function changelogReport(context: RuleContext): Promise<Pick<CheckReport, 'problems' | 'metadataOnly'>> {
  return once(context, 'changelog', async () => {
    const { head, base, pr, noSweep } = context;
    const file = head.options.changelogFile ?? DEFAULT_CHANGELOG;
    const raw = await head.snapshot.read(file);
    if (!raw) {
      if (!base || !(await base.snapshot.read(file))) return { problems: [], metadataOnly: [] };
      const message = `${file} was deleted: it is the append-only record of every sweep`;
      const problem: Problem = {
        severity: 'error',
        rule: 'changelog-history',
        file: head.snapshot.display(file),
        line: 0,
        col: 0,
        message,
        hint: `restore ${file}`,
      };
      return { problems: [problem], metadataOnly: [] };
    }
    if (!base) return { problems: (await parseChangelog(raw, head.snapshot.display(file))).problems, metadataOnly: [] };
    const { configFiles, runnerConfig } = head.options;
    return checkChangelog(base.snapshot, head.snapshot, {
      pr,
      noSweep,
      changelogFile: file,
      configFiles,
      runnerConfig,
      recipesDir: head.recipesDir,
      descriptive: { fields: DESCRIPTIVE_FIELDS, base: () => descriptiveFields(base), head: () => descriptiveFields(head) },
    });
  });
}

export interface AppendedEntry {
  entry: Record<string, unknown>;
  /** Index of the entry in the head changelog. */
  index: number;
  log: ParsedChangelog;
}

/** The entries the change appends (none when the changelog gate cannot read them: it reports why). */
export function appendedEntries(context: RuleContext): Promise<AppendedEntry[]> {
  return once(context, 'appended', async () => {
    const { head, base, change } = context;
    if (!base || !change?.changelog.changed) return [];
    const file = head.options.changelogFile ?? DEFAULT_CHANGELOG;
    try {
      const diff = await readChange(base.snapshot, head.snapshot, file);
      const log = await parseChangelog(diff.head, head.snapshot.display(file));
      if (log.problems.length > 0) return [];
      const used = new Set<number>();
      return (await addedEntries(diff)).map((entry) => {
        let index = log.entries.length - 1;
        while (index > 0 && (used.has(index) || !isDeepStrictEqual(log.entries[index], entry))) index--;
        used.add(index);
        return { entry, index, log };
      });
    } catch (e) {
      // The gate (changelog/sweep, changelog/history) reports why the appended lines are unreadable.
      if (e instanceof ChangelogError || e instanceof ProblemsError) return [];
      throw e;
    }
  });
}

function subjectsOf(problem: Problem): string[] {
  if (problem.rule === 'changelog-pairing' || problem.rule === 'changelog-no-sweep')
    return [subject.config(problem.key!), subject.changelogChange];
  if (problem.rule === 'changelog-file' || problem.rule === 'changelog-entry') return [subject.changelogLine(problem.line)];
  return [subject.changelogChange, subject.changelogLine(problem.line)];
}

const gate = (
  category: string,
  scope: Rule['scope'],
  description: string,
  explanation: string,
  severity: Rule['severity'] = 'error',
): Rule => ({
  id: `changelog/${category}`,
  severity,
  scope,
  description,
  explanation,
  check: async (context): Promise<Finding[]> =>
    (await changelogProblems(context))
      .filter((p) => p.rule === `changelog-${category}`)
      .map((p) => fromProblem(p, subjectsOf(p))),
});

export const changelogFile = gate(
  'file',
  'tree',
  'perf-changelog.yaml is UTF-8, ends with a newline and is a YAML list of entries',
  'The sweep is triggered by parsing the lines a change appends to perf-changelog.yaml; a file that is not a clean YAML list stops every sweep. The finding names the byte where it breaks.',
);
export const changelogEntry = gate(
  'entry',
  'tree',
  'every entry has config-keys, description and pr-link of the right types',
  'Entries are read by the sweep processor with a strict model: a missing or mistyped field (a string where a list is expected, an unknown key) fails the whole sweep. Fix the field the finding names.',
);
export const changelogHistory = gate(
  'history',
  'change',
  'entries already on main are never edited, removed or reordered; new ones are appended at the end',
  'perf-changelog.yaml is an append-only audit trail: the sweep runs the lines a change adds, so an edited or inserted entry re-runs or hides the wrong configs. Append a new entry instead (`frontier changelog check --fix` moves a misplaced one to the end).',
);
export const changelogSeparator = gate(
  'separator',
  'change',
  'an appended entry is separated from the previous one by a blank line',
  "An entry glued to the previous one with no blank line between them breaks the line-based merge of concurrent changelog edits (InferenceX's own gate rejects it too). `frontier changelog check --fix` inserts the blank line.",
);
export const changelogLayout = gate(
  'layout',
  'change',
  'appended text has no stray whitespace or blank lines, and new entries are at the end',
  'Spaces on blank lines or at line ends, more than one blank line between entries, blank lines at the end of the file, a missing final newline, and a new entry inserted before older ones change no sweep (the sweep runs the lines a change adds), so they do not block; each finding says what `frontier changelog check --fix` does, and after it the check passes and the sweep is the same. Emptying a blank line of history that holds spaces is allowed.',
  'warning',
);
export const changelogPrLink = gate(
  'pr-link',
  'change',
  "a new entry's pr-link is its pull request (or the XXX placeholder while the PR is open)",
  "pr-link ties each sweep to the pull request that caused it. On main it must be the merged PR's canonical URL; in a PR it may be XXX until the number is known.",
);
export const changelogSweep = gate(
  'sweep',
  'change',
  'the appended entries name existing config keys and generate a sweep',
  'Every config key (or glob) of an appended entry must exist in the head configs, and the sweep of all appended entries must generate (append-only entries may only add points to existing curves). Otherwise the sweep job fails after merge.',
);
export const changelogPairing = gate(
  'pairing',
  'change',
  'every config key whose matrix rows the change adds or changes is covered by an appended changelog entry',
  'A config change without a changelog entry is never benchmarked: results keep describing the old configuration. Pairing compares the matrix rows each key generates before and after (what they measure: the row without its names, with the bytes of its recipes): added or changed rows need an entry; removed rows and unchanged rows (comments, a search space moved between keys) do not. Append an entry naming the key (the hint has one to paste), or opt out on purpose (changelog/no-sweep).',
);
export const changelogNoSweep = gate(
  'no-sweep',
  'change',
  'a change that changes matrix rows without a sweep says so, and why',
  'When maintainers change rows on purpose without re-running them (a label fix, a point dropped because it hangs), they say so: `[skip-sweep]` in the head commit message (as InferenceX does) or a `no-sweep: <reason>` line in the pull request description or commit message. Pairing is then not enforced, and this finding records which keys go unswept and why.',
  'warning',
);
