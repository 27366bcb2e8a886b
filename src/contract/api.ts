/**
 * What the API answers, as JSON: the store's rows (config fields flattened, booleans as booleans,
 * JSON columns parsed) and the answers built from them. The store's queries are typed with these,
 * and the dashboard reads its answers with them, so the two cannot drift apart.
 */
import type { Goal } from './metrics.js';

/** A config: what was served, and how (one side per role; a single-node config has both sides alike). */
export interface ConfigRow {
  config_id: number;
  hardware: string;
  framework: string;
  model: string;
  model_prefix: string;
  precision: string;
  spec_method: string;
  disagg: boolean;
  is_multinode: boolean;
  prefill_tp: number;
  prefill_pp: number;
  prefill_dcp: number;
  prefill_pcp: number;
  prefill_ep: number;
  prefill_dp_attention: boolean;
  prefill_num_workers: number;
  num_prefill_gpu: number;
  decode_tp: number;
  decode_pp: number;
  decode_dcp: number;
  decode_pcp: number;
  decode_ep: number;
  decode_dp_attention: boolean;
  decode_num_workers: number;
  num_decode_gpu: number;
  image: string;
  recipe_fingerprint: string;
}

/** A benchmark point (`/api/v1/benchmarks`, `/api/v1/history`): its config, its run and its metrics. */
export interface PointRow extends ConfigRow {
  run_id: string;
  attempt: number;
  official: boolean;
  date: string;
  isl: number;
  osl: number;
  conc: number;
  runner: string;
  /**
   * The power step's verdict on the point's measured energy (the aggregate's `power_valid` with
   * `power_metric_schema_version` 2, and the `power_validation_*.json` sidecar when ingest had it);
   * null when the aggregate carries no verdict (made before the power step). The measured energy
   * keys are among `metrics` only when it is true.
   */
  power_valid: boolean | null;
  /** The aggregate's `power_metric_schema_version`; null when it has none. */
  power_schema_version: number | null;
  /** Why the power is not valid: the sidecar's reason codes, and the store's own (see docs/power.md). */
  power_reasons: string[];
  /** Where the power figures came from: GPU telemetry (`measured`) or the simulated engine's power model (`modelled`); null without a verdict. */
  power_source: PowerSource | null;
  /** Metric key → value (see the metric catalog); only the asked-for ones when the query names some. With repeats, the mean. */
  metrics: Record<string, number>;
  /** How many times the point was measured (its repeats); 1: a single sample, with no interval. */
  n: number;
  /** `launch`: each repeat was a fresh engine launch; `point`: the repeats shared one launch; null when n = 1. */
  repeat_scope: RepeatScope | null;
  /** Metric key → its spread over the repeats; empty when n = 1. */
  stats: Record<string, MetricStats>;
}

export type RepeatScope = 'launch' | 'point';

/**
 * A metric over a point's repeated measurements: the number of samples, their mean (the metric's
 * value), the sample standard deviation and the 95% confidence interval of the mean (Student's t
 * with n − 1 degrees of freedom). `std` and `ci95` are null when n = 1.
 */
export interface MetricStats {
  n: number;
  mean: number;
  std: number | null;
  ci95: [number, number] | null;
  /** Each repeat's value, in the order they ran. */
  values: number[];
}

/**
 * How much a metric varies from run to run (`/api/v1/variation`): the coefficient of variation
 * (standard deviation of the log of the value, ≈ relative standard deviation) estimated from
 * official history, for one config or pooled over a hardware and framework, with what it rests on.
 */
export interface VariationRow {
  /** The config the estimate is for; null for a pooled estimate. */
  config_id: number | null;
  hardware: string;
  framework: string;
  metric: string;
  cv: number;
  /** Samples behind it, the groups they form (a point's measurements) and its degrees of freedom (samples − groups). */
  samples: number;
  groups: number;
  df: number;
  /** `config`: from this config's own history; `pooled`: from every config of its hardware and framework. */
  scope: 'config' | 'pooled';
}

