import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../../util/user-error.js';
import { parseYamlInput } from '../../util/yaml-input.js';

/**
 * An InferenceX checkout: where its per-configuration benchmark scripts (`benchmarks/`), its
 * launchers (`runners/`) and its runner pool (`configs/runners.yaml`) are. Rows of a catalog in
 * the InferenceX layout run through these, as InferenceX's workflow runs them.
 */
export interface InferencexTree {
  root: string;
  /** Runner label → the runner names that serve it (`configs/runners.yaml`; the last of repeated labels wins, as PyYAML reads it). */
  labels: ReadonlyMap<string, readonly string[]>;
}

export class TreeError extends UserError {}

const LIB = 'benchmarks/benchmark_lib.sh';

/** Whether `dir` looks like an InferenceX checkout (its benchmark library and launchers are there). */
export const isInferencexTree = (dir: string): boolean =>
  existsSync(join(dir, LIB)) && existsSync(join(dir, 'runners')) && statSync(join(dir, 'runners')).isDirectory();

export function openTree(dir: string): InferencexTree {
  const root = resolve(dir);
  if (!isInferencexTree(root))
    throw new TreeError(
      `${root} is not an InferenceX checkout: it needs ${LIB} and runners/ (pass the checkout's root with --inferencex DIR)`,
    );
  const labels = new Map<string, string[]>();
  const file = join(root, 'configs', 'runners.yaml');
  if (existsSync(file)) {
    const doc = parseYamlInput(readFileSync(file, 'utf8'), file, { uniqueKeys: false });
    const map = (doc as { labels?: unknown } | null)?.labels;
    if (map && typeof map === 'object')
      for (const [label, names] of Object.entries(map as Record<string, unknown>))
        if (Array.isArray(names)) labels.set(label, names.map(String));
  }
  return { root, labels };
}
