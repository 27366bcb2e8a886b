import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadMasterConfigs, loadRunners } from './load.js';
import { hasErrors } from './problems.js';
import type { Problem } from './problems.js';
import { checkDramBudgets, checkRunnerLabels } from './runner-checks.js';

export interface ValidateReport {
  ok: boolean;
  files: string[];
  configKeys: number;
  runnerLabels: number;
  problems: Problem[];
}

const isRunnersFile = (path: string): boolean => /^runners\.ya?ml$/.test(basename(path));

/** The InferenceX layout: configs/*-master.yaml and configs/runners.yaml, relative to the working directory. */
export function defaultCatalogFiles(): string[] {
  if (!existsSync('configs')) return [];
  const masters = readdirSync('configs')
    .filter((f) => /-master\.ya?ml$/.test(f))
    .sort()
    .map((f) => join('configs', f));
  const runners = ['configs/runners.yaml', 'configs/runners.yml'].filter((f) => existsSync(f));
  return [...masters, ...runners];
}

/** The master configs of the InferenceX layout here (configs/*-master.yaml). */
export const defaultMasterConfigs = (): string[] => defaultCatalogFiles().filter((f) => !isRunnersFile(f));

/** Validate master configs and runners files (a file named runners.yaml is read as runners). */
export async function validateFiles(files: readonly string[]): Promise<ValidateReport> {
  const masterFiles = files.filter((f) => !isRunnersFile(f));
  const runnerFiles = files.filter(isRunnersFile);
  const catalog = await loadMasterConfigs(masterFiles);
  const problems = [...catalog.problems];
  let runnerLabels = 0;
  for (const file of runnerFiles) {
    const runners = await loadRunners(file);
    problems.push(...runners.problems);
    if (!runners.value) continue;
    runnerLabels += Object.keys(runners.value.labels).length;
    if (runnerFiles.length === 1) {
      problems.push(...checkRunnerLabels(catalog.value, runners.value), ...checkDramBudgets(catalog.value, runners.value));
    }
  }
  // In the order the files were given, then by position.
  const order = (p: Problem): number => files.indexOf(p.file);
  problems.sort((a, b) => order(a) - order(b) || a.line - b.line || a.col - b.col);
  return { ok: !hasErrors(problems), files: [...files], configKeys: catalog.value.origin.size, runnerLabels, problems };
}