/** Where a point's power figures came from: GPU telemetry, or the simulated engine's model of it. */
export type PowerSource = 'measured' | 'modelled';

/** An eval result (`/api/v1/evaluations`). */
export interface EvalRow extends ConfigRow {
  run_id: string;
  official: boolean;
  date: string;
  task: string;
  isl: number;
  osl: number;
  conc: number;
  score: number;
  score_se: number | null;
  score_name: string;
  n_eff: number | null;
  threshold: number | null;
  passed: boolean | null;
  metrics: Record<string, number>;
  samples: Record<string, number>;
}

/** A run (`/api/v1/runs`), newest first. */
export interface RunRow {
  run_id: string;
  attempt: number;
  official: boolean;
  source_run_id: string;
  merge_run_id: string;
  origin: string;
  name: string;
  url: string;
  commit_sha: string;
  branch: string;
  labels: string[];
  /** completed, partial (some points deferred: they come later), failed, interrupted, running. */
  status: string;
  /** Points of the run's matrix that have not run yet (`frontier run --defer`), and why. */
  deferred_points: number;
  deferred_reason: string;
  /**
   * A staged run (`/stage-results`): the pull request it was staged from (0: not staged), who
   * staged it and when. Staged runs are never official and feed no view that does not name them.
   */
  staged_pr: number;
  staged_by: string;
  staged_at: string;
  date: string;
  started_at: string;
  finished_at: string;
  ingested_at: string;
  points: number;
  /** Agentic points (trace replay), counted apart from the fixed-length ones. */
  agentic_points: number;
  evals: number;
  /** Jobs that succeeded over all jobs (run stats), null when the run has none. */
  success_rate: number | null;
  /**
   * How the run ended: its override's conclusion when it has one, else its status's
   * (conclusionOf); null while it is running. A run overridden to failure is out of the record.
   */
  conclusion: RunConclusion | null;
  /** The correction that set its conclusion (`frontier runs override`), null when none. */
  conclusion_override: ConclusionOverride | null;
}

/** A run's conclusion: its points count in the record (success) or not (failure, by override only). */
export type RunConclusion = 'success' | 'failure';

/** A conclusion set by hand, and by whom, when and why. */
export interface ConclusionOverride {
  conclusion: RunConclusion;
  reason: string;
  by: string;
  at: string;
}

/**
 * The conclusion a run's status means: completed and partial runs succeeded, failed and
 * interrupted ones did not (the points they did finish count all the same), a running one has none yet.
 */
export function conclusionOf(status: string): RunConclusion | null {
  if (status === 'running') return null;
  return status === 'completed' || status === 'partial' ? 'success' : 'failure';
}

/** A correction of the record: what was done to which run, by whom, when and why, and what the run was then. */
export interface AuditEntry {
  id: number;
  action: 'purge' | 'unpurge' | 'override' | 'clear-override';
  run_id: string;
  attempt: number;
  by: string;
  at: string;
  reason: string;
  /** The run's stored fields when it was corrected (for unpurge: as it was purged); {} when unknown. */
  run: Record<string, unknown>;
  /** Its rows then: points, agentic points, evals, run stats, logs, launch attempts, changelog entries. */
  counts: Record<string, number>;
  /** override and clear-override: the run's conclusion before and after. */
  conclusion_from: RunConclusion | null;
  conclusion_to: RunConclusion | null;
}

/** One run (`/api/v1/runs/:id`): its stats, its logs and its changelog entries. */
export interface RunDetail extends RunRow {
  run_stats: { hardware: string; n_success: number; total: number }[];
  /** Every attempt at each of its launches (a retried launch has several), with how it ended and why. */
  attempts: LaunchAttemptRow[];
  logs: RunLog[];
  changelog: {
    base_ref: string;
    head_ref: string;
    config_keys: string[];
    description: string;
    pr_link: string;
    evals_only: boolean;
  }[];
}

