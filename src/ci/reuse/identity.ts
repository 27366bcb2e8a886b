/**
 * The identity of a result row: the fields that say which point it is, so two rows for the same
 * point are caught however their files are split. Missing parallelism fields take their defaults
 * (pp, dcp and pcp 1), so rows written before those fields existed match rows written after.
 * Conversions follow the reference's Python (`int(x)` with a fallback, `str(x).lower() == "true"`).
 */

type Row = Record<string, unknown>;
export type Identity = unknown[];

/** Python's `int(value)`, or `fallback` where it raises. */
export function asInt(value: unknown, fallback = 0): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : fallback;
  if (typeof value === 'string' && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(value)) return Number.parseInt(value.replace(/_/g, ''), 10);
  return fallback;
}

/** Python's `str(value).lower() == "true"` for non-booleans. */
export function asBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  return typeof value === 'string' && value.toLowerCase() === 'true';
}

/** `row.get(key, fallback)`: present keys keep their value, even null. */
const get = (row: Row, key: string, fallback: unknown = null): unknown => (key in row ? row[key] : fallback);

/** Nested JSON as an order-independent identity: objects become sorted [key, value] pairs. */
export function freezeIdentity(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(freezeIdentity);
  if (value !== null && typeof value === 'object')
    return Object.entries(value as Row)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, freezeIdentity(v)]);
  return value;
}

const worker = (row: Row, side: 'prefill' | 'decode'): Identity => [
  asInt(get(row, `${side}_tp`)),
  asInt(get(row, `${side}_pp`, 1), 1),
  asInt(get(row, `${side}_dcp_size`, 1), 1),
  asInt(get(row, `${side}_pcp_size`, 1), 1),
  asInt(get(row, `${side}_ep`, 1)),
  asBool(get(row, `${side}_dp_attention`, false)),
  asInt(get(row, `${side}_num_workers`, 0)),
];

const single = (row: Row): Identity => [
  asInt(get(row, 'tp')),
  asInt(get(row, 'pp', 1), 1),
  asInt(get(row, 'dcp_size', 1), 1),
  asInt(get(row, 'pcp_size', 1), 1),
  asInt(get(row, 'ep', 1)),
  asBool(get(row, 'dp_attention', false)),
];

const multinode = (row: Row): boolean => asBool(get(row, 'is_multinode', false));

/** A fixed-sequence benchmark row (results_bmk). */
export function benchmarkKey(row: Row): Identity {
  const head = [
    get(row, 'hw'),
    get(row, 'infmax_model_prefix'),
    get(row, 'framework'),
    get(row, 'precision'),
    get(row, 'spec_decoding', 'none'),
  ];
  const seq = [asBool(get(row, 'disagg', false)), asInt(get(row, 'isl')), asInt(get(row, 'osl'))];
  if (multinode(row))
    return ['multi', ...head, ...seq, ...worker(row, 'prefill'), ...worker(row, 'decode'), asInt(get(row, 'conc'))];
  return ['single', ...head, ...seq, ...single(row), asInt(get(row, 'conc'))];
}

/** An agentic point: no sequence lengths; the KV offload setting is part of the identity. */
export function agenticKey(row: Row): Identity {
  let offload: unknown;
  if ('kv_offloading' in row) {
    const kv = row.kv_offloading || 'none';
    offload = [kv, kv !== 'none' ? freezeIdentity(row.kv_offload_backend || '') : ''];
  } else offload = get(row, 'offloading', 'none');
  if (multinode(row)) {
    const key = [
      'multi',
      get(row, 'hw'),
      get(row, 'infmax_model_prefix'),
      get(row, 'framework'),
      get(row, 'precision'),
      get(row, 'spec_decoding', 'none'),
      asBool(get(row, 'disagg', false)),
      ...worker(row, 'prefill'),
      ...worker(row, 'decode'),
      asInt(get(row, 'conc')),
    ];
    return 'kv_offloading' in row || 'offloading' in row ? [...key, offload] : key;
  }
  return [
    'single',
    get(row, 'hw'),
    get(row, 'infmax_model_prefix'),
    get(row, 'framework'),
    get(row, 'precision'),
    ...single(row),
    asInt(get(row, 'conc')),
    offload,
  ];
}

/** An eval row: runner names compared lowercased (aggregates may uppercase them); 8k/1k by default. */
export function evalKey(row: Row): Identity {
  const head = [
    String(get(row, 'hw') || '').toLowerCase(),
    get(row, 'model_prefix', get(row, 'infmax_model_prefix')),
    get(row, 'framework'),
    get(row, 'precision'),
    get(row, 'spec_decoding', 'none'),
    asInt(get(row, 'isl', 8192), 8192),
    asInt(get(row, 'osl', 1024), 1024),
  ];
  if (multinode(row)) return ['multi', ...head, ...worker(row, 'prefill'), ...worker(row, 'decode'), asInt(get(row, 'conc'))];
  return ['single', ...head, ...single(row), asInt(get(row, 'conc'))];
}

/** A key for maps and sets. */
export const identityText = (id: Identity): string => JSON.stringify(id);
