import { planRecipe, recipeInTree } from '../../recipes/index.js';
import type { Checkout } from '../inferencex/checkout.js';
import type { NodeExcludes } from '../inferencex/node-excludes.js';
import { launcherOf } from '../inferencex/read-launchers.js';
import type { Launcher } from '../inferencex/read-launchers.js';
import type { RoutedRow } from '../inferencex/routed-rows.js';
import type { RouteMatch } from '../route.js';
import type { ImportedRule } from './launcher-rules.js';

// The text of an imported profile: the cluster's keys as far as the checkout says them, and the rules with where each came from.

/** A YAML scalar: plain when YAML reads it back as the same string, else JSON-quoted. */
const scalar = (s: string): string =>
  /^[A-Za-z0-9][\w./@-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~|[\d.]+)$/i.test(s) ? s : JSON.stringify(s);

function matchText(match: RouteMatch): string {
  const names: [keyof RouteMatch, string][] = [
    ['framework', 'framework'],
    ['modelPrefix', 'model-prefix'],
    ['precision', 'precision'],
    ['scenario', 'scenario'],
    ['specDecoding', 'spec-decoding'],
    ['recipe', 'recipe'],
  ];
  const fields = names.filter(([k]) => match[k] !== undefined).map(([k, name]) => `${name}: ${scalar(match[k]!)}`);
  return `{ ${fields.join(', ')} }`.replace('{  }', '{}');
}

export function profileText(
  tree: Checkout,
  name: string,
  launcher: Launcher,
  rows: RoutedRow[],
  rules: ImportedRule[],
  skipped: string[],
  date: string | undefined,
  excludes?: NodeExcludes,
): string {
  const hardware = tree.runners?.hardware ?? {};
  const labels = [...new Set(rows.map((r) => r.row.runner))].sort();
  // A launcher without srt-slurm routes: the labels whose runners it launches.
  if (labels.length === 0 && launcher.routes.length === 0)
    for (const [label, runners] of Object.entries(tree.runners?.labels ?? {}))
      if (runners[0] !== undefined && launcherOf(runners[0]) === launcher.name) labels.push(label);
  labels.sort();
  if (labels.length === 0) labels.push(`cluster:${name}`);
  const gpusPerNode = [`cluster:${name}`, ...labels].map((l) => hardware[l]?.['gpus-per-node']).find((n) => n !== undefined);
  // A recipe file's nodes: what its last variant asks for.
  const fileNodes = (path: string): number | undefined => {
    const last = tree.recipes.get(path)?.variants.at(-1);
    return last && planRecipe(last.recipe).sbatchNodes;
  };
  const nodes = Math.max(0, ...rows.map((r) => fileNodes(recipeInTree(r.recipe, tree.recipesDir).inTree) ?? 0));
  const head =
    launcher.routes.length > 0
      ? [
          `# Imported by \`frontier clusters import\` from ${launcher.path}${date ? ` on ${date}` : ''}: its srt-slurm`,
          "# routing as declarative rules, in the launcher's order (the first rule that matches a row wins,",
          "# as the if/elif chain). The partition, account, container and model paths are the cluster's own",
          '# (the launcher sets them in bash): add them before running here.',
        ]
      : [
          `# Imported by \`frontier clusters import\` from ${launcher.path}${date ? ` on ${date}` : ''}: it clones no`,
          '# srt-slurm (its multi-node rows run job scripts), but its scripts keep a list of bad nodes. The',
          "# partition, account, container and model paths are the cluster's own (the launcher sets them in",
          '# bash): add them before running here.',
        ];
  const out = [
    ...head,
    `description: ${JSON.stringify(`${name}, imported from ${launcher.path}`)}`,
    'scheduler: slurm',
    `runners: [${labels.map((l) => scalar(l)).join(', ')}]`,
    nodes > 0
      ? `nodes: ${nodes} # the most nodes a recipe it serves asks for`
      : launcher.routes.length === 0
        ? "nodes: 1 # its multi-node rows run job scripts: set the cluster's size"
        : "nodes: 1 # no current row runs here: set the cluster's size",
    `gpus-per-node: ${gpusPerNode ?? 8}${gpusPerNode === undefined ? ' # not in configs/runners.yaml hardware: check it' : ''}`,
    `gpu: ${scalar(name.split('-')[0]!)}`,
    "# srt-slurm's own default; each recipe's slurm.time_limit still applies to its job.",
    'time-limit: 240',
    '# How long to wait for the engines (180 × 10 s = 30 min): a cold load of a large model is slow.',
    'health-check: { attempts: 180, interval: 10 }',
    ...excludeLines(excludes),
    'routing:',
  ];
  for (const { rule, source, unpinned } of rules) {
    out.push(`  # ${source}`);
    out.push(`  - match: ${matchText(rule.match)}`);
    out.push('    toolchain:');
    out.push(`      repo: ${scalar(rule.toolchain.repo)}`);
    out.push(
      `      commit: ${JSON.stringify(rule.toolchain.commit)}${unpinned ? ` # ${unpinned}: pin it (frontier clusters import --resolve)` : ''}`,
    );
  }
  if (rules.length === 0) out.push('  []');
  for (const s of skipped) out.push(`  # not imported: ${s}`);
  return `${out.join('\n')}\n`;
}

const flow = (xs: readonly string[]): string => `[${xs.map(scalar).join(', ')}]`;

/** InferenceX's bad nodes as `exclude-nodes` mappings, each with the line of the file it came from. */
function excludeLines(excludes: NodeExcludes | undefined): string[] {
  if (!excludes) return [];
  return [
    `# InferenceX's list of bad nodes, ${excludes.file}: its job scripts pass`,
    '# them to sbatch --exclude for the rows of that framework and model, as frontier run does.',
    'exclude-nodes:',
    ...excludes.rules.flatMap((r) => [
      `  # ${excludes.file}:${r.line}`,
      `  - { framework: ${scalar(r.framework)}, models: ${flow(r.models)}, nodes: ${flow(r.nodes)} }`,
    ]),
  ];
}
