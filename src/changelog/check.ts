import { isDeepStrictEqual } from 'node:util';
import { ProblemsError, isPlainMapping, parseYaml } from '../catalog/index.js';
import type { Problem, YamlDocument } from '../catalog/index.js';
import { MatrixError, generateTestConfig, rowScenario } from '../matrix/index.js';
import type { DescriptiveFields, MatrixRow, ScenarioType } from '../matrix/index.js';
import { findRecipesDir, recipeInTree } from '../recipes/index.js';
import { AppendOnlyError } from './append-only.js';
import { prLink } from './entry.js';
import { checkHistory } from './history.js';
import { parseChangelog } from './parse.js';
import type { ParsedChangelog } from './parse.js';
import { ChangelogError, buildPlan, resolveEntryKeys } from './plan.js';
import type { Revision } from './plan.js';
import { DEFAULT_CHANGELOG, addedEntries, loadRevision, readChange } from './process.js';
import type { ChangeOptions } from './process.js';
import { measuredFingerprint } from './rows.js';
import type { NoSweep } from './opt-out.js';
import type { Snapshot } from './snapshot.js';

export interface CheckOptions extends ChangeOptions {
  /** The pull request this change belongs to; without it the change is judged as on main. */
  pr?: number | undefined;
  /** The repository whose pull requests entries link to (owner/name; default InferenceX's). */
  repository?: string | undefined;
  /** The recipes folder (default: the first of RECIPE_DIRS the tree has). */
  recipesDir?: string | undefined;
  /** The change says it runs no sweep, and why: pairing is reported, not enforced. */
  noSweep?: NoSweep | undefined;
  /**
   * Per side, the fields of a row that only describe it (src/clusters' descriptiveFields), asked
   * for only when a row differs from its old self in no other field than `fields` (the most that
   * can describe a row); without it every field of a row counts as measured.
   */
  descriptive?:
    { fields: readonly string[]; base: () => Promise<DescriptiveFields>; head: () => Promise<DescriptiveFields> } | undefined;
}

export interface CheckReport {
  ok: boolean;
  additions: number;
  corrections: number;
  /** Master-config keys whose definition differs between base and head. */
  changedConfigs: string[];
  /** Keys the change edited whose rows measure what they measured: only fields that describe them moved. */
  metadataOnly: MetadataOnly[];
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
  const report: CheckReport = { ok: false, additions: 0, corrections: 0, changedConfigs: [], metadataOnly: [], problems };

  const headLog = await parseChangelog(change.head, head.display(file));
  problems.push(...headLog.problems);
  const baseLog = await parseChangelog(change.base, base.display(file));
  const changelogChanged = !change.base.equals(change.head);
  if (changelogChanged && headLog.problems.length === 0 && baseLog.problems.length === 0) {
    const history = checkHistory(baseLog, headLog, options.pr, options.repository);
    problems.push(...history.problems);
    report.additions = history.additions;
    report.corrections = history.corrections;
    report.fixed = history.fixed;
  }

  const headRevision = await loadRevision(head, options);
  let added: Record<string, unknown>[] = [];
  // Only appended entries trigger a sweep (the reference runs the processor only for those): a
  // change that corrects pr-links or cleans up blank lines of history runs none.
  const appends = report.additions > 0 || baseLog.problems.length > 0;
  if (changelogChanged && headLog.problems.length === 0 && appends) {
    try {
      added = await addedEntries(change);
    } catch (e) {
      // A broken history (e.g. a deleted line) is already reported, with its line and fix.
      const historyReported = problems.some((p) => p.rule === 'changelog-history');
      if (!historyReported) problems.push(...sweepProblem(e, headLog, 0, 'the added lines are not entries the sweep can run'));
    }
  }
  if (added.length > 0) problems.push(...(await sweepProblems(added, headLog, headRevision, base, options)));

  const pairing = await checkPairing(base, head, added, headRevision.revision, options);
  report.changedConfigs = pairing.changed;
  report.metadataOnly = pairing.metadataOnly;
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

/** Every CONFIG_FILE / EVAL_CONFIG_FILE value written anywhere in a config's value. */
function configFileValues(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    const m = /^(?:EVAL_)?CONFIG_FILE=(.+)$/.exec(value);
    if (m) out.push(m[1]!);
  } else if (Array.isArray(value)) for (const v of value) configFileValues(v, out);
  else if (isPlainMapping(value)) for (const v of Object.values(value)) configFileValues(v, out);
  return out;
}