/** One attempt at a launch of a run (`frontier run --retries`): where it ran, how it ended and why. */
export interface LaunchAttemptRow {
  launch: string;
  label: string;
  attempt: number;
  nodes: string[];
  /** `ok`, `infrastructure` (retried on other nodes), `measurement` (never retried) or `interrupted`. */
  outcome: string;
  reason: string;
  job: string;
  started_at: string;
  ended_at: string;
}

/** A run's log: its name, its size and whether only its end is kept. */
export interface RunLog {
  name: string;
  size: number;
  truncated: boolean;
}

/**
 * A node whose launches failed for infrastructure reasons (`/api/v1/nodes`, `frontier nodes`): on
 * a cluster, how many attempts ran on it and how many of them failed so, and the latest failure.
 */
export interface NodeRow {
  cluster: string;
  node: string;
  /** Attempts that ran on it and failed for infrastructure reasons (the engine never served, the node failed). */
  failures: number;
  /** Every attempt that ran on it. */
  attempts: number;
  /** The latest failure: its reason, when it ended, its run, launch label and Slurm job ('' if none). */
  last_failure_reason: string;
  last_failure_at: string;
  last_failure_run: string;
  last_failure_launch: string;
  last_failure_job: string;
}

/** What there is to look at (`/api/v1/availability`): one row per model, sequence, config family and date. */
export interface AvailabilityRow {
  model_prefix: string;
  model: string;
  isl: number;
  osl: number;
  precision: string;
  hardware: string;
  framework: string;
  spec_method: string;
  disagg: boolean;
  date: string;
}

/** One metric of a run's point against the latest official point of the same config, isl, osl and conc. */
/** What a comparison concludes about a change (docs/verdicts.md). */
export type VerdictName = 'regression' | 'improvement' | 'no significant change' | 'inconclusive';

export interface MetricDelta {
  /** The run's value (the mean of its repeats) and the baseline's. */
  run: number | null;
  baseline: number | null;
  /** Samples on each side (0: none). */
  n_run: number;
  n_baseline: number;
  /** run − baseline. */
  delta: number | null;
  /** The change, % (of the geometric means: the ratio of the two values when each side has one sample). */
  delta_pct: number | null;
  /** The change's 95% confidence interval, %; null when it could not be tested. */
  ci95_pct: [number, number] | null;
  /** The test used (`welch`, `moderated-t`), its degrees of freedom, p-value and Benjamini–Hochberg q-value. */
  test: string | null;
  df: number | null;
  p: number | null;
  q: number | null;
  verdict: VerdictName;
  /** Why it is inconclusive, and what would settle it. */
  note?: string | undefined;
}

export interface ComparedPoint {
  config: ConfigRow;
  label: string;
  isl: number;
  osl: number;
  conc: number;
  baseline_run_id: string | null;
  baseline_date: string | null;
  metrics: Record<string, MetricDelta>;
  /**
   * Both sides' power verdicts (null: no verdict, or no baseline). The measured energy metrics are
   * compared only when both are valid; otherwise their deltas are null and never a regression.
   */
  power: { run: PowerSide | null; baseline: PowerSide | null };
  /** The point's verdict: a regression or improvement in any metric, else what its throughput and interactivity say. */
  verdict: VerdictName;
}

/** One side's power verdict in a comparison. */
export interface PowerSide {
  valid: boolean | null;
  source: PowerSource | null;
}

/** A run against the official record (`/api/v1/compare`). */
export interface Comparison {
  run_id: string;
  /** How the verdicts were reached: the tests, the false discovery rate α and the minimum effect. */
  method: ComparisonMethod;
  points: ComparedPoint[];
  /** Points with no official point to compare with. */
  unmatched: number;
  /** Points per verdict (unmatched points are not counted). */
  verdicts: Record<VerdictName, number>;
  regressions: number;
}

export interface ComparisonMethod {
  /** The tests the metrics were put to; `moderated-t`: the point's spread shrunk toward its pool's and official history's. */
  tests: string;
  /** Benjamini–Hochberg across every metric of every point. */
  fdr: 'benjamini-hochberg';
  alpha: number;
  min_effect_pct: number;
  /** A point whose interval reaches beyond ± this is inconclusive, not unchanged. */
  resolution_pct: number;
}

