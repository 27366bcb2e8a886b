/**
 * Why a launch (or one of its points) failed, as the executor that saw it happen says:
 *
 * - `infrastructure`: the machinery under the measurement failed before there was one to take: an
 *   engine that never became healthy, a worker that crashed at start-up, a Slurm job that ended
 *   NODE_FAIL (or timed out, or was cancelled) before its first request. Another node, or another
 *   try, may well succeed: `frontier run` retries these (`--retries`, the profile's `retries`).
 * - `measurement`: everything else. The benchmark ran (its result failed its checks, or the engine
 *   died while serving it), or the launch could not be set up as asked. Trying again would measure
 *   the same thing again; it is never retried, and an invalid point is never hidden by a retry.
 *
 * The kind travels as data, from where the failure is known: a `LaunchFailure` thrown by an
 * executor, or a failed point's outcome (`PointOutcome`'s `kind`).
 */

export type FailureKind = 'infrastructure' | 'measurement';

/** How one attempt of a launch ended; `interrupted`: the run was stopped while it ran. */
export type AttemptOutcome = 'ok' | FailureKind | 'interrupted';

/** A launch's failure, with its kind. An executor's plain Error is a `measurement` failure. */
export class LaunchFailure extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
  ) {
    super(message);
    this.name = 'LaunchFailure';
  }
}

export const failureKindOf = (e: unknown): FailureKind => (e instanceof LaunchFailure ? e.kind : 'measurement');

/**
 * Slurm job states that say the node or the scheduler failed, whatever the job had done: points
 * without a result are infrastructure failures (squeue's and scontrol's names).
 */
export const INFRASTRUCTURE_JOB_STATES: ReadonlySet<string> = new Set(['NODE_FAIL', 'BOOT_FAIL', 'PREEMPTED', 'DEADLINE']);

/** Whether an ended Slurm job's state alone makes its missing results an infrastructure failure. */
export const isInfrastructureState = (state: string | undefined): boolean =>
  state !== undefined && INFRASTRUCTURE_JOB_STATES.has(state.replace(/[+ ].*$/, ''));
