/**
 * The store's read queries, the same on SQLite and PostgreSQL. Rows come back as the API returns
 * them: config fields flattened, booleans as booleans, JSON columns parsed.
 */
import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { conclusionOf } from '../contract/index.js';
import type {
  AgenticPointDetail,
  AgenticPointRow,
  AvailabilityRow,
  ConfigRow,
  EvalRow,
  PointRow,
  RunDetail,
  RunConclusion,
  RunLog,
  RunRow,
  TtftBucket,
} from '../contract/index.js';
import { counted } from './counted.js';
import type { Store } from './db.js';
import type { AgenticPointsTable, BenchmarkResultsTable, ConfigsTable, EvalResultsTable, RunsTable } from './schema.js';

/**
 * Which runs count when none is named. Each run is in one channel: official, unofficial, or staged
 * from a pull request (`/stage-results`). `all` is the record (official and unofficial): a staged
 * run is seen only where it is asked for (`staged`, or by its id).
 */
export type Source = 'official' | 'unofficial' | 'staged' | 'all';

/** Which rows: one run's, or the latest official (or unofficial, staged, any recorded) point of each config. */
export interface ResultFilter {
  model?: string | undefined;
  isl?: number | undefined;
  osl?: number | undefined;
  hardware?: string | undefined;
  framework?: string | undefined;
  precision?: string | undefined;
  /** Only this run's rows (no "latest" selection). */
  run?: string | undefined;
  /** Which runs count when no run is named; default official. `any`: every run, staged ones too (a point asked for by id). */
  source?: Source | 'any' | undefined;
  /** As of this date (YYYY-MM-DD): the latest row on or before it; with `exact`, only rows of that date. */
  date?: string | undefined;
  exact?: boolean | undefined;
  /** Only these configs. */
  configIds?: number[] | undefined;
  /** Only these metrics in each row (a dashboard needs a dozen of the ~45). */
  metrics?: string[] | undefined;
  /** Leave this run's rows out (a run's baseline is the latest official point before it). */
  excludeRun?: string | undefined;
}

/** One page of an answer, in the query's order (the API pages large answers; callers in-process take everything). */
export interface Paging {
  limit?: number | undefined;
  offset?: number | undefined;
}

function paged<Q extends { limit(n: number): Q; offset(n: number): Q }>(q: Q, p: Paging): Q {
  return p.limit === undefined ? q : q.limit(p.limit).offset(p.offset ?? 0);
}

/** Rows loosely typed: Kysely cannot infer aliased joins over a table name chosen at run time, nor selects from them. */
type Loose = Kysely<Record<string, Record<string, unknown>>>;

type From = 'benchmark_results' | 'agentic_points' | 'eval_results';

/**
 * Where each field of a contract row is read from (a table alias: x the point or eval, r its run,
 * c its config), in the order the API answers them. Each record names every field of its row once,
 * so a field the contract gains, loses or renames is a compile error here, not a silent gap.
 */
type Sources<Row, Alias extends string> = Record<keyof Row & string, Alias>;

const CONFIG_SOURCES: Sources<Omit<ConfigRow, 'config_id'>, 'c'> = {
  hardware: 'c',
  framework: 'c',
  model: 'c',
  model_prefix: 'c',
  precision: 'c',
  spec_method: 'c',
  disagg: 'c',
  is_multinode: 'c',
  prefill_tp: 'c',
  prefill_pp: 'c',
  prefill_dcp: 'c',
  prefill_pcp: 'c',
  prefill_ep: 'c',
  prefill_dp_attention: 'c',
  prefill_num_workers: 'c',
  num_prefill_gpu: 'c',
  decode_tp: 'c',
  decode_pp: 'c',
  decode_dcp: 'c',
  decode_pcp: 'c',
  decode_ep: 'c',
  decode_dp_attention: 'c',
  decode_num_workers: 'c',
  num_decode_gpu: 'c',
  image: 'c',
  recipe_fingerprint: 'c',
};

const POINT_SOURCES: Sources<PointRow, 'x' | 'r' | 'c'> = {
  config_id: 'x',
  ...CONFIG_SOURCES,
  run_id: 'r',
  attempt: 'r',
  official: 'r',
  date: 'x',
  isl: 'x',
  osl: 'x',
  conc: 'x',
  runner: 'x',
  power_valid: 'x',
  power_schema_version: 'x',
  power_reasons: 'x',
  power_source: 'x',
  metrics: 'x',
  n: 'x',
  repeat_scope: 'x',
  stats: 'x',
};

