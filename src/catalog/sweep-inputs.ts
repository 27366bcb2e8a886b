import { loadMasterConfigs, loadRunners } from './load.js';
import type { Catalog, LoadOptions } from './load.js';
import { ProblemsError, hasErrors } from './problems.js';
import { checkDramBudgets } from './runner-checks.js';
import type { RunnerConfig } from './schema.js';

/**
 * What a sweep is generated from: the master configs and the runners file, checked together
 * (runners only once the configs load without errors). Any error: a ProblemsError with them all.
 */
export async function loadSweepInputs(
  configFiles: string[],
  runnerFile: string,
  options: LoadOptions,
): Promise<{ catalog: Catalog; runners: RunnerConfig }> {
  const loaded = await loadMasterConfigs(configFiles, options);
  const problems = [...loaded.problems];
  const runners = hasErrors(problems) ? undefined : await loadRunners(runnerFile, options);
  if (runners) problems.push(...runners.problems);
  if (runners?.value && !hasErrors(problems)) {
    problems.push(...checkDramBudgets(loaded.value, runners.value));
  }
  if (hasErrors(problems) || !runners?.value) throw new ProblemsError(problems);
  return { catalog: loaded.value, runners: runners.value };
}
