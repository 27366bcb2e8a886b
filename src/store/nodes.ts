/**
 * The nodes whose launches keep failing: every stored launch attempt (`launch_attempts`, from
 * run.json) counted per cluster and node. A failure is an attempt that ended `infrastructure`
 * (its engine never served: a bad node, a crash at start-up, a node failure); an attempt that ran
 * and measured badly says nothing of its node and is only counted among the attempts.
 */
import type { NodeRow } from '../contract/index.js';
import type { Store } from './db.js';

export interface NodeFilter {
  /** Only this cluster's nodes. */
  cluster?: string | undefined;
  /** Only attempts that ended at or after this instant (ISO 8601, as `ended_at` is stored). */
  since?: string | undefined;
  /** Only nodes with at least this many failures (default 2: failed repeatedly). */
  minFailures?: number | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

export const DEFAULT_MIN_FAILURES = 2;

/** The instant `days` days before `now`, as `NodeFilter.since` takes it. */
export const daysBefore = (now: Date, days: number): string => new Date(now.getTime() - days * 86_400_000).toISOString();

/** Nodes with at least `minFailures` infrastructure failures, the most failures first (then the latest). */
export async function failingNodes(store: Store, f: NodeFilter = {}): Promise<NodeRow[]> {
  let q = store.db
    .selectFrom('launch_attempts as a')
    .innerJoin('runs as r', 'r.id', 'a.run_pk')
    .select(['a.cluster', 'a.nodes', 'a.outcome', 'a.reason', 'a.ended_at', 'a.label', 'a.job', 'r.run_id']);
  if (f.cluster !== undefined) q = q.where('a.cluster', '=', f.cluster);
  if (f.since !== undefined) q = q.where('a.ended_at', '>=', f.since);
  const rows = await q.orderBy('a.ended_at').orderBy('a.id').execute();
  const byNode = new Map<string, NodeRow>();
  for (const r of rows) {
    let nodes: unknown;
    try {
      nodes = JSON.parse(r.nodes);
    } catch {
      continue;
    }
    if (!Array.isArray(nodes)) continue;
    for (const node of new Set(nodes.filter((n): n is string => typeof n === 'string'))) {
      const key = JSON.stringify([r.cluster, node]);
      let row = byNode.get(key);
      if (!row) {
        row = {
          cluster: r.cluster,
          node,
          failures: 0,
          attempts: 0,
          last_failure_reason: '',
          last_failure_at: '',
          last_failure_run: '',
          last_failure_launch: '',
          last_failure_job: '',
        };
        byNode.set(key, row);
      }
      row.attempts++;
      if (r.outcome !== 'infrastructure') continue;
      row.failures++;
      // Rows come oldest first: the last one seen is the latest.
      if (r.ended_at >= row.last_failure_at)
        Object.assign(row, {
          last_failure_reason: r.reason,
          last_failure_at: r.ended_at,
          last_failure_run: r.run_id,
          last_failure_launch: r.label,
          last_failure_job: r.job,
        });
    }
  }
  const min = f.minFailures ?? DEFAULT_MIN_FAILURES;
  const found = [...byNode.values()]
    .filter((n) => n.failures >= min && n.failures > 0)
    .sort(
      (a, b) =>
        b.failures - a.failures ||
        b.last_failure_at.localeCompare(a.last_failure_at) ||
        a.cluster.localeCompare(b.cluster) ||
        a.node.localeCompare(b.node),
    );
  const offset = f.offset ?? 0;
  return f.limit === undefined ? found.slice(offset) : found.slice(offset, offset + f.limit);
}
