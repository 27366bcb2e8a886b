import { describe, expect, it } from 'vitest';
import { limiter } from '../../src/util/limiter.js';

describe('limiter', () => {
  it('runs at most n tasks at a time, in the order given, and passes results and errors through', async () => {
    const limit = limiter(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (i: number) => async (): Promise<number> => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 3) throw new Error('three');
      return i * 10;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => limit(task(i))));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      0,
      10,
      20,
      'three',
      40,
    ]);
  });
});
