/**
 * API tokens for writes: a random secret shown once at creation; the store keeps only its
 * sha256, so a leaked database does not leak tokens. Tokens are 256-bit random, so a plain hash
 * (not a slow password hash) is enough, and lookup is by hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from './db.js';
import { UserError } from '../util/user-error.js';

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Create a token named `name`; returns the secret (the only time it exists outside its holder). */
export async function createToken(store: Store, name: string): Promise<string> {
  if (!/^[\w.@-]{1,64}$/.test(name)) throw new UserError(`token name "${name}": use 1–64 letters, digits, . _ @ or -`);
  const exists = await store.db.selectFrom('tokens').select('id').where('name', '=', name).executeTakeFirst();
  if (exists)
    throw new UserError(`a token named "${name}" exists: revoke it first (frontier token revoke ${name}) or pick another name`);
  const token = `ftk_${randomBytes(32).toString('base64url')}`;
  await store.db
    .insertInto('tokens')
    .values({ name, hash: hashOf(token), created_at: new Date().toISOString(), last_used_at: null })
    .execute();
  return token;
}

/** The name of the token, when it is valid (and records its use). */
export async function verifyToken(store: Store, token: string): Promise<string | undefined> {
  const row = await store.db.selectFrom('tokens').select(['id', 'name']).where('hash', '=', hashOf(token)).executeTakeFirst();
  if (!row) return undefined;
  await store.db.updateTable('tokens').set({ last_used_at: new Date().toISOString() }).where('id', '=', row.id).execute();
  return row.name;
}

export async function listTokens(store: Store): Promise<{ name: string; created_at: string; last_used_at: string | null }[]> {
  return store.db.selectFrom('tokens').select(['name', 'created_at', 'last_used_at']).orderBy('name').execute();
}

/** Revoke a token; false when there is none by that name. */
export async function revokeToken(store: Store, name: string): Promise<boolean> {
  const result = await store.db.deleteFrom('tokens').where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