const EVAL_SOURCES: Sources<EvalRow, 'x' | 'r' | 'c'> = {
  config_id: 'x',
  ...CONFIG_SOURCES,
  run_id: 'r',
  official: 'r',
  date: 'x',
  task: 'x',
  isl: 'x',
  osl: 'x',
  conc: 'x',
  score: 'x',
  score_se: 'x',
  score_name: 'x',
  n_eff: 'x',
  threshold: 'x',
  passed: 'x',
  metrics: 'x',
  samples: 'x',
};

const AVAILABILITY_SOURCES: Sources<AvailabilityRow, 'x' | 'c'> = {
  model_prefix: 'c',
  model: 'c',
  isl: 'x',
  osl: 'x',
  precision: 'c',
  hardware: 'c',
  framework: 'c',
  spec_method: 'c',
  disagg: 'c',
  date: 'x',
};

const AGENTIC_SOURCES: Sources<AgenticPointRow, 'x' | 'r' | 'c'> = {
  point_id: 'x',
  config_id: 'x',
  ...CONFIG_SOURCES,
  run_id: 'r',
  attempt: 'r',
  official: 'r',
  date: 'x',
  conc: 'x',
  runner: 'x',
  kv_offloading: 'x',
  kv_offload_backend: 'x',
  allocated_cpu_dram_gb: 'x',
  num_requests_total: 'x',
  num_requests_successful: 'x',
  num_errors: 'x',
  tput_per_gpu: 'x',
  output_tput_per_gpu: 'x',
  input_tput_per_gpu: 'x',
  mean_intvty: 'x',
  median_intvty: 'x',
  mean_ttft: 'x',
  median_ttft: 'x',
  p90_ttft: 'x',
  p95_ttft: 'x',
  mean_e2el: 'x',
  median_e2el: 'x',
  p90_e2el: 'x',
  median_itl: 'x',
  gpu_cache_hit_rate: 'x',
  cpu_cache_hit_rate: 'x',
  theoretical_cache_hit_rate: 'x',
  gpu_kv_usage: 'x',
  kv_cache_pool_tokens: 'x',
};

// Every field is a column of its tables (a compile error names the one that is not).
type NoneLeft<T extends never> = T;
type _ConfigColumns = NoneLeft<Exclude<keyof ConfigRow, keyof ConfigsTable | 'config_id'>>;
type _PointColumns = NoneLeft<Exclude<keyof PointRow, keyof ConfigsTable | keyof RunsTable | keyof BenchmarkResultsTable>>;
type _EvalColumns = NoneLeft<Exclude<keyof EvalRow, keyof ConfigsTable | keyof RunsTable | keyof EvalResultsTable>>;
type _AgenticColumns = NoneLeft<
  Exclude<keyof AgenticPointRow, keyof ConfigsTable | keyof RunsTable | keyof AgenticPointsTable | 'point_id'>
>;
type _AvailabilityColumns = NoneLeft<Exclude<keyof AvailabilityRow, keyof ConfigsTable | keyof BenchmarkResultsTable>>;

/** The columns of those fields, each as its field's name. */
const select = (eb: ExpressionBuilder<Record<string, Record<string, unknown>>, string>, sources: Record<string, string>) =>
  Object.entries(sources).map(([k, alias]) => eb.ref(`${alias}.${COLUMN_OF[k] ?? k}`).as(k));

/** Fields whose column has another name. */
const COLUMN_OF: Record<string, string> = { point_id: 'id' };

const BOOLEAN_COLUMNS = ['disagg', 'is_multinode', 'prefill_dp_attention', 'decode_dp_attention', 'official'];

/** A benchmark row from the database: its metrics parsed, only `keep` of them when given. */
function pointRow(raw: Record<string, unknown>, keep: string[] | undefined): PointRow {
  const row = toRow<PointRow>(raw, ['metrics', 'power_reasons', 'stats']);
  row.n = Number(row.n);
  // Null stays null: a point stored without a verdict is neither valid nor invalid.
  row.power_valid = raw.power_valid === null || raw.power_valid === undefined ? null : Number(raw.power_valid) === 1;
  if (keep) {
    row.metrics = Object.fromEntries(keep.filter((k) => k in row.metrics).map((k) => [k, row.metrics[k]!]));
    row.stats = Object.fromEntries(keep.filter((k) => k in row.stats).map((k) => [k, row.stats[k]!]));
  }
  return row;
}

