import { existsSync } from 'node:fs';
import type { MatrixRow } from '../matrix/index.js';
import type { GithubEvent } from './event.js';
import { eventLabels } from './plan.js';
import { annotateMatrix } from './priority.js';
import { loadPriorityPolicy } from './priority-policy.js';
import { queueOrder } from './priority-queue.js';

/**
 * The jobs in queue order, each with its priority, queue token and skip-queue request, as
 * `ci priority` gives them; as they are when the catalog has no priority policy. The queue
 * namespace is the workflow run's (GITHUB_RUN_ID and _ATTEMPT in `env`), else `local`.
 */
export async function queueJobs(
  jobs: MatrixRow[],
  event: GithubEvent,
  policyFile: string,
  env: NodeJS.ProcessEnv,
): Promise<MatrixRow[]> {
  if (jobs.length === 0 || !existsSync(policyFile)) return jobs;
  const runId = env.GITHUB_RUN_ID;
  const { annotated, jobs: scored } = annotateMatrix(jobs, await loadPriorityPolicy(policyFile), {
    eventName: event.name,
    labels: new Set(eventLabels(event)),
    queueNamespace: runId ? `${runId}:${env.GITHUB_RUN_ATTEMPT ?? '1'}` : 'local',
    prNumber: event.pullRequest?.number ?? 0,
  });
  return queueOrder(scored).map((s) => (annotated as MatrixRow[])[Number(s.path[0])]!);
}
