import { isDeepStrictEqual } from 'node:util';
import { ProblemsError, isPlainMapping, parseYaml } from '../catalog/index.js';
import type { Problem, YamlDocument } from '../catalog/index.js';
import { MatrixError } from '../matrix/index.js';
import { AppendOnlyError } from './append-only.js';
import { prLink } from './entry.js';
import { checkHistory } from './history.js';
import { parseChangelog } from './parse.js';
import type { ParsedChangelog } from './parse.js';
import { ChangelogError, buildPlan, resolveEntryKeys } from './plan.js';
import type { Revision } from './plan.js';
import { DEFAULT_CHANGELOG, addedEntries, loadRevision, readChange } from './process.js';
import type { ChangeOptions } from './process.js';
import type { Snapshot } from './snapshot.js';

export interface CheckOptions extends ChangeOptions {
  /** The pull request this change belongs to; without it the change is judged as on main. */
  pr?: number | undefined;
}

export interface CheckReport {
  ok: boolean;
  additions: number;
  corrections: number;
  /** Master-config keys whose definition differs between base and head. */
  changedConfigs: string[];
  problems: Problem[];
  /** The head changelog with separator problems repaired, when `--fix` can help. */
  fixed?: Buffer | undefined;
}

/**
 * The changelog gate: the file's own rules, the history rules, the sweep rules (the added entries
 * resolve and generate), and pairing (every changed master-config key is covered by an entry).
 */
export async function checkChangelog(base: Snapshot, head: Snapshot, options: CheckOptions = {}): Promise<CheckReport> {
  const file = options.changelogFile ?? DEFAULT_CHANGELOG;
  const change = await readChange(base, head, file);
  const problems: Problem[] = [];
  const report: CheckReport = { ok: false, additions: 0, corrections: 0, changedConfigs: [], problems };

  const headLog = await parseChangelog(change.head, head.display(file));
  problems.push(...headLog.problems);
  const baseLog = await parseChangelog(change.base, base.display(file));
  const changelogChanged = !change.base.equals(change.head);
  if (changelogChanged && headLog.problems.length === 0 && baseLog.problems.length === 0) {
    const history = checkHistory(baseLog, headLog, options.pr);
    problems.push(...history.problems);
    report.additions = history.additions;
    report.corrections = history.corrections;
    report.fixed = history.fixed;
  }

  const headRevision = await loadRevision(head, options);
  let added: Record<string, unknown>[] = [];
  // A change that only corrects pr-links triggers no sweep (the reference runs the processor only
  // for appended entries).
  const onlyCorrections = report.corrections > 0 && report.additions === 0;
  if (changelogChanged && headLog.problems.length === 0 && !onlyCorrections) {
    try {
      added = await addedEntries(change);
    } catch (e) {
      // A broken history (e.g. a deleted line) is already reported, with its line and fix.
      const historyReported = problems.some((p) => p.rule === 'changelog-history');
      if (!historyReported) problems.push(...sweepProblem(e, headLog, 0, 'the added lines are not entries the sweep can run'));
    }
  }
  if (added.length > 0) problems.push(...(await sweepProblems(added, headLog, headRevision, base, options)));

  const pairing = await checkPairing(base, head, added, options);
  report.changedConfigs = pairing.changed;
  problems.push(...pairing.problems);
  // Grouped by file (in the order files first come up), then by position.
  const files = [...new Set(problems.map((p) => p.file))];
  problems.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
  report.ok = !problems.some((p) => p.severity === 'error');
  return report;
}

/** Where an added entry is in the head file (added entries are matched to head entries by value). */
function entryIndex(headLog: ParsedChangelog, entry: Record<string, unknown>): number {
  for (let i = headLog.entries.length - 1; i >= 0; i--) if (isDeepStrictEqual(headLog.entries[i], entry)) return i;
  return headLog.entries.length - 1;
}

function sweepProblem(
  e: unknown,
  headLog: ParsedChangelog,
  index: number,
  fallback: string,
  path: (string | number)[] = [],
): Problem[] {
  if (e instanceof ProblemsError) return e.problems;
  if (!(e instanceof ChangelogError || e instanceof AppendOnlyError || e instanceof MatrixError)) throw e;
  const pos = headLog.doc?.locate([index, ...path]) ?? { line: 1, col: 1 };
  return [
    {
      severity: 'error',
      rule: 'changelog-sweep',
      file: headLog.file,
      line: pos.line,
      col: pos.col,
      key: `entry ${index + 1}`,
      message: e.message.split('\n')[0]!,
      hint: hintFor(e, fallback),
    },
  ];
}

