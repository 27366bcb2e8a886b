const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * A computation done once per owner (a tree under review, a rule's context): the first call
 * computes and keeps the value (a promise stays the same promise), later calls return it.
 */
export function once<T>(owner: object, name: string, compute: () => T): T {
  let entries = cache.get(owner);
  if (!entries) cache.set(owner, (entries = new Map()));
  if (!entries.has(name)) entries.set(name, compute());
  return entries.get(name) as T;
}
