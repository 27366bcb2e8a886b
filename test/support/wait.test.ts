import { describe, expect, it } from 'vitest';
import { WaitTimeout, waitFor } from './wait.js';

describe('waitFor', () => {
  it('returns the first truthy value of the check, as soon as there is one', async () => {
    let calls = 0;
    const started = Date.now();
    expect(await waitFor(() => (++calls === 3 ? { calls } : undefined), { what: 'the third call', intervalMs: 1 })).toEqual({
      calls: 3,
    });
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await waitFor(async () => 'now', { what: 'an async check' })).toBe('now');
  });

  it('times out saying what it waited for (a function is asked at the timeout)', async () => {
    let seen = 0;
    const started = Date.now();
    const waiting = waitFor(() => ++seen > 1e9, { timeoutMs: 100, intervalMs: 10, what: () => `a count past 1e9 (at ${seen})` });
    await expect(waiting).rejects.toThrow(WaitTimeout);
    await expect(waiting).rejects.toThrow(/^timed out after 100ms waiting for a count past 1e9 \(at \d+\)$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(seen).toBeGreaterThan(2);
  });

  it('ends at once with the error of a check that throws', async () => {
    let calls = 0;
    const check = (): boolean => {
      if (++calls === 2) throw new Error('the process exited');
      return false;
    };
    await expect(waitFor(check, { what: 'never', timeoutMs: 10_000 })).rejects.toThrow('the process exited');
    expect(calls).toBe(2);
  });
});
