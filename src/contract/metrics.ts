/**
 * The metric catalog: every metric a point carries (the `agg_*.json` keys, in seconds and tok/s)
 * or the dashboard derives from one, with its label, its unit and which way is better. The store's
 * comparison, the Pareto frontiers of the API and the dashboard, and the dashboard's axes read it.
 */

/** Which way is better: higher (`max`) or lower (`min`). */
export type Goal = 'max' | 'min';

export interface MetricDef {
  key: string;
  label: string;
  unit: string;
  goal: Goal;
}

type Kind = 'total' | 'output' | 'input';
const KINDS: readonly Kind[] = ['total', 'output', 'input'];
const prefix = (k: Kind): string => (k === 'total' ? '' : `${k}_`);
const titleOf = (k: Kind): string => (k === 'total' ? 'Token' : k[0]!.toUpperCase() + k.slice(1));

/** The throughput per GPU of each kind of token: what cost, power and energy per token are derived from. */
export const THROUGHPUT_METRIC: Readonly<Record<Kind, string>> = {
  total: 'tput_per_gpu',
  output: 'output_tput_per_gpu',
  input: 'input_tput_per_gpu',
};

/** Request latencies and interactivity, in each statistic the benchmark reports. */
const STATS: readonly [string, string][] = [
  ['mean', 'mean'],
  ['median', 'median'],
  ['std', 'standard deviation'],
  ['p90', 'p90'],
  ['p99', 'p99'],
  ['p99.9', 'p99.9'],
];
const LATENCIES: readonly (Omit<MetricDef, 'key'> & { name: string })[] = [
  { name: 'intvty', label: 'Interactivity', unit: 'tok/s/user', goal: 'max' },
  { name: 'ttft', label: 'Time to first token', unit: 's', goal: 'min' },
  { name: 'tpot', label: 'Time per output token', unit: 's', goal: 'min' },
  { name: 'itl', label: 'Inter-token latency', unit: 's', goal: 'min' },
  { name: 'e2el', label: 'End-to-end latency', unit: 's', goal: 'min' },
];

export const METRIC_CATALOG: readonly MetricDef[] = [
  ...KINDS.map((k) => ({
    key: THROUGHPUT_METRIC[k],
    label: `${titleOf(k)} throughput per GPU`,
    unit: 'tok/s/GPU',
    goal: 'max' as const,
  })),
  // Derived by the dashboard from the throughput and the hardware's TCO figures.
  ...KINDS.map((k) => ({
    key: `${prefix(k)}cost_per_mtok`,
    label: `Cost per million ${k} tokens`,
    unit: '$/M tok',
    goal: 'min' as const,
  })),
  ...KINDS.map((k) => ({
    key: `${prefix(k)}tput_per_mw`,
    label: `${titleOf(k)} throughput per MW (all-in)`,
    unit: 'tok/s/MW',
    goal: 'max' as const,
  })),
  ...KINDS.map((k) => ({
    key: `${prefix(k)}joules_per_tok`,
    label: `Energy per ${k} token (all-in)`,
    unit: 'J/tok',
    goal: 'min' as const,
  })),
  ...LATENCIES.flatMap(({ name, label, unit, goal }) =>
    STATS.map(([stat, statLabel]) => ({ key: `${stat}_${name}`, label: `${label}, ${statLabel}`, unit, goal })),
  ),
  // Measured by the power step (GPU telemetry).
  ...KINDS.map((k) => ({
    key: `joules_per_${k}_token`,
    label: `Energy per ${k} token (measured)`,
    unit: 'J/tok',
    goal: 'min' as const,
  })),
  { key: 'joules_per_successful_query', label: 'Energy per successful request (measured)', unit: 'J/request', goal: 'min' },
  { key: 'prefill_joules_per_input_token', label: 'Prefill energy per input token (measured)', unit: 'J/tok', goal: 'min' },
  { key: 'decode_joules_per_output_token', label: 'Decode energy per output token (measured)', unit: 'J/tok', goal: 'min' },
];

/**
 * Every key the power step writes into an aggregate when power is valid (whole deployment, then
 * per role for disaggregated multinode points): W, J and J per unit. A point shows them only when
 * its power verdict is valid with schema version 2.
 */
export const WHOLE_POWER_KEYS = [
  'avg_power_w',
  'avg_total_gpu_power_w',
  'total_gpu_energy_j',
  'joules_per_successful_query',
  'joules_per_input_token',
  'joules_per_output_token',
  'joules_per_total_token',
] as const;
/** The per-role keys of a disaggregated multinode point (board energy of each role's GPUs over the whole window). */
export const ROLE_POWER_KEYS = [
  'prefill_gpu_energy_j',
  'decode_gpu_energy_j',
  'prefill_avg_power_w',
  'decode_avg_power_w',
  'prefill_joules_per_input_token',
  'decode_joules_per_output_token',
] as const;
export const MEASURED_POWER_KEYS = [...WHOLE_POWER_KEYS, ...ROLE_POWER_KEYS] as const;

/** The measured energy metrics with a direction in the catalog: what a comparison judges. */
export const MEASURED_ENERGY_METRICS = [
  'joules_per_total_token',
  'joules_per_output_token',
  'joules_per_input_token',
  'joules_per_successful_query',
  'prefill_joules_per_input_token',
  'decode_joules_per_output_token',
] as const;

const BY_KEY = new Map(METRIC_CATALOG.map((m) => [m.key, m]));

/** The catalog's entry for a metric; undefined for a key it does not know. */
export const metricDef = (key: string): MetricDef | undefined => BY_KEY.get(key);

/** Which way is better for a metric; an error for one the catalog does not know. */
export function goalOf(metric: string): Goal {
  const m = BY_KEY.get(metric);
  if (!m) throw new Error(`no direction known for metric "${metric}"`);
  return m.goal;
}
