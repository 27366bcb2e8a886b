import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { formatCond, recipesWhere, routeRecipe, routedRows, rowRouteRequest, treeLaunchers } from '../clusters/index.js';
import type { CloneRoute, Cond, Launcher, RouteMatch, RoutedRow, RoutingRule } from '../clusters/index.js';
import { recipePlans } from './rules/shared.js';
import { recipeTreePath } from './tree.js';
import type { Tree } from './tree.js';

const run = promisify(execFile);

/**
 * `frontier clusters import runners/`: the srt-slurm routing of InferenceX's bash launchers as
 * declarative cluster profiles (clusters/<launcher>.yaml), one routing rule per clone branch in
 * the launcher's order (first match wins, as the if/elif chain), each with a comment naming the
 * launcher lines it came from. What the rules cannot say is left out with a comment, and every
 * row the launchers serve is routed both ways to check the two agree.
 */

/** The launcher variables a routing rule can match on, and the field that matches them. */
const FIELDS: Record<string, keyof RouteMatch> = {
  FRAMEWORK: 'framework',
  MODEL_PREFIX: 'modelPrefix',
  PRECISION: 'precision',
  SPEC_DECODING: 'specDecoding',
  IS_AGENTIC: 'scenario',
  CONFIG_FILE: 'recipe',
};

type Conjunct = RouteMatch | 'impossible';

/**
 * The rule matches a route's own test needs (disjunctions give several), or why it has none.
 * Negations are left out: in a first-match list they are the earlier branches of the chain.
 */
function routeMatches(
  cond: Cond,
  recipesWhere: (variable: string, value: string) => string[] | undefined = () => undefined,
): { matches: RouteMatch[] } | { unsupported: string } {
  const dnf = (c: Cond): Conjunct[][] | string => {
    switch (c.kind) {
      case 'true':
        return [[{}]];
      case 'not':
        return [[{}]];
      case 'unknown':
        return `\`${c.text}\``;
      case 'test': {
        if (c.variable === 'IS_MULTINODE' && c.op === '==' && c.pattern === 'true') return [[{}]];
        // A variable the launcher computes from the recipe: the recipes for which it holds today.
        const recipes = c.op === '==' && !c.glob ? recipesWhere(c.variable, c.pattern) : undefined;
        if (recipes) return recipes.length > 0 ? recipes.map((recipe) => [{ recipe }]) : [['impossible']];
        const field = FIELDS[c.variable];
        if (!field || c.op !== '==' || (c.glob && field !== 'recipe')) return formatCond(c);
        if (field === 'scenario') return [[{ scenario: c.pattern === '1' ? 'agentic-coding' : 'fixed-seq-len' }]];
        if (field === 'recipe') return [[{ recipe: recipeGlob(c.pattern) }]];
        return [[{ [field]: c.pattern }]];
      }
      case 'and': {
        let out: Conjunct[][] = [[]];
        for (const item of c.items) {
          const part = dnf(item);
          if (typeof part === 'string') return part;
          out = out.flatMap((a) => part.map((b) => [...a, ...b]));
        }
        return out;
      }
      case 'or': {
        const out: Conjunct[][] = [];
        for (const item of c.items) {
          const part = dnf(item);
          if (typeof part === 'string') return part;
          out.push(...part);
        }
        return out;
      }
    }
  };
  const terms = dnf(cond);
  if (typeof terms === 'string') return { unsupported: terms };
  const matches: RouteMatch[] = [];
  for (const term of terms) {
    const merged = merge(term);
    if (merged !== 'impossible' && !matches.some((m) => JSON.stringify(m) === JSON.stringify(merged))) matches.push(merged);
  }
  return { matches };
}

function merge(term: Conjunct[]): Conjunct {
  const out: RouteMatch = {};
  for (const part of term) {
    if (part === 'impossible') return part;
    for (const [k, v] of Object.entries(part) as [keyof RouteMatch, string][]) {
      if (out[k] !== undefined && out[k] !== v) return 'impossible';
      out[k] = v;
    }
  }
  return out;
}

/**
 * A launcher's bash pattern on CONFIG_FILE as a recipe glob: relative to recipes/, `*` within a
 * name (bash's `*` also crosses `/`; the rows are checked both ways afterwards).
 */
const recipeGlob = (pattern: string): string => pattern.replace(/^recipes\//, '').replace(/\\(.)/g, '$1');

export interface ImportedRule {
  rule: RoutingRule;
  /** Where it came from, for the comment above it. */
  source: string;
  /** The ref as the launcher wrote it, when the commit is not a full one (it is written as is). */
  unpinned?: string | undefined;
}

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
}

export interface ImportOptions {
  /** Pin branches, tags and short shas to the commit they are on now (`git ls-remote`). */
  resolve?: boolean;
  /** When the import ran (the header says so). */
  date?: string;
}

/** The profiles of every launcher of the tree that clones srt-slurm. */
export async function importClusters(tree: Tree, options: ImportOptions = {}): Promise<ImportedProfile[]> {
  const rows = await routedRows(tree);
  const seen = new Set<string>();
  const out: ImportedProfile[] = [];
  const resolver = options.resolve ? new RefResolver() : undefined;
  try {
    for (const launcher of (await treeLaunchers(tree)).values()) {
      if (launcher.routes.length === 0 || seen.has(launcher.path)) continue;
      seen.add(launcher.path);
      const served = rows.filter((r) => r.launcher.path === launcher.path);
      out.push(await importLauncher(tree, launcher, served, resolver, options.date));
    }
  } finally {
    await resolver?.close();
  }
  return out;
}