/** The Pareto frontier of each series (`/api/v1/pareto`). */
export interface ParetoAnswer {
  x: string;
  y: string;
  goals: { x: Goal; y: Goal };
  series: {
    key: string;
    hardware: string;
    framework: string;
    precision: string;
    spec_method: string;
    disagg: boolean;
    isl: number;
    osl: number;
    date: string;
    /** x and y are null where a point lacks the metric. */
    points: { config_id: number; label: string; conc: number; run_id: string; x: number | null; y: number | null }[];
    /** Indices into points, x ascending. */
    frontier: number[];
  }[];
}

/**
 * The planner's predicted frontier from the simulator (`/api/v1/predicted-frontier`): the points
 * no other simulated point beats on both axes, interactivity ascending.
 */
export interface PredictedFrontierAnswer {
  /** The simulator's model id (the request may name a Hugging Face repo). */
  model: string;
  hardware: string;
  precision: string;
  isl: number;
  osl: number;
  engine: string | null;
  /** tputPerGpu: input + output tokens/s per GPU (tput_per_gpu); interactivity: 1000 / median TPOT (median_intvty). */
  points: { deployment: string; conc: number; tputPerGpu: number; interactivity: number; ttftMs: number }[];
}

/**
 * An agentic point (`/api/v1/agentic`): a config replaying recorded coding-agent sessions (AIPerf's
 * trace replay, InferenceX's `scenario-type: agentic-coding`) at one concurrency. The headline
 * numbers of its aggregate (`process_agentic_result.py`'s JSON) as fields; null where the aggregate
 * has none. Latencies in seconds, throughput in tok/s per GPU, rates as fractions (0–1).
 */
export interface AgenticPointRow extends ConfigRow {
  /** The point's id, for `/api/v1/agentic/{id}`. */
  point_id: number;
  run_id: string;
  attempt: number;
  official: boolean;
  date: string;
  conc: number;
  /** The runner label the point ran on (`hw` in the aggregate). */
  runner: string;
  /** `none`, or where KV blocks are offloaded to (`dram`); with the backend's name (`vllm-simple`, `hicache`; '' for none). */
  kv_offloading: string;
  kv_offload_backend: string;
  allocated_cpu_dram_gb: number;
  num_requests_total: number;
  num_requests_successful: number;
  /** Requests that failed (dropped as errors; warmup requests are not counted). */
  num_errors: number;
  tput_per_gpu: number | null;
  output_tput_per_gpu: number | null;
  input_tput_per_gpu: number | null;
  /** Interactivity (tok/s/user: 1 / ITL). */
  mean_intvty: number | null;
  median_intvty: number | null;
  mean_ttft: number | null;
  median_ttft: number | null;
  p90_ttft: number | null;
  /** The aggregate's slowest TTFT percentile (it has no p99); `ttft_by_context` has p99 per bucket. */
  p95_ttft: number | null;
  mean_e2el: number | null;
  median_e2el: number | null;
  p90_e2el: number | null;
  median_itl: number | null;
  /** Prefix-cache hit rates the server measured: on GPU, and from the CPU/offload tier; the replayed trace's ideal. */
  gpu_cache_hit_rate: number | null;
  cpu_cache_hit_rate: number | null;
  theoretical_cache_hit_rate: number | null;
  /** Peak GPU KV-cache usage (fraction) and the GPU KV pool (tokens). */
  gpu_kv_usage: number | null;
  kv_cache_pool_tokens: number | null;
}

/** TTFT of the requests whose input length is in [min_tokens, max_tokens): seconds. */
export interface TtftBucket {
  min_tokens: number;
  max_tokens: number;
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

/** One agentic point (`/api/v1/agentic/{id}`): its row, its whole aggregate and its TTFT by context length. */
export interface AgenticPointDetail extends AgenticPointRow {
  aggregate: Record<string, unknown>;
  /** Null when the run kept no per-request records (`profile_export.jsonl`). */
  ttft_by_context: TtftBucket[] | null;
}
