import { gpuOfRunner, searchSpaceEntries } from '../../catalog/index.js';
import type { MasterConfigEntry, PathSegment, TuningRule } from '../../catalog/index.js';
import { LOCAL_PROFILE } from '../../clusters/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import { adapterFor, tuningProblems } from '../../engines/index.js';
import { planLaunch, planRun } from '../../plan/index.js';
import { generateTestConfig, isAgenticRow } from '../../matrix/index.js';
import type { MultiNodeRow, SingleNodeRow } from '../../matrix/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import { configLocation } from './shared.js';

/**
 * The cluster the rule plans launches on: real engines with no options, on as many nodes of 8 GPUs
 * as a launch needs (the adapters' flags do not depend on them), each row's own GPU.
 */
const reviewCluster = (gpu: string): ClusterProfile => ({
  ...LOCAL_PROFILE,
  name: 'review',
  scheduler: 'local',
  nodes: Number.MAX_SAFE_INTEGER,
  gpusPerNode: 8,
  gpu,
});

/** Every `remove` entry of a config's tuning rules, with its path (entry rules, then each search-space entry's). */
function removes(config: MasterConfigEntry): { flag: string; path: PathSegment[] }[] {
  const out: { flag: string; path: PathSegment[] }[] = [];
  const collect = (rules: TuningRule[] | undefined, base: PathSegment[]): void =>
    rules?.forEach((rule, i) => {
      for (const part of [undefined, 'prefill', 'decode'] as const) {
        const settings = part === undefined ? rule : rule[part];
        settings?.remove?.forEach((flag, k) =>
          out.push({ flag, path: [...base, 'engine-tuning', i, ...(part ? [part] : []), 'remove', k] }),
        );
      }
    });
  collect(config['engine-tuning'], []);
  for (const { entry, path } of searchSpaceEntries(config))
    collect((entry as { 'engine-tuning'?: TuningRule[] })['engine-tuning'], path);
  return out;
}

export const engineTuningRemove: Rule = {
  id: 'config/engine-tuning-remove',
  severity: 'warning',
  scope: 'tree',
  description: "an engine-tuning remove names a flag the framework's adapter renders for the rows it applies to",
  explanation:
    "`remove` drops a flag the engine adapter renders by default (e.g. --kv-cache-dtype). A flag the adapter never renders for those rows is a typo or a leftover: removing it does nothing, and the engine keeps the setting the configuration meant to drop. Each tuned launch of the config is rendered as `frontier run --dry-run` would render it on a cluster with no engine options; fix the flag's spelling (frontier run --dry-run shows the flags rendered) or drop it from remove. Frameworks without an adapter (and the sim) are not checked.",
  check({ head }) {
    const findings: Finding[] = [];
    for (const [key, config] of head.catalog.entries) {
      const written = removes(config);
      if (written.length === 0) continue;
      const adapter = adapterFor(config.framework);
      if (!adapter || config.framework === 'sim') continue;
      let rows;
      try {
        rows = generateTestConfig(new Map([[key, config]]), head.runners ?? { labels: {} }, { configKeys: [key] });
      } catch {
        continue;
      }
      const reported = new Set<string>();
      for (const group of planRun(rows, 'review')) {
        const first = group.rows[0]!;
        // Agentic rows carry no engine tuning.
        if (isAgenticRow(first)) continue;
        const row: SingleNodeRow | MultiNodeRow = first;
        if (row['engine-tuning'] === undefined) continue;
        const plan = planLaunch(group, { cluster: reviewCluster(gpuOfRunner(row.runner)), frontierCommand: ['frontier'] });
        // A launch the adapter cannot render is another rule's (and frontier run's) concern.
        if (plan.kind !== 'adapter') continue;
        const { tuning: _tuning, ...untuned } = plan.deployment;
        let problems: string[];
        try {
          if (adapter.check(untuned).length > 0) continue;
          let port = 8000;
          const launch = adapter.launch(untuned, plan.placement, { next: () => port++ });
          problems = tuningProblems(plan.deployment, launch);
        } catch {
          continue;
        }
        for (const problem of problems) {
          const where = written.find((w) => problem.startsWith(`engine-tuning removes ${w.flag},`));
          const id = `${where?.path.join('.')} ${problem}`;
          if (!where || reported.has(id)) continue;
          reported.add(id);
          findings.push({
            ...configLocation(head, key, where.path),
            message: problem.slice(0, problem.indexOf(':')),
            hint: `fix the flag's spelling or drop it from remove (launch ${group.label}; frontier run --dry-run shows the flags rendered)`,
            subjects: [subject.config(key)],
          });
        }
      }
    }
    return findings;
  },
};
