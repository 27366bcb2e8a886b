import { ChangelogError, measuredFingerprint, resolveEntryKeys } from '../../changelog/index.js';
import { MatrixError, applyEvalSelection, generateTestConfig } from '../../matrix/index.js';
import type { DescriptiveFields, MatrixRow, ScenarioType } from '../../matrix/index.js';
import { descriptiveFields } from '../../clusters/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import { recipeTreePath } from '../tree.js';
import type { Tree } from '../tree.js';
import { scenarioLabel } from '../sweep.js';
import { appendedEntries } from './changelog.js';

/** What a row measures (without the fields that only describe it), including the bytes of the recipes it runs. */
const fingerprint = (tree: Tree, describes: DescriptiveFields, row: MatrixRow): string =>
  measuredFingerprint(row, (value) => tree.recipeBytes.get(recipeTreePath(tree, value).inTree), describes(row));

/** The benchmark rows of one key; none when it does not generate (changelog/sweep says why). */
function rowsOf(tree: Tree, key: string, scenarioType?: ScenarioType[]): MatrixRow[] {
  try {
    const rows = generateTestConfig(tree.catalog.entries, tree.runners!, { configKeys: [key], scenarioType });
    return applyEvalSelection(rows, { noEvals: true });
  } catch (e) {
    if (e instanceof MatrixError) return [];
    throw e;
  }
}

export const rerunsUntouchedScenario: Rule = {
  id: 'changelog/reruns-untouched-scenario',
  severity: 'warning',
  scope: 'change',
  description: 'an appended entry does not re-run scenarios whose rows the change left as they were',
  explanation:
    "The sweep runs every scenario of every key an appended entry names. When a change edits one scenario of a key (or splits a key into per-scenario keys, e.g. 1k1k and 8k1k) the other scenarios' rows are unchanged, and re-running them spends GPU hours to reproduce published results. Keep an untouched scenario where it was, or restrict the entry with scenario-type; re-run on purpose only when something outside the config changed.",
  check: async (context) => {
    const { head, base, change } = context;
    if (!base || !change || !head.runners || !base.runners) return [];
    const changed = new Set([...change.keys.added, ...change.keys.edited]);
    const entries = await appendedEntries(context);
    if (entries.length === 0) return [];
    const describes = new Map(await Promise.all([base, head].map(async (t) => [t, await descriptiveFields(t)] as const)));
    // Per key and scenario: what its rows measure.
    const scenarios = (tree: Tree, key: string, scenarioType?: ScenarioType[]): Map<string, Set<string>> => {
      const out = new Map<string, Set<string>>();
      for (const row of rowsOf(tree, key, scenarioType)) {
        const label = scenarioLabel(row);
        out.set(label, (out.get(label) ?? new Set()).add(fingerprint(tree, describes.get(tree)!, row)));
      }
      return out;
    };
    const baseScenarios = new Map<string, Map<string, Set<string>>>();
    const before = (key: string): Map<string, Set<string>> => {
      if (!baseScenarios.has(key)) baseScenarios.set(key, scenarios(base, key));
      return baseScenarios.get(key)!;
    };
    const same = (a: Set<string>, b: Set<string> | undefined): boolean =>
      b !== undefined && a.size === b.size && [...a].every((x) => b.has(x));
    const available = [...head.catalog.entries.keys()];
    const out: Finding[] = [];
    const reported = new Set<string>();
    for (const { entry, index, log } of entries) {
      if (entry['evals-only'] === true || entry['append-only'] === true) continue;
      const patterns = (entry['config-keys'] as string[] | undefined) ?? [];
      patterns.forEach((pattern, k) => {
        let keys: string[];
        try {
          keys = resolveEntryKeys([pattern], available);
        } catch (e) {
          if (e instanceof ChangelogError) return; // changelog/sweep reports keys that do not resolve
          throw e;
        }
        for (const key of keys.filter((key) => changed.has(key))) {
          // Where the rows could have come from: the key itself, or a key the change removed (a split or rename).
          const origins = [key, ...change.keys.removed].filter((o) => base.catalog.entries.has(o));
          for (const [label, rows] of scenarios(head, key, entry['scenario-type'] as ScenarioType[] | undefined)) {
            const origin = origins.find((o) => same(rows, before(o).get(label)));
            if (!origin || reported.has(`${key}\0${label}`)) continue;
            reported.add(`${key}\0${label}`);
            const pos = log.doc!.locate([index, 'config-keys', k]);
            const from = origin === key ? 'before this change' : `under ${origin} before this change`;
            out.push({
              file: log.file,
              line: pos.line,
              col: pos.col,
              key,
              path: `config-keys[${k}]`,
              message: `re-runs ${key} ${label}: its ${rows.size} row${rows.size === 1 ? ' is' : 's are'} exactly as ${from}`,
              hint:
                origin === key
                  ? `name only keys whose rows changed; to change one scenario of ${key} without re-running the others, give that scenario its own key, or restrict the entry with scenario-type`
                  : `the change moved ${label} from ${origin} to ${key} unchanged; keep untouched scenarios out of the split, or accept the re-run if it is intended`,
              subjects: [subject.changelogLine(pos.line), subject.changelogChange],
            });
          }
        }
      });
    }
    return out;
  },
};
