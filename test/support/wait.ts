// The one way the tests wait for something to happen: check the condition itself, every few
// milliseconds, until it holds or a deadline passes, and then fail saying what was awaited. (Not a
// fixed sleep that hopes the thing has happened by then: that is slow when it has, flaky when not.)
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the failure message; a function is called at the timeout, so it can say what it last saw. */
  what: string | (() => string);
  /** Give up after this long; default 5 s. */
  timeoutMs?: number;
  /** The pause between checks; default 20 ms. */
  intervalMs?: number;
}

/** `waitFor`'s failure: `timed out after <N>ms waiting for <what>`. */
export class WaitTimeout extends Error {
  override name = 'WaitTimeout';
}

/**
 * Call `check` until it returns a truthy value, and return that value; after `timeoutMs` (with a last check at the
 * deadline), throw a WaitTimeout: `timed out after <timeoutMs>ms waiting for <what>`. A check that throws ends the wait
 * with its error at once (for a condition that can no longer come true, e.g. the process it waits on has exited).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  { what, timeoutMs = 5_000, intervalMs = 20 }: WaitOptions,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new WaitTimeout(`timed out after ${timeoutMs}ms waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(Math.min(intervalMs, left));
  }
}