function toRow<T>(raw: Record<string, unknown>, json: string[] = []): T {
  const out: Record<string, unknown> = { ...raw };
  for (const k of BOOLEAN_COLUMNS) if (k in out) out[k] = Number(out[k]) === 1;
  for (const k of json) if (typeof out[k] === 'string') out[k] = JSON.parse(out[k] as string);
  return out as T;
}

/** The condition on a run (alias r) of being in a channel. */
function inChannel(source: Source) {
  if (source === 'staged') return sql<boolean>`r.staged_pr > 0`;
  if (source === 'all') return sql<boolean>`r.staged_pr = 0`;
  return sql<boolean>`r.staged_pr = 0 and r.official = ${sql.lit(source === 'official' ? 1 : 0)}`;
}

/** Rows of `table` joined with their run and config, narrowed by the filter (except the latest-selection). */
function joined<T extends From>(store: Store, table: T, f: ResultFilter, { everyRun = false } = {}) {
  const db = store.db as unknown as Loose;
  let q = db
    .selectFrom(`${table} as x` as 'benchmark_results as x')
    .innerJoin('runs as r', 'r.id', 'x.run_pk')
    .innerJoin('configs as c', 'c.id', 'x.config_id');
  if (f.model !== undefined) {
    const model = f.model;
    q = q.where((eb) => eb.or([eb('c.model_prefix', '=', model), eb('c.model', '=', model)]));
  }
  if (f.isl !== undefined) q = q.where('x.isl', '=', f.isl);
  if (f.osl !== undefined) q = q.where('x.osl', '=', f.osl);
  if (f.hardware !== undefined) q = q.where('c.hardware', '=', f.hardware.toLowerCase());
  if (f.framework !== undefined) q = q.where('c.framework', '=', f.framework.toLowerCase());
  if (f.precision !== undefined) q = q.where('c.precision', '=', f.precision.toLowerCase());
  if (f.run !== undefined) q = q.where('r.run_id', '=', f.run);
  else if (f.source !== 'any') q = q.where(inChannel(f.source ?? 'official'));
  // A named run is shown whole; otherwise only runs that count (store/counted.ts).
  if (f.run === undefined && !everyRun) q = q.where(counted('r'));
  if (f.date !== undefined) q = q.where('x.date', f.exact ? '=' : '<=', f.date);
  if (f.configIds !== undefined) q = q.where('x.config_id', 'in', f.configIds.length > 0 ? f.configIds : [-1]);
  if (f.excludeRun !== undefined) q = q.where('r.run_id', '!=', f.excludeRun);
  return q;
}

/**
 * Benchmark points. With a run: that run's points. Otherwise the latest point of each config at
 * each (isl, osl, conc) among the chosen runs, as of the date when one is given.
 */
export async function benchmarks(store: Store, f: ResultFilter & Paging = {}): Promise<PointRow[]> {
  const source = f.source ?? 'official';
  // The common question (the latest official or unofficial points, today) is answered from latest_points.
  const kept =
    f.run === undefined &&
    f.date === undefined &&
    f.excludeRun === undefined &&
    (source === 'official' || source === 'unofficial');
  const latest = f.run === undefined && !kept;
  let q = joined(store, 'benchmark_results', f);
  if (kept) {
    q = q.innerJoin('latest_points as l', 'l.result_id', 'x.id').where('l.official', '=', source === 'official' ? 1 : 0);
  }
  const selected = q.select((eb) => [
    ...select(eb as never, POINT_SOURCES),
    ...(latest
      ? [
          sql<number>`row_number() over (partition by x.config_id, x.isl, x.osl, x.conc order by x.date desc, x.run_pk desc)`.as(
            'rank',
          ),
        ]
      : []),
  ]);
  // The latest of each point is chosen in the database, so that a page is a page of chosen rows
  // (a subquery, for the rank; SQLite cannot flatten it, so rows that need no rank skip it).
  const ordered = latest
    ? ((store.db as unknown as Loose)
        .selectFrom(selected.as('p'))
        .selectAll()
        .where('p.rank', '=', 1) as unknown as typeof selected)
    : selected;
  const rows = await paged(
    ordered.orderBy('hardware').orderBy('framework').orderBy('config_id').orderBy('isl').orderBy('osl').orderBy('conc'),
    f,
  ).execute();
  return (rows as Record<string, unknown>[]).map((raw) => {
    delete raw.rank;
    return pointRow(raw, f.metrics);
  });
}

