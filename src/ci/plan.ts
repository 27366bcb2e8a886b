/**
 * `frontier ci plan`: what an event runs. The gate says whether a sweep runs; the labels say
 * how (mode, evals, modifiers); the changelog says which rows; the canary is split off the
 * rows when the mode has one. Pure: the command reads the event, the repository and the
 * changelog check, and hands them in.
 */
import type { ChangelogMatrix } from '../changelog/index.js';
import { canaryRow } from '../matrix/index.js';
import type { MatrixRow, SingleNodeRow } from '../matrix/index.js';
import type { GithubEvent } from './event.js';
import { gate } from './gate.js';
import type { GateDecision } from './gate.js';
import { SWEEP_LABELS, sweepModeOf } from './labels.js';
import type { LabelName, SweepMode } from './labels.js';

export type EvalSelection = 'default' | 'all' | 'only';

export interface SweepPlan extends GateDecision {
  event: string;
  /** Results of a push to main feed the official frontier; anything else is an unofficial run. */
  official: boolean;
  /** The sweep label that chose the mode (none on push or dispatch). */
  sweepLabel?: string;
  mode: SweepMode;
  evals: EvalSelection;
  agentxFast: boolean;
  skipQueue: boolean;
  /** A push whose pull request's sweep is reused (`/reuse-sweep-run`): that run's results are ingested instead. */
  reuseSourceRun?: string;
}

export interface PlanInput {
  event: GithubEvent;
  /** The head commit's message (for `[skip-sweep]`). */
  headMessage: string;
  changelog?: 'success' | 'failure';
  reuseAuthorized?: boolean;
  /** push: the earlier run `ci reuse` found for this merge (its reuse-source-run-id). */
  reuseSourceRun?: string | undefined;
  /** workflow_dispatch: the labels the dispatch asks to behave as. */
  dispatchLabels?: readonly string[];
}

const OFFICIAL: SweepMode = { trimConc: false, canary: false, failFast: false };

export function planSweep(input: PlanInput): SweepPlan {
  const { event } = input;
  const pr = event.pullRequest;
  const labels = pr?.labels ?? input.dispatchLabels ?? [];
  const decision = gate({
    event: event.name,
    action: event.action,
    draft: pr?.draft ?? false,
    internal: pr ? pr.headRepo === '' || event.repository === '' || pr.headRepo === event.repository : true,
    labels,
    label: event.label,
    headMessage: input.headMessage,
    ref: event.ref,
    changelog: input.changelog,
    reuseAuthorized: input.reuseAuthorized,
  });
  const has = (l: LabelName): boolean => labels.includes(l);
  const sweepLabel = SWEEP_LABELS.find(has);
  // Labels steer pull-request and dispatched sweeps only: a push to main is the official sweep as merged.
  const labelled = event.name !== 'push';
  const mode = (labelled && sweepLabel && sweepModeOf(sweepLabel)) || OFFICIAL;
  if (event.name === 'push' && decision.run && input.reuseSourceRun) {
    decision.run = false;
    decision.reasons.unshift(
      `a maintainer's /reuse-sweep-run: run ${input.reuseSourceRun}'s results are ingested as this merge's official results, no new sweep`,
    );
  }
  return {
    ...decision,
    ...(event.name === 'push' && input.reuseSourceRun ? { reuseSourceRun: input.reuseSourceRun } : {}),
    event: event.name,
    official: event.name === 'push',
    ...(labelled && sweepLabel ? { sweepLabel } : {}),
    mode: event.name === 'pull_request' ? mode : { ...mode, canary: false },
    evals: labelled && has('evals-only') ? 'only' : labelled && has('all-evals') ? 'all' : 'default',
    agentxFast: labelled && has('agentx-fast'),
    skipQueue: labelled && has('skip_queue'),
  };
}

export interface CanarySplit {
  canary?: SingleNodeRow;
  /** The sweep without the canary row. */
  remaining: ChangelogMatrix;
}

/** Split the canary off a changelog sweep, as `canary-select` does. */
export function splitCanary(matrix: ChangelogMatrix): CanarySplit {
  const canary = canaryRow(Object.values(matrix.single_node).flat());
  if (!canary) return { remaining: matrix };
  const single: Record<string, MatrixRow[]> = {};
  for (const [key, rows] of Object.entries(matrix.single_node)) single[key] = rows.filter((r) => r !== canary);
  return { canary, remaining: { ...matrix, single_node: single } };
}
