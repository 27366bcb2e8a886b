import { formatCond, routedRows, treeLaunchers } from '../../clusters/index.js';
import type { CloneRoute, Launcher, RoutedRow, ToolchainRef } from '../../clusters/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import type { Tree } from '../tree.js';
import { configLocation } from './shared.js';

/**
 * The launcher rules: InferenceX routes multinode recipes to srt-slurm in bash (`git clone` in
 * if/elif chains of `runners/launch_<cluster>.sh`); these read that routing like Frontier's
 * declarative clusters/*.yaml routing is read (clusters/unpinned-toolchain, recipe-unrouted).
 */

/**
 * Refs that move: a branch, the default branch, or one the file does not define. A full commit,
 * a verified tag and a release tag or short sha (fixed in practice; Frontier's own profiles still
 * ask for the full commit) are not reported.
 */
const MOVING: ReadonlySet<ToolchainRef['kind']> = new Set(['default', 'branch', 'unknown']);

function refText(ref: ToolchainRef): string {
  switch (ref.kind) {
    case 'default':
      return 'ends on the default branch (no --branch and no checkout)';
    case 'branch':
      return `ends on branch ${ref.value}, which moves`;
    default:
      return `checks out ${ref.value}, which the file does not define`;
  }
}

/** "it serves 7 rows: a (recipes/x/…), b (…)", and the rows that may reach it. */
function served(rows: readonly RoutedRow[], route: CloneRoute): string {
  const certain = rows.filter((r) => r.reached.some((x) => x.route === route && x.certain));
  const maybe = rows.filter((r) => r.reached.some((x) => x.route === route && !x.certain));
  const keys = (list: readonly RoutedRow[]): string => {
    const byKey = new Map<string, Set<string>>();
    for (const r of list) {
      byKey.set(r.key, (byKey.get(r.key) ?? new Set()).add(r.recipe.replace(/\/[^/]+$/, '/…')));
    }
    return [...byKey].map(([key, recipes]) => `${key} (${[...recipes].join(', ')})`).join(', ');
  };
  const parts: string[] = [];
  if (certain.length > 0) parts.push(`it serves ${certain.length} row${certain.length === 1 ? '' : 's'}: ${keys(certain)}`);
  if (maybe.length > 0)
    parts.push(
      `${certain.length > 0 ? 'and may serve' : 'it may serve'} ${maybe.length} more, depending on what the launcher decides at run time: ${keys(maybe)}`,
    );
  return parts.length > 0 ? parts.join('; ') : 'no current row reaches it';
}

const location = (head: Tree, launcher: Launcher, line: number): Pick<Finding, 'file' | 'line' | 'col'> => ({
  file: head.snapshot.display(launcher.path),
  line,
  col: 1,
});

/** Each launcher file once (a linked launcher shares its target's routes). */
async function launcherFiles(head: Tree): Promise<Launcher[]> {
  const seen = new Map<string, Launcher>();
  for (const l of (await treeLaunchers(head)).values()) if (!seen.has(l.path)) seen.set(l.path, l);
  return [...seen.values()];
}

export const launcherUnpinnedToolchain: Rule = {
  id: 'launcher/unpinned-toolchain',
  severity: 'error',
  scope: 'tree',
  description: "no srt-slurm clone of InferenceX's launchers ends on a branch or on the default branch",
  explanation:
    'InferenceX\'s launchers (runners/launch_<cluster>.sh) `git clone` srt-slurm per framework, model and precision, then sometimes `git checkout <commit>`, sometimes a branch or tag, sometimes nothing. A branch (or the default branch, with no checkout) moves: the same recipe then runs different code from one day to the next, and results stop being comparable. Check out the full 40-hex commit after the clone (`git ls-remote <repo> <ref>` prints it), or verify a tag with `test "$(git rev-parse HEAD)" = "<commit>"`, as the launchers already do in places. Release tags and short shas are not reported here (Frontier\'s own profiles still ask for the full commit). `frontier clusters import runners/` writes the same routing as declarative clusters/*.yaml rules.',
  check: async ({ head }) => {
    const rows = await routedRows(head);
    const out: Finding[] = [];
    for (const launcher of await launcherFiles(head)) {
      for (const route of launcher.routes) {
        if (!MOVING.has(route.ref.kind)) continue;
        const where = route.armText ? ` (${route.armText === 'else' ? 'the else branch' : route.armText})` : '';
        out.push({
          ...location(head, launcher, route.ref.line),
          message: `the clone of ${route.repo} at line ${route.line}${where} ${refText(route.ref)}; ${served(rows, route)}`,
          hint: `check out the full commit after the clone, e.g. \`git checkout <40-hex>\` (\`git ls-remote ${route.repo} ${route.ref.value ?? 'HEAD'}\` prints the one it is on today)`,
          subjects: [subject.route(launcher.path, route.signature)],
        });
      }
    }
    return out;
  },
};

