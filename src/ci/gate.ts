/**
 * Whether an event starts a sweep: InferenceX's `check-changelog` → `reuse-sweep-gate` →
 * `setup` chain of `run-sweep.yml`, as one function. Each job's result is kept (the workflow
 * steps and the tests read them) with the reasons in words.
 */
import {
  LABELS,
  RELEVANT_LABELS,
  REUSE_ELIGIBLE_LABELS,
  REUSE_INCOMPATIBLE_LABELS,
  SKIP_SWEEP_TAG,
  SWEEP_LABELS,
  isLabel,
} from './labels.js';
import { EXTERNAL_WORKFLOW } from './workflows/external.js';

export type JobResult = 'success' | 'failure' | 'skipped';

/** The pull_request actions run-sweep.yml listens to; opened/reopened are left out on purpose. */
export const PR_TRIGGER_ACTIONS = ['ready_for_review', 'synchronize', 'labeled', 'unlabeled'] as const;

export interface GateInput {
  event: string;
  action?: string | undefined;
  draft?: boolean;
  /** The head branch lives in this repository (false for a fork). */
  internal?: boolean;
  labels?: readonly string[];
  /** The label a labeled/unlabeled event added or removed. */
  label?: string | undefined;
  /** The head commit's message (pull_request) or the pushed head commit's (push). */
  headMessage?: string;
  /** The ref a push went to (default refs/heads/main). */
  ref?: string | undefined;
  /** The perf-changelog check's outcome, when it runs. */
  changelog?: 'success' | 'failure';
  /** A maintainer's `/reuse-sweep-run` authorizes reusing an earlier run for this head. */
  reuseAuthorized?: boolean;
}

export interface GateDecision {
  /** The check-changelog job (skipped when the event does not call for it). */
  check: JobResult;
  /** The reuse-sweep-gate job. */
  reuseGate: 'success' | 'skipped';
  /** Whether the sweep runs (the setup job). */
  run: boolean;
  /** Why it runs or not, most decisive first. */
  reasons: string[];
  /** Labels and tags present that change nothing, each with why. */
  notes: string[];
  /** More than one sweep label: the change must pick one. */
  conflict?: string[];
}

const MAIN = 'refs/heads/main';
const list = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');

export function gate(input: GateInput): GateDecision {
  const labels = new Set(input.labels ?? []);
  const sweepLabels = SWEEP_LABELS.filter((l) => labels.has(l));
  const reasons: string[] = [];
  const notes: string[] = [];
  const skip = (reason: string, check: JobResult = 'skipped'): GateDecision => ({
    check,
    reuseGate: 'skipped',
    run: false,
    reasons: [reason, ...reasons],
    notes,
  });

  if (input.event === 'push') {
    const ref = input.ref ?? MAIN;
    if (ref !== MAIN) return skip(`a push to ${ref}: only pushes to main sweep`);
    if ((input.headMessage ?? '').includes(SKIP_SWEEP_TAG))
      notes.push(`${SKIP_SWEEP_TAG} is ignored on a push to main: a merged change always sweeps`);
    return { check: 'skipped', reuseGate: 'skipped', run: true, reasons: ['a push to main: the official sweep'], notes };
  }
  if (input.event === 'workflow_dispatch')
    return { check: 'skipped', reuseGate: 'skipped', run: true, reasons: ['dispatched by hand: an unofficial sweep'], notes };
  if (input.event !== 'pull_request') return skip(`${input.event} events do not start a sweep`);

  const action = input.action ?? '';
  if (!(PR_TRIGGER_ACTIONS as readonly string[]).includes(action))
    return skip(
      `pull_request ${action || '(no action)'} does not start a sweep: only ${PR_TRIGGER_ACTIONS.join(', ')} do (a PR opened with a sweep label waits for a push or a label change)`,
    );
  if (input.draft) return skip('the pull request is a draft');
  const labelEvent = action === 'labeled' || action === 'unlabeled';
  if (labelEvent && !RELEVANT_LABELS.includes(input.label ?? ''))
    return skip(`${action} \`${input.label ?? ''}\`: not a sweep, modifier or policy label, so it changes nothing`);

  // check-changelog runs.
  if (sweepLabels.length > 1) {
    return {
      ...skip(`conflicting sweep labels ${list(sweepLabels)}: pick exactly one`, 'failure'),
      conflict: sweepLabels,
    };
  }
  const check = input.changelog ?? 'success';
  if (check === 'failure') return skip('the perf-changelog check failed', 'failure');

  const reusable =
    action === 'synchronize' &&
    REUSE_ELIGIBLE_LABELS.some((l) => labels.has(l)) &&
    !REUSE_INCOMPATIBLE_LABELS.some((l) => labels.has(l));
  const reuseGate = reusable ? 'success' : 'skipped';
  if (input.reuseAuthorized && !reusable) {
    const blocking = REUSE_INCOMPATIBLE_LABELS.filter((l) => labels.has(l));
    notes.push(
      blocking.length > 0
        ? `the /reuse-sweep-run authorization is ignored: ${list(blocking)} measure something a reused run did not`
        : `the /reuse-sweep-run authorization is ignored: reuse replaces only a full sweep on a push (synchronize)`,
    );
  }

  const unused = [...labels].filter((l) => isLabel(l) && LABELS[l].kind !== 'sweep');
  if (sweepLabels.length === 0) {
    for (const l of unused) notes.push(`\`${l}\` changes nothing without a sweep label (${list(SWEEP_LABELS)})`);
    return { check, reuseGate, run: false, reasons: [`no sweep label: add one of ${list(SWEEP_LABELS)}`], notes };
  }
  const [sweepLabel] = sweepLabels as [string];
  if (!input.internal && input.internal !== undefined)
    return {
      check,
      reuseGate,
      run: false,
      reasons: [
        `the head branch is in a fork: no sweep runs here; a maintainer with write permission approves its head commit by adding the sweep label, and the trusted external sweep (${EXTERNAL_WORKFLOW}) dispatches the sweep of exactly that commit`,
      ],
      notes,
    };
  if ((input.headMessage ?? '').includes(SKIP_SWEEP_TAG))
    return { check, reuseGate, run: false, reasons: [`the head commit says ${SKIP_SWEEP_TAG}`], notes };
  if (reusable && input.reuseAuthorized)
    return {
      check,
      reuseGate,
      run: false,
      reasons: ['a maintainer authorized reusing an earlier sweep of this head (/reuse-sweep-run): no new sweep'],
      notes,
    };
  reasons.push(`\`${sweepLabel}\`: ${LABELS[sweepLabel as keyof typeof LABELS].effect}`);
  if (labelEvent) reasons.push(`${action} \`${input.label}\` re-evaluates the sweep`);
  return { check, reuseGate, run: true, reasons, notes };
}
