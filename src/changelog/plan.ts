import type { MasterConfigEntry, RunnerConfig } from '../catalog/index.js';
import { applyEvalSelection, generateTestConfig, isAgenticRow, isMultiNodeRow, seqLenName } from '../matrix/index.js';
import type { MatrixRow, MultiNodeRow } from '../matrix/index.js';
import { appendOnlyDelta, validateAppendOnlyScope } from './append-only.js';
import type { ScenarioName } from './append-only.js';
import type { ChangelogEntry } from './entry.js';
import type { ChangelogMatrix } from './output.js';
import { recipeFingerprint, trimConc } from './rows.js';
import { UserError } from '../util/user-error.js';

/**
 * Turn changelog entries into the sweep they trigger: the reference `process_changelog.py`
 * (build_plan). Each entry's keys are benchmarked (unless eval-only) and evaluated; a config's
 * scenario is benchmarked and evaluated at most once across entries, all-evals entries first.
 */

export const SCENARIOS: readonly ScenarioName[] = ['fixed-seq-len', 'agentic-coding'];

export class ChangelogError extends UserError {}

/** Master configs and runners of one revision. */
export interface Revision {
  configs: ReadonlyMap<string, MasterConfigEntry>;
  runners: RunnerConfig;
}

export interface PlanOptions {
  baseLabel: string;
  headLabel: string;
  head: Revision;
  /** Needed only for append-only entries. */
  base?: Revision | undefined;
  trimConc?: boolean;
  allEvals?: boolean;
  evalsOnly?: boolean;
}

/**
 * Resolve an entry's config keys: exact names, or `*` globs matched against the whole key in
 * catalog order; de-duplicated in order.
 */
export function resolveEntryKeys(patterns: readonly string[], available: readonly string[]): string[] {
  const out = new Set<string>();
  const known = new Set(available);
  for (const pattern of patterns) {
    if (pattern.includes('*')) {
      const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
      const matches = available.filter((k) => re.test(k));
      if (matches.length === 0)
        throw new ChangelogError(`No config keys matched the wildcard pattern '${pattern}' in master configs.`);
      for (const m of matches) out.add(m);
    } else if (!known.has(pattern)) {
      throw new ChangelogError(`Config key '${pattern}' not found in master configs.`);
    } else {
      out.add(pattern);
    }
  }
  return [...out];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Claim config/scenario pairs not covered yet, grouped by the scenarios they still need. */
function claimUnseen(
  keys: string[],
  scenarios: readonly ScenarioName[],
  seen: Map<string, Set<ScenarioName>>,
): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const done = seen.get(key) ?? new Set<ScenarioName>();
    seen.set(key, done);
    const unseen = SCENARIOS.filter((s) => scenarios.includes(s) && !done.has(s));
    if (unseen.length === 0) continue;
    for (const s of unseen) done.add(s);
    const id = unseen.join(',');
    groups.set(id, [...(groups.get(id) ?? []), key]);
  }
  return groups;
}

