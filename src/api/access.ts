/** Who may call a route, and when: the bearer token check and the gate's slot that heavy reads hold. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyToken } from '../store/index.js';
import type { Store } from '../store/index.js';
import type { Gate } from './gate.js';
import { HttpError } from './http-error.js';

export type AccessHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The name of the token each request that passed the check carried: who it is, for the audit. */
const holders = new WeakMap<FastifyRequest, string>();

/** Who sent a request that passed `requireToken` (the token's name). */
export function tokenHolder(request: FastifyRequest): string {
  const name = holders.get(request);
  if (name === undefined) throw new Error('tokenHolder: the route does not check a token');
  return name;
}

/** A hook that answers 401 unless the request carries a token of the store. */
export function requireToken(store: Store): AccessHook {
  return async (request) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match)
      throw new HttpError(
        401,
        'a bearer token is required: Authorization: Bearer <token> (create one with frontier token create NAME)',
      );
    const name = await verifyToken(store, match[1]!);
    if (!name) throw new HttpError(401, 'the token is not valid (unknown or revoked)');
    holders.set(request, name);
  };
}

/**
 * A hook for heavy reads: each holds a slot of the gate from before its query until its answer is
 * sent (or the client is gone), and is answered 503 when the gate's queue is full.
 */
export function holdGateSlot(gate: Gate): AccessHook {
  return async (_request, reply) => {
    // The answer may end (the client gone) while the request waits for a slot: then the slot goes back at once.
    const slot: { release?: (() => void) | undefined; closed?: boolean } = {};
    reply.raw.once('close', () => {
      slot.closed = true;
      slot.release?.();
    });
    const release = (slot.release = await gate.enter());
    if (!release) {
      const { running, queued } = gate.load;
      throw new HttpError(
        503,
        `the server is busy (${running} heavy queries running, ${queued} waiting): retry after a second`,
        {},
        { 'retry-after': '1' },
      );
    }
    if (slot.closed) release();
    // Run the query in a later turn of the event loop: requests that arrived together are all
    // admitted (or turned away) first, and /health, which waits for no slot, is answered between
    // queries. SQLite's queries are synchronous: without this, every request already read ran its
    // query before the next was looked at (100 heavy requests kept /health waiting 14 s).
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}
