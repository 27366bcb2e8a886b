/**
 * The store's tables as Kysely sees them. Booleans are integers (0/1) and JSON is text on both
 * SQLite and PostgreSQL, so one set of queries serves both; rows are converted at the edges.
 * No column inside a unique key is nullable: an unknown value is '' or 0, so a re-ingest always
 * meets its earlier row instead of adding a twin (the reference's eval key has that bug).
 */
import type { Generated } from 'kysely';
import type { AgenticPointRow, ConfigRow, RunRow } from '../contract/index.js';

/** The SQL engines the store runs on. */
export type Dialect = 'sqlite' | 'postgres';

/** A row as the tables hold it: booleans are 0/1 on both engines. */
type Stored<T> = { [K in keyof T]: T[K] extends boolean ? number : T[K] };

/** A config: the API's config row (`src/contract/api.ts`), stored, with its natural key. */
export interface ConfigsTable extends Stored<Omit<ConfigRow, 'config_id'>> {
  id: Generated<number>;
  /** The natural key: every identity column, canonically joined (unique). */
  key: string;
}

/**
 * A run: the API's run row (`src/contract/api.ts`), stored, without what is counted from its
 * results (points, agentic points, evals, success rate). One stored attempt per run id; `labels` is a JSON array.
 */
export interface RunsTable extends Stored<
  Omit<RunRow, 'labels' | 'points' | 'agentic_points' | 'evals' | 'success_rate' | 'conclusion' | 'conclusion_override'>
> {
  id: Generated<number>;
  labels: string;
}

export interface BenchmarkResultsTable {
  id: Generated<number>;
  run_pk: number;
  config_id: number;
  date: string;
  isl: number;
  osl: number;
  conc: number;
  /** The runner label the point ran on (`hw` in the aggregate). */
  runner: string;
  tput_per_gpu: number;
  output_tput_per_gpu: number;
  input_tput_per_gpu: number;
  median_ttft: number | null;
  p99_ttft: number | null;
  median_tpot: number | null;
  median_intvty: number | null;
  p90_intvty: number | null;
  p99_intvty: number | null;
  median_e2el: number | null;
  p99_e2el: number | null;
  /** JSON object: every numeric metric of the aggregate (seconds, tok/s); measured energy only when power_valid is 1. */
  metrics: string;
  /** The power verdict (1/0; null: the aggregate has none), its schema version, reason codes (JSON array) and source. */
  power_valid: number | null;
  power_schema_version: number | null;
  power_reasons: string;
  power_source: 'measured' | 'modelled' | null;
  /** How many times the point was measured (1: once), whether its repeats were fresh launches, and each metric's statistics (JSON object, `{}` when n = 1). */
  n: number;
  repeat_scope: 'launch' | 'point' | null;
  stats: string;
}

/**
 * The latest point of each (config, isl, osl, conc) among official runs and among unofficial ones:
 * what the dashboard and `/api/v1/benchmarks` ask for most, kept up to date by every ingest (the
 * reference keeps a materialized view for the same reason).
 */
/**
 * An agentic point: the API's agentic row (`src/contract/api.ts`), stored, without what its config
 * and run hold; with its whole aggregate and its TTFT by context length as JSON text (null: the run
 * kept no per-request records). Its natural key is (run, config, kv offloading, backend, DRAM, conc).
 */
export interface AgenticPointsTable extends Stored<
  Omit<AgenticPointRow, Exclude<keyof ConfigRow, 'config_id'> | 'point_id' | 'run_id' | 'attempt' | 'official'>
> {
  id: Generated<number>;
  run_pk: number;
  aggregate: string;
  ttft_by_context: string | null;
}

export interface LatestPointsTable {
  id: Generated<number>;
  official: number;
  config_id: number;
  isl: number;
  osl: number;
  conc: number;
  result_id: number;
  run_pk: number;
  date: string;
}

export interface EvalResultsTable {
  id: Generated<number>;
  run_pk: number;
  config_id: number;
  task: string;
  isl: number;
  osl: number;
  conc: number;
  date: string;
  score: number;
  score_se: number | null;
  score_name: string;
  n_eff: number | null;
  /** The minimum score the run was held to, and whether the score met it (1/0); null when unknown. */
  threshold: number | null;
  passed: number | null;
  /** JSON object: em_strict, em_flexible and their standard errors, and the rest. */
  metrics: string;
  /** JSON object: counts from the samples file, when the run kept it. */
  samples: string;
  source: string;
}

export interface ChangelogEntriesTable {
  id: Generated<number>;
  run_pk: number;
  position: number;
  date: string;
  base_ref: string;
  head_ref: string;
  /** JSON array of config keys. */
  config_keys: string;
  description: string;
  pr_link: string;
  evals_only: number;
}

export interface RunStatsTable {
  id: Generated<number>;
  run_pk: number;
  hardware: string;
  n_success: number;
  total: number;
}

export interface RunLogsTable {
  id: Generated<number>;
  run_pk: number;
  /** Its path in the run directory: server_logs_<RF>/server.log. */
  name: string;
  /** The file's size; `content` is its end when it was larger than the store keeps (truncated 1). */
  size: number;
  truncated: number;
  content: string;
}

/**
 * One attempt at one launch of a `frontier run` (run.json's `launches[].attempts`): the nodes it ran
 * on (JSON array), how it ended (`ok`, `infrastructure`, `measurement`, `interrupted`) and why, its
 * Slurm job ('' if none), and the cluster the run used (node names are the cluster's).
 */
export interface LaunchAttemptsTable {
  id: Generated<number>;
  run_pk: number;
  cluster: string;
  /** The launch's id and label in run.json. */
  launch: string;
  label: string;
  attempt: number;
  nodes: string;
  outcome: string;
  reason: string;
  job: string;
  started_at: string;
  ended_at: string;
}

export interface TokensTable {
  id: Generated<number>;
  name: string;
  /** sha256 of the token, hex: the token itself is never stored. */
  hash: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * Every correction of the record (`frontier runs purge|unpurge|override`), never changed or
 * removed: who (`by`), when (`at`, ISO), why, and the run as it was (`run`: its stored fields,
 * `counts`: its rows by kind, both JSON objects). Whether a run id is purged now is its latest
 * purge or unpurge entry here. `conclusion_from`/`conclusion_to`: '' when not an override.
 */
export interface RecordAuditTable {
  id: Generated<number>;
  action: 'purge' | 'unpurge' | 'override' | 'clear-override';
  run_id: string;
  attempt: number;
  by: string;
  at: string;
  reason: string;
  run: string;
  counts: string;
  conclusion_from: string;
  conclusion_to: string;
}

/**
 * A run's conclusion set by hand, by run id: kept apart from the run's ingested status, so that a
 * re-ingest (a later attempt included) keeps it. A purge removes it (the audit keeps it).
 */
export interface RunOverridesTable {
  id: Generated<number>;
  run_id: string;
  conclusion: 'success' | 'failure';
  reason: string;
  by: string;
  at: string;
}

export interface Database {
  configs: ConfigsTable;
  runs: RunsTable;
  benchmark_results: BenchmarkResultsTable;
  agentic_points: AgenticPointsTable;
  latest_points: LatestPointsTable;
  eval_results: EvalResultsTable;
  changelog_entries: ChangelogEntriesTable;
  run_stats: RunStatsTable;
  run_logs: RunLogsTable;
  launch_attempts: LaunchAttemptsTable;
  tokens: TokensTable;
  record_audit: RecordAuditTable;
  run_overrides: RunOverridesTable;
}
