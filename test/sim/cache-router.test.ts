import { afterEach, describe, expect, it } from 'vitest';
import { BackendPool, backendOf } from '../../src/sim/router/backends.js';
import { SessionAffinity, encode, sessionOf, startSimRouter } from '../../src/sim/index.js';
import type { SimRouter, SimServer } from '../../src/sim/index.js';
import { completion, scrape, serveWithTruth, streamUsage, text } from '../support/sim-cache.js';

describe('session bindings', () => {
  it('reads X-Dynamo-Session-ID, X-Correlation-ID and nvext.session_control (open / bind / close)', () => {
    expect(sessionOf({ 'x-dynamo-session-id': 'a' }, {})).toEqual({ id: 'a', close: false });
    expect(sessionOf({ 'x-correlation-id': 'b' }, {})).toEqual({ id: 'b', close: false });
    const control = (action: string): Record<string, unknown> => ({ nvext: { session_control: { session_id: 'c', action } } });
    expect(sessionOf({}, control('bind'))).toEqual({ id: 'c', close: false });
    // What `frontier bench --trace --dynamo-session-binding` sends on a session's first turn.
    expect(sessionOf({}, control('open'))).toEqual({ id: 'c', close: false });
    expect(sessionOf({}, control('close'))).toEqual({ id: 'c', close: true });
    // The body's control wins over a header; nothing names no session.
    expect(sessionOf({ 'x-dynamo-session-id': 'a' }, control('bind'))!.id).toBe('c');
    expect(sessionOf({}, { nvext: { session_control: { action: 'bind' } } })).toBeUndefined();
    expect(sessionOf({}, {})).toBeUndefined();
  });

  it('binds a session to its first pick until it closes or idles past the TTL', () => {
    let now = 0;
    const pool = new BackendPool(['http://p0:1', 'http://p1:1'].map((u) => backendOf('prefill', u)));
    const affinity = new SessionAffinity(1000, () => now);
    const first = affinity.pick(pool, { id: 's', close: false });
    // The pool alone takes turns; the session stays put.
    for (let i = 0; i < 4; i++) expect(affinity.pick(pool, { id: 's', close: false })).toBe(first);
    expect(affinity.sessions).toBe(1);
    expect(affinity.pick(pool, { id: 's', close: true })).toBe(first);
    expect(affinity.sessions).toBe(0);
    // Rebound after the close, to whichever the pool gives now; then expired by the TTL.
    affinity.pick(pool, { id: 't', close: false });
    now = 5000;
    affinity.pick(pool, { id: 'u', close: false });
    expect(affinity.sessions).toBe(1); // t swept
    // No session: the pool's own choice, round robin when idle.
    expect(affinity.pick(pool, undefined)).not.toBe(affinity.pick(pool, undefined));
  });
});

describe('sim router: session affinity keeps a session’s prefix cache hot', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  /** Two prefill servers and one decode server behind a router; three agent sessions of four growing turns, interleaved. */
  async function replay(sessionAffinity: boolean): Promise<{ hitRate: number; perServer: number[] }> {
    const prefill: SimServer[] = [];
    for (let i = 0; i < 2; i++) prefill.push((await serveWithTruth({}, { role: 'prefill', speed: 20 })).server);
    const decode = (await serveWithTruth({}, { role: 'decode', speed: 20 })).server;
    open.push(...prefill, decode);
    const router: SimRouter = await startSimRouter({
      prefill: prefill.map((p) => p.url),
      decode: [decode.url],
      host: '127.0.0.1',
      port: 0,
      sessionAffinity,
    });
    open.push(router);
    const sessions = [0, 1, 2].map((s) => ({ id: `session-${s}`, context: text(1500, 60 + s) }));
    for (let turn = 0; turn < 4; turn++)
      for (const [s, session] of sessions.entries()) {
        session.context += ` ${text(300, 70 + turn * 3 + s)}`;
        const body = completion(encode(session.context));
        // Each session names itself one of the three ways a client can.
        const headers: Record<string, string> = {};
        if (s === 0) headers['X-Dynamo-Session-ID'] = session.id;
        if (s === 1) headers['X-Correlation-ID'] = session.id;
        if (s === 2) body.nvext = { session_control: { session_id: session.id, action: turn === 3 ? 'close' : 'bind' } };
        await streamUsage(router.url, '/v1/completions', body, headers);
      }
    let hits = 0;
    let queries = 0;
    const perServer: number[] = [];
    for (const p of prefill) {
      const m = await scrape(p.url);
      hits += m.value('vllm:prefix_cache_hits_total')!;
      queries += m.value('vllm:prefix_cache_queries_total')!;
      perServer.push(m.value('vllm:prefix_cache_queries_total')!);
    }
    return { hitRate: hits / queries, perServer };
  }

  it('with affinity every later turn hits its prefill server’s cache; without it the hit rate falls', async () => {
    const bound = await replay(true);
    const unbound = await replay(false);
    // Bound: turns 2–4 of each session reuse the whole previous turn (≥ 1800 of 2100–2700 tokens).
    expect(bound.hitRate).toBeGreaterThan(0.6);
    expect(unbound.hitRate).toBeLessThan(bound.hitRate - 0.15);
    // Both prefill servers took work either way.
    for (const q of [...bound.perServer, ...unbound.perServer]) expect(q).toBeGreaterThan(0);
  });
});