/** The recipe files a side's configs name, as bytes by CONFIG_FILE value (undefined: not in the tree). */
async function recipeReader(
  snapshot: Snapshot,
  values: readonly string[],
  options: CheckOptions,
): Promise<(value: string) => Buffer | undefined> {
  const dir = await findRecipesDir((d) => snapshot.list(d), options.recipesDir);
  const paths = new Map(values.map((v) => [v, recipeInTree(v, dir).inTree]));
  const bytes = await snapshot.readMany([...new Set(paths.values())]);
  return (value) => bytes.get(paths.get(value) ?? recipeInTree(value, dir).inTree);
}

/** A key's rows, or undefined when they do not generate (the sweep and config rules say why). */
function keyRows(revision: Revision, key: string): MatrixRow[] | undefined {
  try {
    return generateTestConfig(revision.configs, revision.runners, { configKeys: [key] });
  } catch (e) {
    if (e instanceof MatrixError) return undefined;
    throw e;
  }
}

/** What needs a sweep: per key, its rows the change added or changed (their scenarios). */
interface Unswept {
  key: string;
  /** The key is new. */
  added: boolean;
  /** Its value is the same: a recipe it runs changed. */
  recipeOnly: boolean;
  /** Its rows (0: they do not generate) and how many of them are new or changed. */
  rows: number;
  changed: number;
  scenarios: ScenarioType[];
}

/** A key whose rows changed only in fields that describe them, and those fields. */
export interface MetadataOnly {
  key: string;
  fields: string[];
}

const NOTHING_DESCRIPTIVE: DescriptiveFields = () => new Set();

/**
 * The keys whose matrix rows the change added or changed, compared by what the rows measure
 * (the row without its names and the fields that only describe it, with the bytes of its recipes).
 * Removed rows and rows that measure what they did (metadata-only edits, rows moved between keys
 * the change edited or removed) need no sweep. Where rows cannot be generated, any change of the
 * key's value counts.
 */
async function rowsNeedingSweep(
  base: Snapshot,
  head: Snapshot,
  headRevision: Revision | undefined,
  options: CheckOptions,
): Promise<{ unswept: Unswept[]; metadataOnly: MetadataOnly[]; after: Map<string, { value: unknown; doc: YamlDocument }> }> {
  const [before, after] = await Promise.all([rawConfigs(base, options), rawConfigs(head, options)]);
  const references = new Map([...after].map(([key, { value }]) => [key, configFileValues(value)]));
  const values = [...new Set([...references.values()].flat())];
  const [readBefore, readAfter] = await Promise.all([recipeReader(base, values, options), recipeReader(head, values, options)]);
  const recipeChanged = (v: string): boolean => {
    const [a, b] = [readBefore(v), readAfter(v)];
    return a && b ? !a.equals(b) : a !== b;
  };
  const edited = (k: string): boolean => !isDeepStrictEqual(before.get(k)?.value, after.get(k)!.value);
  const candidates = [...after.keys()].filter((k) => edited(k) || references.get(k)!.some(recipeChanged));
  if (candidates.length === 0) return { unswept: [], metadataOnly: [], after };
  const baseRevision = (await loadRevision(base, options)).revision;
  const byValue = (k: string): Unswept => ({
    key: k,
    added: !before.has(k),
    recipeOnly: !edited(k),
    rows: 0,
    changed: 0,
    scenarios: [],
  });
  if (!headRevision || !baseRevision) return { unswept: candidates.map(byValue), metadataOnly: [], after };
  // Rows could come from the key itself or from any key the change edited or removed (a move or split).
  const origins = [...before.keys()].filter((k) => candidates.includes(k) || !after.has(k));
  const baseRows = origins.flatMap((key) => keyRows(baseRevision, key) ?? []);
  const headRows = new Map(candidates.map((key) => [key, keyRows(headRevision, key)]));
  const written = new Set(baseRows.map((row) => measuredFingerprint(row, readBefore)));
  const sides = { baseRows, written, headRows: [...headRows.values()], readBefore, readAfter };
  const [describeBefore, describeAfter] = (await describedRows(sides, options)) ?? [NOTHING_DESCRIPTIVE, NOTHING_DESCRIPTIVE];
  const known = new Map(baseRows.map((row) => [measuredFingerprint(row, readBefore, describeBefore(row)), row]));
  const unswept: Unswept[] = [];
  const metadataOnly: MetadataOnly[] = [];
  for (const key of candidates) {
    const rows = headRows.get(key);
    if (!rows) {
      unswept.push(byValue(key));
      continue;
    }
    const was = (row: MatrixRow): MatrixRow | undefined => known.get(measuredFingerprint(row, readAfter, describeAfter(row)));
    const changed = rows.filter((row) => !was(row));
    if (changed.length > 0)
      unswept.push({
        ...byValue(key),
        rows: rows.length,
        changed: changed.length,
        scenarios: [...new Set(changed.map(rowScenario))],
      });
    else {
      // Rows that differ as written but measure what they did: which descriptive fields moved.
      const rewritten = rows.filter((row) => !written.has(measuredFingerprint(row, readAfter)));
      const fields = rewritten.flatMap((row) => differingFields(row, was(row)!, describeAfter(row)));
      if (fields.length > 0) metadataOnly.push({ key, fields: [...new Set(fields)].sort() });
    }
  }
  return { unswept, metadataOnly, after };
}

