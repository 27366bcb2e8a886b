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
import { UserError } from '../util/user-error.js';

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
  /** A dispatch of a changelog range (an approved external pull request's): its rows are that range's entries. */
  changelogRange?: ChangelogRange;
}

/** The changelog range a dispatch names (`changelog-base-ref`, `changelog-head-ref`). */
export interface ChangelogRange {
  base: string;
  head: string;
}

/**
 * A dispatch's changelog range: both refs or neither (then the dispatch sweeps the rows of its
 * `generate-cli-command`), as InferenceX's e2e-tests.yml takes them.
 */
export function dispatchedRange(event: GithubEvent): ChangelogRange | undefined {
  if (event.name !== 'workflow_dispatch') return undefined;
  const base = (event.inputs?.['changelog-base-ref'] ?? '').trim();
  const head = (event.inputs?.['changelog-head-ref'] ?? '').trim();
  if (!base && !head) return undefined;
  if (!base || !head)
    throw new UserError('a dispatch names both changelog-base-ref and changelog-head-ref, or neither', {
      hint: 'give the base and head commits of the range whose changelog entries to sweep',
    });
  return { base, head };
}

/** The labels an event steers by: the pull request's, or a dispatch's `pr-labels-json` (the source PR's). */
export function eventLabels(event: GithubEvent): string[] {
  if (event.pullRequest) return event.pullRequest.labels;
  const raw = event.name === 'workflow_dispatch' ? (event.inputs?.['pr-labels-json'] ?? '').trim() : '';
  if (raw === '') return [];
  let labels: unknown;
  try {
    labels = JSON.parse(raw);
  } catch {
    labels = undefined;
  }
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string'))
    throw new UserError(`the dispatch input pr-labels-json ${JSON.stringify(raw)} is not a JSON array of label names`, {
      hint: 'e.g. ["sweep-enabled","all-evals"], or leave it empty',
    });
  return labels as string[];
}

export interface PlanInput {
  event: GithubEvent;
  /** The head commit's message (for `[skip-sweep]`). */
  headMessage: string;
  changelog?: 'success' | 'failure';
  reuseAuthorized?: boolean;
  /** push: the earlier run `ci reuse` found for this merge (its reuse-source-run-id). */
  reuseSourceRun?: string | undefined;
}

const OFFICIAL: SweepMode = { trimConc: false, canary: false, failFast: false };

export function planSweep(input: PlanInput): SweepPlan {
  const { event } = input;
  const pr = event.pullRequest;
  const labels = eventLabels(event);
  const range = dispatchedRange(event);
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
  const common = {
    ...decision,
    ...(event.name === 'push' && input.reuseSourceRun ? { reuseSourceRun: input.reuseSourceRun } : {}),
    event: event.name,
    official: event.name === 'push',
    ...(labelled && sweepLabel ? { sweepLabel } : {}),
    skipQueue: labelled && has('skip_queue'),
  };
  if (event.name === 'workflow_dispatch') {
    const { notes, reason, ...how } = dispatchedMode(event, range);
    return { ...common, ...how, reasons: [reason], notes: [...common.notes, ...notes] };
  }
  return {
    ...common,
    mode: event.name === 'pull_request' ? mode : { ...mode, canary: false },
    evals: labelled && has('evals-only') ? 'only' : labelled && has('all-evals') ? 'all' : 'default',
    agentxFast: labelled && has('agentx-fast'),
  };
}

/**
 * A dispatch says how with its own inputs (e2e-tests.yml's): `fail-fast` and `agentx-fast`
 * always; `trim-conc`, `all-evals` and `evals-only` for a changelog range only (the rows of a
 * `generate-cli-command` are what the command says). Never a canary.
 */
function dispatchedMode(
  event: GithubEvent,
  range: ChangelogRange | undefined,
): Pick<SweepPlan, 'mode' | 'evals' | 'agentxFast' | 'changelogRange' | 'notes'> & { reason: string } {
  const on = (key: string): boolean => event.inputs?.[key] === 'true';
  const notes: string[] = [];
  if (!range)
    for (const key of ['trim-conc', 'all-evals', 'evals-only'])
      if (on(key)) notes.push(`${key} is ignored: it shapes a changelog range's rows, and this dispatch names a command`);
  const name = event.inputs?.['test-name']?.trim();
  return {
    mode: { trimConc: range !== undefined && on('trim-conc'), canary: false, failFast: on('fail-fast') },
    evals: range && on('evals-only') ? 'only' : range && on('all-evals') ? 'all' : 'default',
    agentxFast: on('agentx-fast'),
    ...(range ? { changelogRange: range } : {}),
    reason: range
      ? `dispatched${name ? ` (${name})` : ''}: the changelog entries from ${range.base} to ${range.head}, an unofficial sweep`
      : 'dispatched by hand: an unofficial sweep',
    notes,
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
