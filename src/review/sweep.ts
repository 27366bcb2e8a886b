import { ChangelogError, resolveEntryKeys } from '../changelog/index.js';
import { topologyLabel } from '../contract/index.js';
import {
  MatrixError,
  applyEvalSelection,
  generateTestConfig,
  isAgenticRow,
  isMultiNodeRow,
  rowTopology,
} from '../matrix/index.js';
import type { MatrixRow, ScenarioType } from '../matrix/index.js';
import type { RuleContext } from './rule.js';
import { appendedEntries } from './rules/changelog.js';

/** What the sweep of a change runs for one config key. */
export interface KeySweep {
  key: string;
  /** Benchmark rows per scenario (`ISL 8192 / OSL 1024`, `agentic-coding`). */
  scenarios: Record<string, number>;
  rows: number;
  /** Benchmark points: one per concurrency. */
  points: number;
  evalRows: number;
  /** Concurrencies per recipe (multinode: its CONFIG_FILE; single-node: its topology, e.g. TP8). */
  runs: { run: string; conc: number[] }[];
  /** Why the key's rows could not be generated (the changelog rules report it too). */
  error?: string;
}

/** `ISL 8192 / OSL 1024`, or `agentic-coding`. */
export const scenarioLabel = (row: MatrixRow): string =>
  isAgenticRow(row) ? 'agentic-coding' : `ISL ${(row as { isl: number }).isl} / OSL ${(row as { osl: number }).osl}`;

function runLabel(row: MatrixRow): string {
  if (isMultiNodeRow(row)) {
    const config = row.prefill['additional-settings']?.find((s) => s.startsWith('CONFIG_FILE='));
    if (config) return config.slice('CONFIG_FILE='.length);
  }
  return topologyLabel(rowTopology(row));
}

/** The sweep the appended changelog entries trigger, key by key (as `frontier changelog matrix` runs it). */
export async function changeSweep(context: RuleContext): Promise<KeySweep[]> {
  const { head } = context;
  const runners = head.runners;
  if (!runners) return [];
  const wanted = new Map<string, { scenarios: Set<ScenarioType> | undefined; benchmark: boolean; allEvals: boolean }>();
  const available = [...head.catalog.entries.keys()];
  for (const { entry } of await appendedEntries(context)) {
    let keys: string[];
    try {
      keys = resolveEntryKeys((entry['config-keys'] as string[]) ?? [], available);
    } catch (e) {
      if (e instanceof ChangelogError) continue; // changelog/sweep reports it
      throw e;
    }
    const scenarios = entry['scenario-type'] as ScenarioType[] | undefined;
    for (const key of keys) {
      const w = wanted.get(key) ?? { scenarios: new Set<ScenarioType>(), benchmark: false, allEvals: false };
      w.scenarios = scenarios && w.scenarios ? new Set([...w.scenarios, ...scenarios]) : undefined;
      w.benchmark ||= entry['evals-only'] !== true && entry['all-evals'] !== true;
      w.allEvals ||= entry['all-evals'] === true;
      wanted.set(key, w);
    }
  }
  const out: KeySweep[] = [];
  for (const [key, w] of [...wanted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const sweep: KeySweep = { key, scenarios: {}, rows: 0, points: 0, evalRows: 0, runs: [] };
    out.push(sweep);
    const generate = (): MatrixRow[] =>
      generateTestConfig(head.catalog.entries, runners, { configKeys: [key], scenarioType: w.scenarios && [...w.scenarios] });
    try {
      sweep.evalRows = applyEvalSelection(generate(), { evalsOnly: true, allEvals: w.allEvals }).length;
      if (!w.benchmark) continue;
      const runs = new Map<string, Set<number>>();
      for (const row of applyEvalSelection(generate(), { noEvals: true })) {
        const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
        const label = scenarioLabel(row);
        sweep.scenarios[label] = (sweep.scenarios[label] ?? 0) + 1;
        sweep.rows++;
        sweep.points += concs.length;
        const run = runLabel(row);
        runs.set(run, new Set([...(runs.get(run) ?? []), ...concs]));
      }
      sweep.runs = [...runs].map(([run, conc]) => ({ run, conc: [...conc].sort((a, b) => a - b) }));
    } catch (e) {
      if (!(e instanceof MatrixError)) throw e;
      sweep.error = e.message;
    }
  }
  return out;
}
