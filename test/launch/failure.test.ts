// What a failure is (src/launch/failure.ts): infrastructure, retried; measurement, never.
import { describe, expect, it } from 'vitest';
import { LaunchFailure, failureKindOf, isInfrastructureState } from '../../src/launch/failure.js';

describe('failure kinds', () => {
  it('an executor’s LaunchFailure says its kind; any other error is a measurement failure (never retried)', () => {
    expect(failureKindOf(new LaunchFailure('engine failed to start', 'infrastructure'))).toBe('infrastructure');
    expect(failureKindOf(new LaunchFailure('bad result', 'measurement'))).toBe('measurement');
    expect(failureKindOf(new Error('unknown model "x"'))).toBe('measurement');
    expect(failureKindOf('a string')).toBe('measurement');
    expect(new LaunchFailure('m', 'infrastructure')).toBeInstanceOf(Error);
  });

  it('Slurm states that blame the node or the scheduler, whatever the job did', () => {
    for (const state of ['NODE_FAIL', 'BOOT_FAIL', 'PREEMPTED', 'DEADLINE', 'NODE_FAIL+'])
      expect(isInfrastructureState(state)).toBe(true);
    for (const state of ['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED', 'OUT_OF_MEMORY', undefined])
      expect(isInfrastructureState(state)).toBe(false);
  });
});