/** Points over time (every run of the chosen kind) of one config, or of a model's configs; oldest first. */
export async function history(
  store: Store,
  f: Omit<ResultFilter, 'run' | 'date' | 'exact'> & Paging & { config?: number | undefined; conc?: number | undefined },
): Promise<PointRow[]> {
  let q = joined(store, 'benchmark_results', f);
  if (f.config !== undefined) q = q.where('x.config_id', '=', f.config);
  if (f.conc !== undefined) q = q.where('x.conc', '=', f.conc);
  const rows = await paged(
    q
      .select((eb) => [...select(eb as never, POINT_SOURCES)])
      .orderBy('x.date')
      .orderBy('x.run_pk')
      .orderBy('x.isl')
      .orderBy('x.osl')
      .orderBy('x.conc')
      .orderBy('x.config_id'),
    f,
  ).execute();
  return (rows as Record<string, unknown>[]).map((raw) => pointRow(raw, f.metrics));
}

/** Eval results: a run's, or the latest of each config, task and conc among the chosen runs. */
export async function evaluations(
  store: Store,
  f: ResultFilter & Paging & { task?: string | undefined } = {},
): Promise<EvalRow[]> {
  let q = joined(store, 'eval_results', f);
  if (f.task !== undefined) q = q.where('x.task', '=', f.task.toLowerCase());
  const latest = f.run === undefined;
  const selected = q.select((eb) => [
    ...select(eb as never, EVAL_SOURCES),
    ...(latest
      ? [
          sql<number>`row_number() over (partition by x.config_id, x.task, x.isl, x.osl, x.conc order by x.date desc, x.run_pk desc)`.as(
            'rank',
          ),
        ]
      : []),
  ]);
  const rows = await paged(
    (store.db as unknown as Loose)
      .selectFrom(selected.as('p'))
      .selectAll()
      .$if(latest, (p) => p.where('p.rank', '=', 1))
      .orderBy('p.model_prefix')
      .orderBy('p.hardware')
      .orderBy('p.config_id')
      .orderBy('p.task')
      .orderBy('p.conc')
      .orderBy('p.isl')
      .orderBy('p.osl'),
    f,
  ).execute();
  return (rows as Record<string, unknown>[]).map((raw) => {
    delete raw.rank;
    const row = toRow<EvalRow>(raw, ['metrics', 'samples']);
    row.passed = raw.passed === null ? null : Number(raw.passed) === 1;
    return row;
  });
}

/** What there is to look at: one row per model, sequence, config family and date (official runs). */
export async function availability(store: Store, page: Paging = {}): Promise<AvailabilityRow[]> {
  const q = joined(store, 'benchmark_results', {})
    .select((eb) => select(eb as never, AVAILABILITY_SOURCES))
    .distinct()
    .orderBy('model_prefix')
    .orderBy('isl')
    .orderBy('osl')
    .orderBy('hardware')
    .orderBy('framework')
    .orderBy('precision')
    .orderBy('date')
    .orderBy('model')
    .orderBy('spec_method')
    .orderBy('disagg');
  const rows = await paged(q, page).execute();
  return (rows as Record<string, unknown>[]).map((raw) => toRow<AvailabilityRow>(raw));
}

const RUN_SOURCES: Sources<
  Omit<RunRow, 'points' | 'agentic_points' | 'evals' | 'success_rate' | 'conclusion' | 'conclusion_override'>,
  'r'
> = {
  run_id: 'r',
  attempt: 'r',
  official: 'r',
  source_run_id: 'r',
  merge_run_id: 'r',
  origin: 'r',
  name: 'r',
  url: 'r',
  commit_sha: 'r',
  branch: 'r',
  labels: 'r',
  status: 'r',
  deferred_points: 'r',
  deferred_reason: 'r',
  staged_pr: 'r',
  staged_by: 'r',
  staged_at: 'r',
  date: 'r',
  started_at: 'r',
  finished_at: 'r',
  ingested_at: 'r',
};
type _RunColumns = NoneLeft<Exclude<keyof typeof RUN_SOURCES, keyof RunsTable>>;
const runColumns = Object.keys(RUN_SOURCES) as (keyof typeof RUN_SOURCES)[];

