import { describe, expect, it } from 'vitest';
import { naiveLocalIso, utcOffset } from '../../src/util/date.js';
import { clockAnchorFromEnv, clockFromEnv, virtualEpochMs, wallMsOf } from '../../src/util/virtual-clock.js';

describe('the virtual clock of a simulated run', () => {
  it('meets the wall clock at the anchor and runs scale times faster after it', () => {
    const clock = { scale: 10, anchorMs: 1_000_000 };
    expect(virtualEpochMs(clock, 1_000_000)).toBe(1_000_000);
    expect(virtualEpochMs(clock, 1_000_500)).toBe(1_005_000);
    expect(wallMsOf(clock, 5000)).toBe(500);
    expect(virtualEpochMs({ scale: 1, anchorMs: 7 }, 123)).toBe(123);
  });

  it('reads the anchor from FRONTIER_CLOCK_ANCHOR, else uses the fallback', () => {
    expect(clockFromEnv(4, { FRONTIER_CLOCK_ANCHOR: '1700000000000' }, 5)).toEqual({ scale: 4, anchorMs: 1_700_000_000_000 });
    expect(clockFromEnv(4, { FRONTIER_CLOCK_ANCHOR: 'soon' }, 5)).toEqual({ scale: 4, anchorMs: 5 });
    expect(clockFromEnv(4, {}, 5).anchorMs).toBe(5);
    expect(clockAnchorFromEnv({})).toBeUndefined();
    expect(clockAnchorFromEnv({ FRONTIER_CLOCK_ANCHOR: '1700000000000' })).toBe(1_700_000_000_000);
  });
});

describe('Python-shaped local times', () => {
  it('naiveLocalIso writes datetime.fromtimestamp(t).isoformat() in the process time zone', () => {
    const local = new Date(2023, 10, 14, 14, 13, 21);
    expect(naiveLocalIso(local.getTime() + 123.456)).toBe('2023-11-14T14:13:21.123456');
    expect(naiveLocalIso(local.getTime())).toBe('2023-11-14T14:13:21');
    // A fraction that rounds up to a whole second carries into the seconds.
    expect(naiveLocalIso(local.getTime() + 999.9999)).toBe('2023-11-14T14:13:22');
  });

  it('utcOffset prints the offset as date +%z does', () => {
    const offset = utcOffset(new Date(2023, 10, 14));
    expect(offset).toMatch(/^[+-]\d{4}$/);
    const minutes = (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3)));
    expect(minutes).toBe(0 - new Date(2023, 10, 14).getTimezoneOffset());
  });
});