async function importLauncher(
  tree: Tree,
  launcher: Launcher,
  rows: RoutedRow[],
  resolver: RefResolver | undefined,
  date: string | undefined,
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
    text: profileText(tree, name, launcher, rows, rules, skipped, date),
    rules,
    skipped,
    disagreements,
  };
}

/** The commit a rule pins: the route's own, the one its ref resolves to now, or (unresolved) the ref as written. */
async function pin(
  route: CloneRoute,
  resolver: RefResolver | undefined,
): Promise<{ commit: string; note?: string; unpinned?: string }> {
  const { ref } = route;
  if ((ref.kind === 'commit' || ref.kind === 'verified') && ref.commit) {
    return {
      commit: ref.commit,
      note: ref.kind === 'verified' ? `${ref.value} verified against this commit at line ${ref.line}` : undefined,
    };
  }
  const written = ref.kind === 'default' ? 'the default branch' : `${ref.kind} ${ref.value}`;
  if (resolver) {
    const commit = await resolver.resolve(route.repo, ref.kind === 'default' ? 'HEAD' : ref.value!);
    if (commit)
      return {
        commit,
        note: `${written} at line ${ref.line}, resolved to this commit on ${new Date().toISOString().slice(0, 10)}`,
      };
  }
  return { commit: ref.value ?? 'HEAD', note: `${written} at line ${ref.line}: not pinned`, unpinned: written };
}

/** Resolves refs with `git ls-remote`, or for a short sha in a blobless clone; undefined when it cannot. */
class RefResolver {
  private clones = new Map<string, Promise<string | undefined>>();
  private dir: Promise<string> | undefined;

  async resolve(repo: string, ref: string): Promise<string | undefined> {
    if (/^[0-9a-f]{7,39}$/i.test(ref)) return this.shortSha(repo, ref);
    try {
      const { stdout } = await run('git', ['ls-remote', repo, ref, `${ref}^{}`], { timeout: 60_000 });
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t'));
      // An annotated tag: the commit it points to (`^{}`); else the ref itself.
      const peeled = lines.find(([, name]) => name?.endsWith('^{}')) ?? lines[0];
      return peeled?.[0];
    } catch {
      return undefined;
    }
  }

  private async shortSha(repo: string, sha: string): Promise<string | undefined> {
    this.dir ??= mkdtemp(join(tmpdir(), 'frontier-refs-'));
    const dir = join(await this.dir, String(this.clones.size));
    if (!this.clones.has(repo))
      this.clones.set(
        repo,
        run('git', ['clone', '-q', '--bare', '--filter=blob:none', repo, dir], { timeout: 300_000 }).then(
          () => dir,
          () => undefined,
        ),
      );
    const clone = await this.clones.get(repo);
    if (!clone) return undefined;
    try {
      return (await run('git', ['rev-parse', '--verify', `${sha}^{commit}`], { cwd: clone })).stdout.trim();
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }
}

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

function profileText(
  tree: Tree,
  name: string,
  launcher: Launcher,
  rows: RoutedRow[],
  rules: ImportedRule[],
  skipped: string[],
  date: string | undefined,
): string {
  const hardware = tree.runners?.hardware ?? {};
  const labels = [...new Set(rows.map((r) => r.row.runner))].sort();
  if (labels.length === 0) labels.push(`cluster:${name}`);
  const gpusPerNode = [`cluster:${name}`, ...labels].map((l) => hardware[l]?.['gpus-per-node']).find((n) => n !== undefined);
  const plans = new Map(recipePlans(tree).map((p) => [p.file.path, p.plan]));
  const nodes = Math.max(0, ...rows.map((r) => plans.get(recipeTreePath(tree, r.recipe).inTree)?.sbatchNodes ?? 0));
  const out = [
    `# Imported by \`frontier clusters import\` from ${launcher.path}${date ? ` on ${date}` : ''}: its srt-slurm`,
    "# routing as declarative rules, in the launcher's order (the first rule that matches a row wins,",
    "# as the if/elif chain). The partition, account, container and model paths are the cluster's own",
    '# (the launcher sets them in bash): add them before running here.',
    `description: ${JSON.stringify(`${name}, imported from ${launcher.path}`)}`,
    'scheduler: slurm',
    `runners: [${labels.map((l) => scalar(l)).join(', ')}]`,
    nodes > 0
      ? `nodes: ${nodes} # the most nodes a recipe it serves asks for`
      : "nodes: 1 # no current row runs here: set the cluster's size",
    `gpus-per-node: ${gpusPerNode ?? 8}${gpusPerNode === undefined ? ' # not in configs/runners.yaml hardware: check it' : ''}`,
    `gpu: ${scalar(name.split('-')[0]!)}`,
    "# srt-slurm's own default; each recipe's slurm.time_limit still applies to its job.",
    'time-limit: 240',
    '# How long to wait for the engines (180 × 10 s = 30 min): a cold load of a large model is slow.',
    'health-check: { attempts: 180, interval: 10 }',
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
