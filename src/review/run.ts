import type { MetadataOnly, NoSweep, Snapshot } from '../changelog/index.js';
import { compareTrees, touchedSubjects } from './change.js';
import type { TreeChange } from './tree-change.js';
import type { Rule, RuleContext, RuleFinding } from './rule.js';
import { RULES } from './rules/index.js';
import { appendedEntries, changelogReport } from './rules/changelog.js';
import { changeSweep } from './sweep.js';
import type { KeySweep } from './sweep.js';
import { loadTree } from './tree.js';
import type { Tree, TreeOptions } from './tree.js';

/** Run rules over one context; findings sorted by file and position (rule order breaks ties). */
export async function runRules(rules: readonly Rule[], context: RuleContext): Promise<RuleFinding[]> {
  const perRule = await Promise.all(
    rules.map(async (rule) =>
      (await rule.check(context)).map((f): RuleFinding => ({ ...f, rule: rule.id, severity: rule.severity })),
    ),
  );
  const findings = perRule.flat();
  const files = [...new Set(findings.map((f) => f.file))].sort();
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => files.indexOf(a.f.file) - files.indexOf(b.f.file) || a.f.line - b.f.line || a.f.col - b.f.col || a.i - b.i)
    .map(({ f }) => f);
}

export interface LintReport {
  tree: string;
  keys: number;
  recipes: number;
  findings: RuleFinding[];
  ok: boolean;
}

export type LintOptions = Omit<TreeOptions, 'reuse'>;

/** `frontier lint`: every tree rule over a whole tree. */
export async function lint(snapshot: Snapshot, options: LintOptions = {}): Promise<LintReport> {
  const head = await loadTree(snapshot, options);
  const findings = await runRules(
    RULES.filter((r) => r.scope === 'tree'),
    { head },
  );
  return {
    tree: snapshot.label,
    keys: head.rawConfigs.size,
    recipes: head.recipeBytes.size,
    findings,
    ok: !findings.some((f) => f.severity === 'error'),
  };
}

/**
 * Whose a finding is: the change's own (`new`: it concerns something the change — or, with
 * --since, what changed after that commit — touched), an earlier commit's of the same change
 * (`earlier`, only with --since), or the tree's before the change (`pre-existing`).
 */
export type FindingStatus = 'new' | 'earlier' | 'pre-existing';

export interface ReviewedFinding extends RuleFinding {
  status: FindingStatus;
}

export interface ReviewReport {
  base: string;
  head: string;
  since?: string | undefined;
  change: TreeChange;
  appendedEntries: number;
  sweep: KeySweep[];
  /** Keys the change edited in fields that only describe their rows: they measure what they did, and need no sweep. */
  metadataOnly: MetadataOnly[];
  findings: ReviewedFinding[];
  /** No error among the change's own findings. */
  ok: boolean;
}

export interface ReviewOptions extends LintOptions {
  pr?: number | undefined;
  /** The change's opt-out of its sweep (`[skip-sweep]`, `no-sweep: <reason>`). */
  noSweep?: NoSweep | undefined;
  /** An earlier reviewed commit of the same change: only what changed after it decides. */
  since?: Snapshot | undefined;
}

/**
 * What a finding is about, without where: its rule, subjects and message. A file the change
 * touched does not make an old finding in it new; a finding the base tree has by this key (its
 * construct moved, nothing about it changed) is pre-existing. Messages name the construct and its
 * content, never a line.
 */
function findingKey(f: RuleFinding, tree: Tree): string {
  // Paths are shown with their tree's revision (`<ref>:path`) or folder: the key is the tree's own.
  const where = tree.snapshot.display('');
  const plain = (s: string): string => (where ? s.replaceAll(where, '') : s);
  return JSON.stringify([f.rule, f.subjects.map(plain).sort(), plain(f.message)]);
}

/**
 * The keys of the findings the base tree already had, of the tree rules behind `candidates` (the
 * findings a touched subject would make the change's own): only those rules run again, on the base.
 */
async function baseFindings(candidates: readonly RuleFinding[], baseTree: Tree): Promise<Set<string>> {
  const ids = new Set(candidates.map((f) => f.rule));
  const rules = RULES.filter((r) => r.scope === 'tree' && ids.has(r.id));
  if (rules.length === 0) return new Set();
  return new Set((await runRules(rules, { head: baseTree })).map((f) => findingKey(f, baseTree)));
}

/** `frontier review`: what a change does, what it would run, and every finding, new ones first. */
export async function review(base: Snapshot, head: Snapshot, options: ReviewOptions = {}): Promise<ReviewReport> {
  const { pr, since, noSweep, ...treeOptions } = options;
  const headTree = await loadTree(head, treeOptions);
  const [baseTree, sinceTree] = await Promise.all([
    loadTree(base, { ...treeOptions, reuse: headTree }),
    since ? loadTree(since, { ...treeOptions, reuse: headTree }) : undefined,
  ]);
  return reviewTrees(baseTree, headTree, { pr, noSweep, since: sinceTree });
}

/** The review of two loaded trees (a backtest loads each commit's tree once, for two reviews). */
export async function reviewTrees(
  baseTree: Tree,
  headTree: Tree,
  options: { pr?: number | undefined; noSweep?: NoSweep | undefined; since?: Tree | undefined } = {},
): Promise<ReviewReport> {
  const { pr, noSweep, since } = options;
  const change = await compareTrees(baseTree, headTree);
  const context: RuleContext = { head: headTree, base: baseTree, change, pr, noSweep };
  const [findings, sweep, appended, changelog] = await Promise.all([
    runRules(RULES, context),
    changeSweep(context),
    appendedEntries(context),
    changelogReport(context),
  ]);
  const touched = await touchedSubjects(change, headTree);
  const touchedSince = since ? await touchedSubjects(await compareTrees(since, headTree), headTree) : touched;
  const touchedStatus = (f: RuleFinding): FindingStatus => {
    if (f.subjects.some((s) => touchedSince.has(s))) return 'new';
    return f.subjects.some((s) => touched.has(s)) ? 'earlier' : 'pre-existing';
  };
  const statuses = findings.map(touchedStatus);
  const before = await baseFindings(
    findings.filter((_, i) => statuses[i] !== 'pre-existing'),
    baseTree,
  );
  const reviewed = findings.map((f, i) => ({
    ...f,
    status: statuses[i] !== 'pre-existing' && before.has(findingKey(f, headTree)) ? ('pre-existing' as const) : statuses[i]!,
  }));
  return {
    base: baseTree.snapshot.label,
    head: headTree.snapshot.label,
    since: since?.snapshot.label,
    change,
    appendedEntries: appended.length,
    sweep,
    metadataOnly: changelog.metadataOnly,
    findings: reviewed,
    ok: !reviewed.some((f) => f.status === 'new' && f.severity === 'error'),
  };
}
