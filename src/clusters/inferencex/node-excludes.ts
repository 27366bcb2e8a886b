import { parseYaml } from '../../catalog/index.js';

/**
 * InferenceX's hand-written list of bad nodes: `benchmarks/multi_node/amd_utils/node_excludes.yaml`,
 * per (framework, model) rules that `amd_utils/submit.sh` turns into `sbatch --exclude` (the first
 * rule whose framework is FRAMEWORK and whose models hold MODEL_NAME; `SLURM_EXCLUDE_NODES`, when
 * set, takes its place). `frontier clusters import` carries the rules into the profile of the
 * launcher that runs that submit.sh, as `exclude-nodes` mappings.
 */

/** The launchers whose job scripts read a node_excludes.yaml, and where it is in the checkout. */
export const NODE_EXCLUDES_OF: Readonly<Record<string, string>> = {
  // runners/launch_mi355x-amds.sh → <model>_<precision>_mi355x_<fw>.sh → amd_utils/submit.sh.
  'mi355x-amds': 'benchmarks/multi_node/amd_utils/node_excludes.yaml',
};

export interface NodeExcludeEntry {
  framework: string;
  models: string[];
  nodes: string[];
  /** Where the rule starts in the file (1-based), for the imported profile's comment. */
  line: number;
}

export interface NodeExcludes {
  file: string;
  rules: NodeExcludeEntry[];
  /** What could not be read as a rule, with why. */
  problems: string[];
}

const names = (v: unknown): string[] =>
  (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : []).map((s) => s.trim()).filter(Boolean);

/** Read a node_excludes.yaml (`rules: [{ framework, models, exclude_nodes: "a,b" }]`). */
export async function parseNodeExcludes(text: string, file: string): Promise<NodeExcludes> {
  const doc = await parseYaml(text, file);
  const problems = doc.problems.map((p) => p.message);
  const value = doc.value as { rules?: unknown } | null | undefined;
  const raw = value && typeof value === 'object' && Array.isArray(value.rules) ? (value.rules as unknown[]) : [];
  const rules: NodeExcludeEntry[] = [];
  raw.forEach((r, i) => {
    const rule = r as { framework?: unknown; models?: unknown; exclude_nodes?: unknown } | null;
    const nodes = names(rule?.exclude_nodes);
    if (!rule || typeof rule.framework !== 'string' || nodes.length === 0) {
      problems.push(`rules[${i}]: expected framework, models and exclude_nodes`);
      return;
    }
    rules.push({ framework: rule.framework, models: names(rule.models), nodes, line: doc.locate(['rules', i]).line });
  });
  return { file, rules, problems };
}

/** The nodes submit.sh excludes for a row: the first rule of its framework that lists its MODEL_NAME. */
export function nodeExcludesFor(excludes: NodeExcludes, row: { framework: string; model: string }): string[] {
  const model = row.model.slice(row.model.lastIndexOf('/') + 1);
  return excludes.rules.find((r) => r.framework === row.framework && r.models.includes(model))?.nodes ?? [];
}