function hintFor(e: Error, fallback: string): string {
  if (e instanceof AppendOnlyError)
    return 'append-only entries may only add concurrency points to existing curves; use a regular entry otherwise';
  if (/not found in master configs|matched the wildcard/.test(e.message))
    return 'name an existing config key (or a glob that matches one) in this revision';
  return fallback;
}

/** Sweep rules: every key resolves, and the sweep of all added entries generates. */
async function sweepProblems(
  added: Record<string, unknown>[],
  headLog: ParsedChangelog,
  headRevision: Awaited<ReturnType<typeof loadRevision>>,
  base: Snapshot,
  options: CheckOptions,
): Promise<Problem[]> {
  if (!headRevision.revision) return headRevision.problems;
  const available = [...headRevision.revision.configs.keys()];
  const problems: Problem[] = [];
  for (const entry of added) {
    const index = entryIndex(headLog, entry);
    const keys = (entry['config-keys'] as string[]) ?? [];
    keys.forEach((key, k) => {
      try {
        resolveEntryKeys([key], available);
      } catch (e) {
        problems.push(...sweepProblem(e, headLog, index, '', ['config-keys', k]));
      }
    });
  }
  if (problems.length > 0) return problems;
  let baseRevision: Revision | undefined;
  if (added.some((e) => e['append-only'] === true)) {
    const loaded = await loadRevision(base, options);
    if (!loaded.revision) return loaded.problems;
    baseRevision = loaded.revision;
  }
  try {
    buildPlan(added, { baseLabel: base.label, headLabel: '', head: headRevision.revision, base: baseRevision });
  } catch (e) {
    problems.push(...sweepProblem(e, headLog, entryIndex(headLog, added[0]!), 'fix the entry or the configs it names'));
  }
  return problems;
}

/** The master-config values of one side, by key, without validating them. */
async function rawConfigs(
  snapshot: Snapshot,
  options: ChangeOptions,
): Promise<Map<string, { value: unknown; doc: YamlDocument }>> {
  const out = new Map<string, { value: unknown; doc: YamlDocument }>();
  for (const path of options.configFiles ?? (await snapshot.masterConfigs())) {
    const raw = await snapshot.read(path);
    if (!raw) continue;
    const doc = await parseYaml(raw, snapshot.display(path));
    if (!isPlainMapping(doc.value)) continue;
    for (const [key, value] of Object.entries(doc.value)) if (!out.has(key)) out.set(key, { value, doc });
  }
  return out;
}

/**
 * Pairing: a master-config key whose definition differs between base and head (new keys
 * included; removed keys cannot be benchmarked) must be covered by an added entry.
 */
async function checkPairing(
  base: Snapshot,
  head: Snapshot,
  added: Record<string, unknown>[],
  options: CheckOptions,
): Promise<{ changed: string[]; problems: Problem[] }> {
  const [before, after] = await Promise.all([rawConfigs(base, options), rawConfigs(head, options)]);
  const changed = [...after.keys()].filter((k) => !isDeepStrictEqual(before.get(k)?.value, after.get(k)!.value));
  const available = [...after.keys()];
  const covered = new Set<string>();
  for (const entry of added) {
    for (const pattern of (entry['config-keys'] as string[]) ?? []) {
      try {
        for (const key of resolveEntryKeys([pattern], available)) covered.add(key);
      } catch {
        // Reported by the sweep rules.
      }
    }
  }
  const uncovered = changed.filter((k) => !covered.has(k));
  const suggestion = (keys: string[]): string =>
    [
      'append an entry to perf-changelog.yaml (after one blank line):',
      '- config-keys:',
      ...keys.map((k) => `    - ${k}`),
      '  description:',
      '    - "<what changed and why>"',
      `  pr-link: ${options.pr === undefined ? 'XXX' : prLink(options.pr)}`,
    ].join('\n      ');
  const problems = uncovered.map((key): Problem => {
    const { doc } = after.get(key)!;
    const pos = doc.locate([key]);
    const what = before.has(key) ? 'changed' : 'was added';
    return {
      severity: 'error',
      rule: 'changelog-pairing',
      file: doc.file,
      line: pos.line,
      col: pos.col,
      key,
      message: `config ${what} but no appended perf-changelog.yaml entry covers it, so no sweep will run it`,
      hint: suggestion(uncovered),
    };
  });
  return { changed, problems };
}
