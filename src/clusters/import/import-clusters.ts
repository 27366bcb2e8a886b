import { routeRecipe, rowRouteRequest } from '../route.js';
import type { RoutingRule } from '../route.js';
import type { Checkout } from '../inferencex/checkout.js';
import type { CloneRoute } from '../inferencex/clone-routes.js';
import { NODE_EXCLUDES_OF, parseNodeExcludes } from '../inferencex/node-excludes.js';
import type { NodeExcludes } from '../inferencex/node-excludes.js';
import { treeLaunchers } from '../inferencex/read-launchers.js';
import type { Launcher } from '../inferencex/read-launchers.js';
import { recipesWhere, routedRows } from '../inferencex/routed-rows.js';
import type { RoutedRow } from '../inferencex/routed-rows.js';
import { routeMatches } from './launcher-rules.js';
import type { ImportedRule } from './launcher-rules.js';
import { RefResolver, pin } from './pin.js';
import { profileText } from './profile-text.js';

/**
 * `frontier clusters import runners/`: the srt-slurm routing of InferenceX's bash launchers as
 * declarative cluster profiles (clusters/<launcher>.yaml), one routing rule per clone branch in
 * the launcher's order (first match wins, as the if/elif chain), each with a comment naming the
 * launcher lines it came from. What the rules cannot say is left out with a comment, and every
 * row the launchers serve is routed both ways to check the two agree.
 */

export interface ImportedProfile {
  launcher: Launcher;
  /** The profile file name: clusters/<launcher>.yaml. */
  file: string;
  text: string;
  rules: ImportedRule[];
  /** Routes left out, with why. */
  skipped: string[];
  /** Served rows the profile routes to another toolchain than the launcher. */
  disagreements: string[];
  /** The launcher's list of bad nodes (node_excludes.yaml), carried into `exclude-nodes`. */
  excludes?: NodeExcludes | undefined;
}

export interface ImportOptions {
  /** Pin branches, tags and short shas to the commit they are on now (`git ls-remote`). */
  resolve?: boolean;
  /** When the import ran (the header says so). */
  date?: string;
}

/**
 * The profiles of every launcher of the tree that clones srt-slurm, or whose job scripts keep a
 * list of bad nodes (node_excludes.yaml: its rules become the profile's `exclude-nodes`).
 */
export async function importClusters(tree: Checkout, options: ImportOptions = {}): Promise<ImportedProfile[]> {
  const rows = await routedRows(tree);
  const seen = new Set<string>();
  const out: ImportedProfile[] = [];
  const resolver = options.resolve ? new RefResolver() : undefined;
  try {
    for (const launcher of (await treeLaunchers(tree)).values()) {
      if (seen.has(launcher.path)) continue;
      const excludes = await nodeExcludesOf(tree, launcher.name);
      if (launcher.routes.length === 0 && !excludes) continue;
      seen.add(launcher.path);
      const served = rows.filter((r) => r.launcher.path === launcher.path);
      out.push(await importLauncher(tree, launcher, served, resolver, options.date, excludes));
    }
  } finally {
    await resolver?.close();
  }
  return out;
}

/** The launcher's node_excludes.yaml, when it has one with rules. */
async function nodeExcludesOf(tree: Checkout, launcher: string): Promise<NodeExcludes | undefined> {
  const file = NODE_EXCLUDES_OF[launcher];
  if (!file) return undefined;
  const text = (await tree.snapshot.readMany([file])).get(file)?.toString('utf8');
  if (text === undefined) return undefined;
  const excludes = await parseNodeExcludes(text, file);
  return excludes.rules.length > 0 ? excludes : undefined;
}

async function importLauncher(
  tree: Checkout,
  launcher: Launcher,
  rows: RoutedRow[],
  resolver: RefResolver | undefined,
  date: string | undefined,
  excludes: NodeExcludes | undefined,
): Promise<ImportedProfile> {
  const rules: ImportedRule[] = [];
  const skipped: string[] = [];
  const ruleOf = new Map<CloneRoute, RoutingRule[]>();
  for (const route of launcher.routes) {
    const source = `${launcher.path}:${route.arm.line}-${route.arm.endLine}, clone at line ${route.line}`;
    const found = routeMatches(route.match, (variable, value) => recipesWhere(tree, variable, value));
    if ('unsupported' in found) {
      skipped.push(`${source}: it depends on ${found.unsupported}, which a routing rule cannot match`);
      continue;
    }
    const { commit, note, unpinned } = await pin(route, resolver);
    const made = found.matches.map((match) => ({ match, toolchain: { repo: route.repo, commit }, flags: [] }));
    ruleOf.set(route, made);
    for (const rule of made) rules.push({ rule, source: `${source}${note ? `; ${note}` : ''}`, unpinned });
  }
  const profile = { routing: rules.map((r) => r.rule) };
  const disagreements: string[] = [];
  for (const r of rows) {
    const sure = r.reached.find((x) => x.certain)?.route;
    if (!sure) continue;
    const got = routeRecipe(profile, rowRouteRequest(r.row, r.recipe))?.rule;
    if (!got || !(ruleOf.get(sure) ?? []).includes(got))
      disagreements.push(
        `${r.key} ${r.recipe}: the launcher clones at line ${sure.line}, the profile ${got ? `routes it to rule ${profile.routing.indexOf(got) + 1}` : 'has no rule for it'}`,
      );
  }
  const name = launcher.path.replace(/^runners\/launch_/, '').replace(/\.sh$/, '');
  return {
    launcher,
    file: `${name}.yaml`,
    text: profileText(tree, name, launcher, rows, rules, skipped, date, excludes),
    rules,
    skipped,
    disagreements,
    excludes,
  };
}