/**
 * Each side's descriptive fields, read only when some head row differs from every base row in
 * nothing but fields that can describe a row (most changes change what is measured, and need no route read).
 */
async function describedRows(
  sides: {
    baseRows: readonly MatrixRow[];
    /** What the base rows measure, every field counted. */
    written: ReadonlySet<string>;
    headRows: readonly (MatrixRow[] | undefined)[];
    readBefore: (value: string) => Buffer | undefined;
    readAfter: (value: string) => Buffer | undefined;
  },
  options: CheckOptions,
): Promise<[DescriptiveFields, DescriptiveFields] | undefined> {
  const { descriptive } = options;
  if (!descriptive) return undefined;
  const { baseRows, written, headRows, readBefore, readAfter } = sides;
  const loose = new Set(descriptive.fields);
  const loosely = new Set(baseRows.map((row) => measuredFingerprint(row, readBefore, loose)));
  const mayBeMetadata = (row: MatrixRow): boolean =>
    !written.has(measuredFingerprint(row, readAfter)) && loosely.has(measuredFingerprint(row, readAfter, loose));
  if (!headRows.some((rows) => rows?.some(mayBeMetadata))) return undefined;
  return Promise.all([descriptive.base(), descriptive.head()]);
}

/** The fields among `fields` whose values differ between two rows. */
function differingFields(a: MatrixRow, b: MatrixRow, fields: ReadonlySet<string>): string[] {
  const [x, y] = [a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>];
  return [...fields].filter((f) => !isDeepStrictEqual(x[f], y[f]));
}

/**
 * Pairing: a master-config key whose rows the change added or changed must be covered by an
 * added entry — unless the change opts out of its sweep (`noSweep`), which the report shows.
 */
async function checkPairing(
  base: Snapshot,
  head: Snapshot,
  added: Record<string, unknown>[],
  headRevision: Revision | undefined,
  options: CheckOptions,
): Promise<{ changed: string[]; metadataOnly: MetadataOnly[]; problems: Problem[] }> {
  const { unswept, metadataOnly, after } = await rowsNeedingSweep(base, head, headRevision, options);
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
  const uncovered = unswept.filter((u) => !covered.has(u.key));
  const scenarios = [...new Set(uncovered.flatMap((u) => u.scenarios))];
  const suggestion = [
    'append an entry to perf-changelog.yaml (after one blank line):',
    '- config-keys:',
    ...uncovered.map((u) => `    - ${u.key}`),
    ...(scenarios.length === 1 ? ['  scenario-type:', `    - ${scenarios[0]}`] : []),
    '  description:',
    '    - "<what changed and why>"',
    `  pr-link: ${options.pr === undefined ? 'XXX' : prLink(options.pr, options.repository)}`,
  ].join('\n      ');
  const problems = uncovered.map((u): Problem => {
    const { doc } = after.get(u.key)!;
    const pos = doc.locate([u.key]);
    const rows = `${u.rows} matrix row${u.rows === 1 ? '' : 's'}`;
    const what = u.added
      ? `config was added${u.rows > 0 ? ` (${rows})` : ''} but no appended perf-changelog.yaml entry covers it`
      : u.rows === 0
        ? `${u.recipeOnly ? 'a recipe of this config changed' : 'config changed'} but no appended perf-changelog.yaml entry covers it`
        : `${u.recipeOnly ? 'a recipe of this config changed' : 'config changed'}: ${u.changed === u.rows ? `all ${rows}` : `${u.changed} of its ${rows}`} measure something new, and no appended perf-changelog.yaml entry covers it`;
    const located = { file: doc.file, line: pos.line, col: pos.col, key: u.key };
    if (options.noSweep) {
      return {
        ...located,
        severity: 'warning',
        rule: 'changelog-no-sweep',
        message: `${what}: no sweep, as the change says (${options.noSweep.source}: ${options.noSweep.reason})`,
        hint: 'results keep describing the configuration before this change until a later entry sweeps it',
      };
    }
    return {
      ...located,
      severity: 'error',
      rule: 'changelog-pairing',
      message: `${what}, so no sweep will run ${u.changed > 1 ? 'them' : 'it'}`,
      hint: `${suggestion}\n      (or, to keep the old results on purpose, say why: a "no-sweep: <reason>" line in the pull request description, or [skip-sweep] in the commit message)`,
    };
  });
  return { changed: unswept.map((u) => u.key), metadataOnly, problems };
}
