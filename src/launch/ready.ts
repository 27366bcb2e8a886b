import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../util/user-error.js';

/**
 * The readiness barrier: every URL answers 200 (and its body holds the expected text), checked
 * `attempts` times `intervalMs` apart, as the reference's health checks do. Stops early when
 * `failed()` says a process it waits for has died.
 */

export interface ReadyTarget {
  url: string;
  contains?: string | undefined;
}

export interface ReadyOptions {
  attempts: number;
  intervalMs: number;
  /** A reason to stop waiting (a process exited), or undefined. */
  failed?: () => string | undefined;
  /** Called after each failed attempt with what is not ready yet. */
  onWait?: (attempt: number, pending: string[]) => void;
}

export class NotReadyError extends UserError {}

async function check(t: ReadyTarget): Promise<string | undefined> {
  try {
    const res = await fetch(t.url, { signal: AbortSignal.timeout(5000) });
    const body = await res.text();
    if (res.status !== 200) return `${t.url}: HTTP ${res.status}`;
    if (t.contains !== undefined && !body.includes(t.contains)) return `${t.url}: no "${t.contains}" in the answer`;
    return undefined;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return `${t.url}: ${cause ?? (e as Error).message}`;
  }
}

export async function waitReady(targets: readonly ReadyTarget[], o: ReadyOptions): Promise<void> {
  let pending: string[] = [];
  for (let attempt = 1; attempt <= o.attempts; attempt++) {
    const reason = o.failed?.();
    if (reason) throw new NotReadyError(reason);
    pending = (await Promise.all(targets.map(check))).filter((x): x is string => x !== undefined);
    if (pending.length === 0) return;
    o.onWait?.(attempt, pending);
    if (attempt < o.attempts) await sleep(o.intervalMs);
  }
  const reason = o.failed?.();
  if (reason) throw new NotReadyError(reason);
  throw new NotReadyError(`not ready after ${o.attempts} attempts ${o.intervalMs / 1000} s apart: ${pending.join('; ')}`);
}