export const launcherDeadBranch: Rule = {
  id: 'launcher/dead-branch',
  severity: 'warning',
  scope: 'tree',
  description: 'every srt-slurm clone of a launcher is reached by some matrix row',
  explanation:
    'A launcher branch that no row of the matrix reaches is dead routing: an earlier arm of the chain takes every row it matches (a repeated condition), or the configs it was written for are gone. Whoever reads the launcher believes those recipes run with that toolchain. Remove the branch, or move it above the arm that shadows it.',
  check: async ({ head }) => {
    const rows = await routedRows(head);
    const out: Finding[] = [];
    for (const launcher of await launcherFiles(head)) {
      const reached = new Set(
        rows.filter((r) => r.launcher.path === launcher.path).flatMap((r) => r.reached.map((x) => x.route.line)),
      );
      const reported = new Set<number>();
      launcher.routes.forEach((route, i) => {
        // One finding per clone (a clone whose checkout an `if` picks is several routes).
        if (reached.has(route.line) || reported.has(route.line)) return;
        reported.add(route.line);
        const test = formatCond(route.match);
        const twin = launcher.routes.slice(0, i).find((r) => formatCond(r.match) === test && r.line !== route.line);
        out.push({
          ...location(head, launcher, route.arm.line),
          message: `no matrix row reaches the clone of ${route.repo} at line ${route.line} (${route.armText || test})${twin ? `: the branch at line ${twin.arm.line} tests the same and comes first` : ''}`,
          hint: twin
            ? `remove the branch at line ${route.arm.line}, or merge it into the one at line ${twin.arm.line}`
            : 'remove the branch if its configs are gone',
          subjects: [subject.route(launcher.path, route.signature)],
        });
      });
    }
    return out;
  },
};

export const launcherUnroutedRow: Rule = {
  id: 'launcher/unrouted-row',
  severity: 'error',
  scope: 'tree',
  description: 'every multinode row that runs an srt-slurm recipe reaches a clone of srt-slurm in its launcher',
  explanation:
    "A multinode row's launcher must clone srt-slurm for it before it can submit the recipe. A row for which every branch of the launcher's chain is false (no else branch, or a guard that exits for its framework or model) fails on the cluster before it starts. Add a branch for it to the launcher (or a routing rule to its clusters/*.yaml profile).",
  check: async ({ head }) => {
    const byKey = new Map<string, RoutedRow[]>();
    for (const r of await routedRows(head)) if (r.reached.length === 0) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
    return [...byKey].map(([key, rows]): Finding => {
      const { row, launcher } = rows[0]!;
      const scenario = (row as { 'scenario-type'?: string })['scenario-type'] === 'agentic-coding' ? ' agentic' : '';
      return {
        ...configLocation(head, key, []),
        message: `${rows.length} row${rows.length === 1 ? '' : 's'} of this config (${row.framework} ${row['model-prefix']} ${row.precision}${scenario}) reach no srt-slurm clone of ${launcher.path}: the launcher exits or falls through before cloning`,
        hint: `add a branch for ${row.framework} ${row['model-prefix']} ${row.precision} to ${launcher.path}, or run the config on another runner`,
        subjects: [subject.config(key), subject.file(head.snapshot.display(launcher.path))],
      };
    });
  },
};