/** Runs, newest first, with their point and eval counts and success rate; `pr`: those staged from that pull request. */
export async function runs(
  store: Store,
  f: { source?: Source; pr?: number; limit?: number; offset?: number; run?: string } = {},
): Promise<RunRow[]> {
  const db = store.db;
  let q = db
    .selectFrom('runs as r')
    .leftJoin('run_overrides as o', 'o.run_id', 'r.run_id')
    .select((eb) => [
      ...runColumns.map((k) => eb.ref(`r.${k}`).as(k)),
      eb.ref('o.conclusion').as('override_conclusion'),
      eb.ref('o.reason').as('override_reason'),
      eb.ref('o.by').as('override_by'),
      eb.ref('o.at').as('override_at'),
      eb
        .selectFrom('benchmark_results as b')
        .whereRef('b.run_pk', '=', 'r.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('points'),
      eb
        .selectFrom('agentic_points as a')
        .whereRef('a.run_pk', '=', 'r.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('agentic_points'),
      eb.selectFrom('eval_results as e').whereRef('e.run_pk', '=', 'r.id').select(eb.fn.countAll<number>().as('n')).as('evals'),
      eb
        .selectFrom('run_stats as s')
        .whereRef('s.run_pk', '=', 'r.id')
        .select((s) => s.fn.sum<number>('s.n_success').as('n'))
        .as('n_success'),
      eb
        .selectFrom('run_stats as s')
        .whereRef('s.run_pk', '=', 'r.id')
        .select((s) => s.fn.sum<number>('s.total').as('n'))
        .as('total'),
    ])
    .orderBy('r.date', 'desc')
    .orderBy('r.id', 'desc');
  if (f.run !== undefined) q = q.where('r.run_id', '=', f.run);
  else if (f.pr !== undefined) q = q.where('r.staged_pr', '=', f.pr);
  else q = q.where(inChannel(f.source ?? 'all'));
  const rows = await paged(q, { limit: f.limit ?? 100, offset: f.offset }).execute();
  return rows.map((raw) => {
    const { n_success, total, override_conclusion, override_reason, override_by, override_at, ...rest } = raw as Record<
      string,
      unknown
    >;
    const row = toRow<RunRow>(rest, ['labels']);
    row.conclusion_override =
      override_conclusion === null
        ? null
        : {
            conclusion: override_conclusion as RunConclusion,
            reason: override_reason as string,
            by: override_by as string,
            at: override_at as string,
          };
    row.conclusion = row.conclusion_override?.conclusion ?? conclusionOf(row.status);
    row.points = Number(row.points);
    row.agentic_points = Number(row.agentic_points);
    row.evals = Number(row.evals);
    row.staged_pr = Number(row.staged_pr);
    row.success_rate = total === null || Number(total) === 0 ? null : Number(n_success) / Number(total);
    return row;
  });
}

/** One run with its stats and changelog; undefined when the store does not have it. */
export async function run(store: Store, runId: string): Promise<RunDetail | undefined> {
  const [row] = await runs(store, { run: runId, limit: 1 });
  if (!row) return undefined;
  const pk = store.db.selectFrom('runs').select('id').where('run_id', '=', runId);
  const stats = await store.db
    .selectFrom('run_stats')
    .select(['hardware', 'n_success', 'total'])
    .where('run_pk', '=', pk)
    .orderBy('hardware')
    .execute();
  const changelog = await store.db
    .selectFrom('changelog_entries')
    .select(['base_ref', 'head_ref', 'config_keys', 'description', 'pr_link', 'evals_only'])
    .where('run_pk', '=', pk)
    .orderBy('position')
    .execute();
  const attempts = await store.db
    .selectFrom('launch_attempts')
    .select(['launch', 'label', 'attempt', 'nodes', 'outcome', 'reason', 'job', 'started_at', 'ended_at'])
    .where('run_pk', '=', pk)
    .orderBy('launch')
    .orderBy('attempt')
    .execute();
  return {
    ...row,
    run_stats: stats,
    attempts: attempts.map((a) => ({ ...a, attempt: Number(a.attempt), nodes: JSON.parse(a.nodes) as string[] })),
    logs: await runLogs(store, runId),
    changelog: changelog.map((c) => ({
      ...c,
      config_keys: JSON.parse(c.config_keys) as string[],
      evals_only: c.evals_only === 1,
    })),
  };
}

/** A run's logs: name, size and whether only their end is kept. */
export async function runLogs(store: Store, runId: string): Promise<RunLog[]> {
  const rows = await store.db
    .selectFrom('run_logs as l')
    .innerJoin('runs as r', 'r.id', 'l.run_pk')
    .select(['l.name', 'l.size', 'l.truncated'])
    .where('r.run_id', '=', runId)
    .orderBy('l.name')
    .execute();
  return rows.map((r) => ({ name: r.name, size: Number(r.size), truncated: Number(r.truncated) === 1 }));
}

/** The text of one of a run's logs; undefined when there is none by that name. */
export async function runLog(store: Store, runId: string, name: string): Promise<string | undefined> {
  const row = await store.db
    .selectFrom('run_logs as l')
    .innerJoin('runs as r', 'r.id', 'l.run_pk')
    .select('l.content')
    .where('r.run_id', '=', runId)
    .where('l.name', '=', name)
    .executeTakeFirst();
  return row?.content;
}

/**
 * Agentic points. With a run: that run's points. Otherwise the latest point of each config, KV
 * offloading and conc among the chosen runs, as of the date when one is given. `isl` and `osl` do
 * not apply (a replayed trace has no fixed lengths).
 */
export async function agenticPoints(
  store: Store,
  f: Omit<ResultFilter, 'isl' | 'osl' | 'metrics'> & Paging = {},
): Promise<AgenticPointRow[]> {
  const latest = f.run === undefined;
  const selected = joined(store, 'agentic_points', f).select((eb) => [
    ...select(eb as never, AGENTIC_SOURCES),
    ...(latest
      ? [
          sql<number>`row_number() over (partition by x.config_id, x.kv_offloading, x.kv_offload_backend, x.allocated_cpu_dram_gb, x.conc order by x.date desc, x.run_pk desc)`.as(
            'rank',
          ),
        ]
      : []),
  ]);
  const rows = await paged(
    (store.db as unknown as Loose)
      .selectFrom(selected.as('p'))
      .selectAll()
      .$if(latest, (p) => p.where('p.rank', '=', 1))
      .orderBy('p.model_prefix')
      .orderBy('p.hardware')
      .orderBy('p.framework')
      .orderBy('p.config_id')
      .orderBy('p.kv_offloading')
      .orderBy('p.kv_offload_backend')
      .orderBy('p.allocated_cpu_dram_gb')
      .orderBy('p.conc')
      .orderBy('p.date')
      .orderBy('p.run_id'),
    f,
  ).execute();
  return (rows as Record<string, unknown>[]).map((raw) => {
    delete raw.rank;
    return agenticRow(raw);
  });
}

/** One agentic point with its whole aggregate and its TTFT by context length; undefined when there is none with that id. */
export async function agenticPoint(store: Store, id: number): Promise<AgenticPointDetail | undefined> {
  const raw = await joined(store, 'agentic_points', { source: 'any' }, { everyRun: true })
    .select((eb) => [
      ...select(eb as never, AGENTIC_SOURCES),
      eb.ref('x.aggregate').as('aggregate'),
      eb.ref('x.ttft_by_context').as('ttft_by_context'),
    ])
    .where('x.id', '=', id)
    .executeTakeFirst();
  if (!raw) return undefined;
  const { aggregate, ttft_by_context, ...row } = raw as Record<string, unknown>;
  return {
    ...agenticRow(row),
    aggregate: JSON.parse(aggregate as string) as Record<string, unknown>,
    ttft_by_context: ttft_by_context === null ? null : (JSON.parse(ttft_by_context as string) as TtftBucket[]),
  };
}

/** Numbers as numbers (PostgreSQL's integer sums and SQLite's reals both come back as JS numbers already; ids may be strings). */
function agenticRow(raw: Record<string, unknown>): AgenticPointRow {
  const row = toRow<AgenticPointRow>(raw);
  row.point_id = Number(row.point_id);
  return row;
}
