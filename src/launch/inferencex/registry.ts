import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The stand-ins' registry of a recipe launch ($FRONTIER_STANDIN_REGISTRY): each worker writes its
 * role and URL there once it serves, as real workers register in etcd, so a frontend finds them
 * and the bench finds the decoders' /metrics.
 */
export interface Registered {
  role: 'prefill' | 'decode' | 'both';
  url: string;
}

/** The workers registered so far, in a stable order. */
export function registered(registry: string): Registered[] {
  let names: string[] = [];
  try {
    names = readdirSync(registry).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return names.sort().map((f) => JSON.parse(readFileSync(join(registry, f), 'utf8')) as Registered);
}