export function buildPlan(entries: readonly Record<string, unknown>[], options: PlanOptions): ChangelogMatrix {
  if (entries.length === 0) throw new ChangelogError('No valid YAML entries found in the changelog additions.');
  const parsed = entries as ChangelogEntry[];
  const appendOnly = parsed.some((e) => e['append-only']);
  if (appendOnly && !parsed.every((e) => e['append-only'])) {
    throw new ChangelogError('append-only entries cannot share a sweep with regular changelog entries');
  }
  if (appendOnly && (options.allEvals || options.evalsOnly)) {
    throw new ChangelogError('append-only sweeps cannot use all-evals or evals-only modifiers');
  }
  const { head, base } = options;
  const available = [...head.configs.keys()];
  const resolved = parsed.map((entry) => ({ entry, keys: resolveEntryKeys(entry['config-keys'], available) }));

  if (appendOnly) {
    if (!base) throw new ChangelogError('append-only entries need the base revision');
    const selected = new Map<string, Set<ScenarioName>>();
    for (const { entry, keys } of resolved) {
      for (const key of keys) {
        const scopes = selected.get(key) ?? new Set<ScenarioName>();
        for (const s of entry['scenario-type'] ?? SCENARIOS) scopes.add(s);
        selected.set(key, scopes);
      }
    }
    const missing = [...selected.keys()].filter((k) => !base.configs.has(k)).sort();
    if (missing.length > 0) {
      throw new ChangelogError(
        `append-only requires every selected config to exist in the base revision; missing: [${missing.map((k) => `'${k}'`).join(', ')}]`,
      );
    }
    validateAppendOnlyScope(base.configs, head.configs, selected);
  }

  // all-evals entries first (a stable sort), so their wider eval selection wins.
  const ordered = [...resolved].sort((a, b) => Number(!a.entry['all-evals']) - Number(!b.entry['all-evals']));
  const benchmarks: MatrixRow[] = [];
  const evals: MatrixRow[] = [];
  const benchmarked = new Map<string, Set<ScenarioName>>();
  const evaluated = new Map<string, Set<ScenarioName>>();
  const generate = (revision: Revision, keys: string[], scenarios: ScenarioName[]): MatrixRow[] =>
    generateTestConfig(revision.configs, revision.runners, { configKeys: keys, scenarioType: scenarios });

  for (const { entry, keys } of ordered) {
    const scenarios = entry['scenario-type'] ?? SCENARIOS;
    const suppressThroughput = options.evalsOnly || entry['evals-only'] || entry['all-evals'];
    if (!suppressThroughput) {
      for (const [id, group] of claimUnseen(keys, scenarios, benchmarked)) {
        const wanted = id.split(',') as ScenarioName[];
        let rows = applyEvalSelection(generate(head, group, wanted), { noEvals: true });
        if (entry['append-only'])
          rows = appendOnlyDelta(applyEvalSelection(generate(base!, group, wanted), { noEvals: true }), rows);
        benchmarks.push(...rows);
      }
    }
    if (entry['append-only']) continue;
    for (const [id, group] of claimUnseen(keys, scenarios, evaluated)) {
      const wanted = id.split(',') as ScenarioName[];
      const rows = applyEvalSelection(generate(head, group, wanted), {
        evalsOnly: true,
        allEvals: Boolean(options.allEvals || entry['all-evals']),
      });
      evals.push(...dropLowPrefillEp(rows, entry['eval-min-prefill-ep']));
    }
  }

  const matrix: ChangelogMatrix = {
    single_node: {},
    multi_node: {},
    evals: [],
    agentic_evals: [],
    multinode_evals: [],
    multinode_agentic_evals: [],
    changelog_metadata: { base_ref: options.baseLabel, head_ref: options.headLabel, entries: [...entries] },
  };
  for (const row of options.trimConc ? trimConc(benchmarks) : benchmarks) {
    (row as MatrixRow & { 'recipe-fingerprint'?: string })['recipe-fingerprint'] = recipeFingerprint(row);
    const side = isMultiNodeRow(row) ? matrix.multi_node : matrix.single_node;
    const bucket = isAgenticRow(row) ? 'agentic' : seqLenName((row as MultiNodeRow).isl, (row as MultiNodeRow).osl);
    (side[bucket] ??= []).push(row);
  }
  for (const row of evals) {
    const bucket = `${isMultiNodeRow(row) ? 'multinode_' : ''}${isAgenticRow(row) ? 'agentic_evals' : 'evals'}` as const;
    matrix[bucket].push(row);
  }
  return matrix;
}

/** eval-min-prefill-ep: drop multinode eval rows whose prefill expert parallelism is below it. */
function dropLowPrefillEp(rows: MatrixRow[], minEp: number | undefined): MatrixRow[] {
  if (minEp === undefined) return rows;
  return rows.filter((row) => !isMultiNodeRow(row) || row.prefill.ep >= minEp);
}
