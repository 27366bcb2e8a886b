import { closest } from '../catalog/index.js';
import { UserError } from '../util/user-error.js';
import { ClusterProfileError } from './profile.js';
import type { ClusterProfile } from './profile.js';

// Choosing the cluster a row runs on.

const describeCluster = (p: ClusterProfile): string =>
  `${p.name} (${p.scheduler}${p.runners.length > 0 ? `; runners ${p.runners.join(', ')}` : ''})`;

function clusterError(profiles: readonly ClusterProfile[], message: string, hint: string): ClusterProfileError {
  const dirs = [...new Set(profiles.filter((p) => !p.source.builtin).map((p) => p.source.file.replace(/[^/]*$/, '')))];
  const file = dirs.length === 1 ? dirs[0]!.replace(/\/$/, '') || '.' : 'clusters';
  return new ClusterProfileError([{ severity: 'error', rule: 'cluster', file, line: 0, col: 0, message, hint }]);
}

/**
 * The cluster a row runs on: the one named, else the one whose runners include the row's
 * runner, else the only profile when it lists no runners (the embedded default). Anything else
 * is a ClusterProfileError that lists the clusters there are.
 */
export function findCluster(
  profiles: readonly ClusterProfile[],
  wanted: { name?: string | undefined; runner?: string | undefined },
): ClusterProfile {
  const available = profiles.map(describeCluster).join('; ') || 'none';
  if (wanted.name !== undefined) {
    const found = profiles.find((p) => p.name === wanted.name);
    if (found) return found;
    const near = closest(
      wanted.name,
      profiles.map((p) => p.name),
    );
    throw clusterError(
      profiles,
      `no cluster named "${wanted.name}" (clusters: ${available})`,
      near ? `did you mean --cluster ${near}?` : `name one of them, or add clusters/${wanted.name}.yaml`,
    );
  }
  if (wanted.runner !== undefined) {
    const serving = profiles.filter((p) => p.runners.includes(wanted.runner!));
    if (serving.length === 1) return serving[0]!;
    if (serving.length > 1) {
      throw clusterError(
        profiles,
        `${serving.length} clusters serve runner "${wanted.runner}": ${serving.map((p) => p.name).join(', ')}`,
        `choose one with --cluster ${serving[0]!.name}`,
      );
    }
  }
  if (profiles.length === 1 && profiles[0]!.runners.length === 0) return profiles[0]!;
  const what = wanted.runner !== undefined ? `no cluster serves runner "${wanted.runner}"` : 'no cluster was named';
  throw clusterError(
    profiles,
    `${what} (clusters: ${available})`,
    wanted.runner !== undefined
      ? `pass --cluster <name>, or add "${wanted.runner}" to the runners of a profile`
      : 'pass --cluster <name>',
  );
}

/** The one cluster that serves every runner of a run's rows: a UserError when they need several (run each with --cluster). */
export function clusterForRunners(profiles: readonly ClusterProfile[], runners: readonly string[]): ClusterProfile {
  const chosen = new Map<string, ClusterProfile>();
  for (const runner of runners) {
    const c = findCluster(profiles, { runner });
    chosen.set(c.name, c);
  }
  if (chosen.size > 1)
    throw new UserError(
      `the rows run on ${chosen.size} clusters (${[...chosen.keys()].join(', ')}): run each with --cluster NAME and --filter runner=…`,
    );
  return [...chosen.values()][0]!;
}
