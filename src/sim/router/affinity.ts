import type { IncomingHttpHeaders } from 'node:http';
import type { Backend, BackendPool } from './backends.js';

/**
 * Session affinity, as Dynamo's frontend keeps it (`--router-session-affinity-ttl-secs`): the
 * turns of one agent session go to the prefill server that took its first turn, where its
 * prompt prefix is cached, until the session closes or sits idle past the TTL. A request names
 * its session with the `X-Dynamo-Session-ID` header, an `X-Correlation-ID` header (AIPerf's
 * per-session id, what an nginx `hash $http_x_correlation_id` affinity keys on), or Dynamo's
 * body field `nvext.session_control: {session_id, action: "open" | "bind" | "close"}` (close: this turn is
 * the last; the binding is dropped after it is routed).
 */

export interface SessionBinding {
  id: string;
  /** The session ends with this request. */
  close: boolean;
}

/** One hour, the TTL InferenceX's agentic recipes give Dynamo's router. */
export const DEFAULT_SESSION_TTL_MS = 3_600_000;

/** The session a request belongs to, if it names one. */
export function sessionOf(headers: IncomingHttpHeaders, body: Record<string, unknown>): SessionBinding | undefined {
  const control = sessionControlOf(body);
  if (control) return control;
  for (const name of ['x-dynamo-session-id', 'x-correlation-id']) {
    const raw = headers[name];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (id) return { id, close: false };
  }
  return undefined;
}

function sessionControlOf(body: Record<string, unknown>): SessionBinding | undefined {
  const nvext = body.nvext;
  if (typeof nvext !== 'object' || nvext === null) return undefined;
  const control = (nvext as Record<string, unknown>).session_control;
  if (typeof control !== 'object' || control === null) return undefined;
  const { session_id: id, action } = control as Record<string, unknown>;
  if (typeof id !== 'string' || id === '') return undefined;
  return { id, close: action === 'close' };
}

/** Which prefill server each live session is bound to. */
export class SessionAffinity {
  private readonly bound = new Map<string, { backend: Backend; lastUsed: number }>();

  constructor(
    private readonly ttlMs = DEFAULT_SESSION_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get sessions(): number {
    return this.bound.size;
  }

  /** The session's backend (bound now to the pool's pick if new or expired); the pool's pick without a session. */
  pick(pool: BackendPool, session: SessionBinding | undefined): Backend {
    if (!session) return pool.pick();
    const now = this.now();
    const held = this.bound.get(session.id);
    const backend =
      held && now - held.lastUsed <= this.ttlMs && pool.backends.includes(held.backend) ? held.backend : pool.pick();
    if (session.close) this.bound.delete(session.id);
    else {
      // Re-inserted so the map stays in last-used order and expired sessions are swept from its front.
      this.bound.delete(session.id);
      this.bound.set(session.id, { backend, lastUsed: now });
    }
    this.sweep(now);
    return backend;
  }

  private sweep(now: number): void {
    for (const [id, { lastUsed }] of this.bound) {
      if (now - lastUsed <= this.ttlMs) break;
      this.bound.delete(id);
    }
  }
}
