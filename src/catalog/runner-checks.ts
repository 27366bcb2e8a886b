import { closest, problemAt } from './issues.js';
import type { Subject } from './issues.js';
import type { Catalog } from './load.js';
import type { Problem } from './problems.js';
import { searchSpaceEntries } from './rules.js';
import type { AgenticSearchSpaceEntry, RunnerConfig } from './schema.js';
import { TopologyError, agenticDramGpus } from './topology.js';

/** Checks of a validated catalog against runners.yaml. */

/** Runner labels used by the catalog but missing from runners.yaml (warnings: the reference tolerates them). */
export function checkRunnerLabels(catalog: Catalog, runners: RunnerConfig): Problem[] {
  const problems: Problem[] = [];
  const labels = Object.keys(runners.labels);
  for (const [key, config] of catalog.entries) {
    if (Object.prototype.hasOwnProperty.call(runners.labels, config.runner)) continue;
    const subject: Subject = { doc: catalog.origin.get(key)!, base: [key], key };
    const near = closest(config.runner, labels);
    problems.push(
      problemAt(subject, ['runner'], `runner label "${config.runner}" is not defined in runners.yaml`, {
        rule: 'runner-label',
        severity: 'warning',
        hint: near ? `did you mean "${near}"? Otherwise add it under labels:` : 'add it under labels: in runners.yaml',
      }),
    );
  }
  return problems;
}

/** Agentic kv-offloading: dram entries whose DRAM budget cannot be computed from runners.yaml. */
export function checkDramBudgets(catalog: Catalog, runners: RunnerConfig): Problem[] {
  const problems: Problem[] = [];
  const hardware = runners.hardware ?? {};
  for (const [key, config] of catalog.entries) {
    const subject: Subject = { doc: catalog.origin.get(key)!, base: [key], key };
    for (const { entry, path } of searchSpaceEntries(config)) {
      const agentic = entry as AgenticSearchSpaceEntry;
      if (agentic['kv-offloading'] !== 'dram') continue;
      const facts = hardware[config.runner];
      if (!facts) {
        problems.push(
          problemAt(subject, [...path, 'kv-offloading'], `runner "${config.runner}" has no hardware facts in runners.yaml`, {
            rule: 'dram-budget',
            hint: `kv-offloading: dram sizes the DRAM budget from hardware.${config.runner} (available-cpu-dram-mib, gpus-per-node); add it`,
          }),
        );
        continue;
      }
      try {
        agenticDramGpus(agentic, facts['gpus-per-node'], config.runner);
      } catch (e) {
        if (!(e instanceof TopologyError)) throw e;
        problems.push(
          problemAt(subject, [...path, ...e.field], e.message, {
            rule: 'dram-budget',
            hint: 'choose a topology that fits (or tiles) the runner nodes',
          }),
        );
      }
    }
  }
  return problems;
}
