/**
 * Python's `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`: the
 * canonical text the reference hashes into recipe fingerprints and compares as identities.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, escape);
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The same text with some top-level keys left out (point-level fields of a matrix row). */
export function canonicalJsonWithout(row: object, omit: ReadonlySet<string>): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!omit.has(k)) rest[k] = v;
  return canonicalJson(rest);
}
