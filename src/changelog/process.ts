import { ProblemsError, hasErrors, loadMasterConfigs, loadRunners, parseYaml } from '../catalog/index.js';
import type { Catalog, Problem } from '../catalog/index.js';
import { ChangelogEntry as ChangelogEntrySchema } from './entry.js';
import type { ChangelogMatrix } from './output.js';
import { ChangelogError, buildPlan } from './plan.js';
import type { Revision } from './plan.js';
import { diffLines } from './snapshot.js';
import type { DiffLine, Snapshot } from './snapshot.js';

export const DEFAULT_CHANGELOG = 'perf-changelog.yaml';
export const DEFAULT_RUNNERS = 'configs/runners.yaml';

export interface ChangeOptions {
  changelogFile?: string;
  /** Master-config files; default: `configs/*-master.yaml` of each side. */
  configFiles?: string[];
  runnerConfig?: string;
}

/** A revision's catalog (master configs and runners), with every problem found loading it. */
export async function loadRevision(
  snapshot: Snapshot,
  options: ChangeOptions = {},
): Promise<{ revision?: Revision; catalog: Catalog; problems: Problem[] }> {
  const readFile = (path: string): Promise<Buffer | undefined> => snapshot.read(path);
  const files = options.configFiles ?? (await snapshot.masterConfigs());
  const loaded = await loadMasterConfigs(files, { readFile });
  const problems = loaded.problems.map((p) => ({ ...p, file: snapshot.display(p.file) }));
  if (hasErrors(problems)) return { catalog: loaded.value, problems };
  const runners = await loadRunners(options.runnerConfig ?? DEFAULT_RUNNERS, { readFile });
  problems.push(...runners.problems.map((p) => ({ ...p, file: snapshot.display(p.file) })));
  if (!runners.value) return { catalog: loaded.value, problems };
  return { revision: { configs: loaded.value.entries, runners: runners.value }, catalog: loaded.value, problems };
}

/** Both versions of the changelog file and its added/deleted lines (as `git diff` shows them). */
export interface ChangelogChange {
  file: string;
  base: Buffer;
  head: Buffer;
  lines: DiffLine[];
}

export async function readChange(base: Snapshot, head: Snapshot, file = DEFAULT_CHANGELOG): Promise<ChangelogChange> {
  const [baseRaw, headRaw] = await Promise.all([base.read(file), head.read(file)]);
  if (!headRaw) throw new ChangelogError(`${file} does not exist at ${head.label}`);
  const baseBytes = baseRaw ?? Buffer.alloc(0);
  const lines = baseBytes.equals(headRaw) ? [] : await diffLines(baseBytes, headRaw);
  return { file, base: baseBytes, head: headRaw, lines };
}

/**
 * The entries a change adds, as the reference reads them: the added lines of the diff parsed as
 * one YAML list. A deleted line with content is refused (the file is append-only).
 */
export async function addedEntries(change: ChangelogChange): Promise<Record<string, unknown>[]> {
  const deleted = change.lines.find((l) => l.kind === '-' && l.text.trim() !== '');
  if (deleted) {
    throw new ChangelogError(
      `Deletions are not allowed in ${change.file}. Only additions to the changelog are permitted. Found deleted line: ${deleted.text}`,
    );
  }
  const added = change.lines
    .filter((l) => l.kind === '+')
    .map((l) => l.text)
    .join('\n');
  if (added.trim() === '') throw new ChangelogError('No additions found in the changelog file.');
  const doc = await parseYaml(added, `${change.file} (added lines)`);
  if (doc.problems.length > 0) throw new ProblemsError(doc.problems);
  const data = doc.value;
  if (!data || (Array.isArray(data) && data.length === 0)) {
    throw new ChangelogError('No valid YAML entries found in the changelog additions.');
  }
  if (!Array.isArray(data)) throw new ChangelogError('The changelog additions must be a YAML list of entries.');
  data.forEach((entry, i) => {
    const result = ChangelogEntrySchema.safeParse(entry);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new ChangelogError(`added entry ${i + 1}: ${issue.path.join('.') || 'entry'}: expected ${issue.message}`);
    }
  });
  return data as Record<string, unknown>[];
}

export interface MatrixFlags {
  trimConc?: boolean;
  allEvals?: boolean;
  evalsOnly?: boolean;
  baseLabel?: string;
  headLabel?: string;
}

/** `frontier changelog matrix`: the sweep triggered by the entries appended between base and head. */
export async function changelogMatrix(
  base: Snapshot,
  head: Snapshot,
  options: ChangeOptions & MatrixFlags = {},
): Promise<ChangelogMatrix> {
  const change = await readChange(base, head, options.changelogFile);
  const entries = await addedEntries(change);
  const headRevision = await loadRevision(head, options);
  if (!headRevision.revision) throw new ProblemsError(headRevision.problems);
  let baseRevision: Revision | undefined;
  if (entries.some((e) => e['append-only'] === true)) {
    const loaded = await loadRevision(base, options);
    if (!loaded.revision) throw new ProblemsError(loaded.problems);
    baseRevision = loaded.revision;
  }
  return buildPlan(entries, {
    baseLabel: options.baseLabel ?? base.label,
    headLabel: options.headLabel ?? head.label,
    head: headRevision.revision,
    base: baseRevision,
    trimConc: options.trimConc,
    allEvals: options.allEvals,
    evalsOnly: options.evalsOnly,
  });
}
