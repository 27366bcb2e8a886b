/**
 * The store's migrations, one list for SQLite and PostgreSQL (Kysely's schema builder writes
 * each dialect's DDL). Applied in order by Kysely's Migrator, which records them and holds a lock,
 * so two processes opening the same database do not both migrate it.
 */
import { Migrator, sql } from 'kysely';
import type { CreateTableBuilder, Kysely, Migration, MigrationProvider } from 'kysely';
import type { AgenticPointsTable, Dialect } from './schema.js';

type Table = CreateTableBuilder<string, string>;

function withId(db: Kysely<unknown>, dialect: Dialect, name: string): Table {
  const t = db.schema.createTable(name) as unknown as Table;
  return dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const text = (t: Table, ...names: string[]): Table =>
  names.reduce((acc, n) => acc.addColumn(n, 'text', (c) => c.notNull().defaultTo('')), t);
const int = (t: Table, ...names: string[]): Table => names.reduce((acc, n) => acc.addColumn(n, 'integer', (c) => c.notNull()), t);
const real = (t: Table, ...names: string[]): Table => names.reduce((acc, n) => acc.addColumn(n, 'double precision'), t);
const runRef = (t: Table): Table =>
  t.addColumn('run_pk', 'integer', (c) => c.notNull().references('runs.id').onDelete('cascade'));

function initial(dialect: Dialect): Migration {
  return {
    async up(db) {
      let configs = text(
        withId(db, dialect, 'configs'),
        'key',
        'hardware',
        'framework',
        'model',
        'model_prefix',
        'precision',
        'spec_method',
      );
      configs = int(configs, 'disagg', 'is_multinode');
      for (const side of ['prefill', 'decode']) {
        const p = (k: string) => `${side}_${k}`;
        configs = int(
          configs,
          p('tp'),
          p('pp'),
          p('dcp'),
          p('pcp'),
          p('ep'),
          p('dp_attention'),
          p('num_workers'),
          `num_${side}_gpu`,
        );
      }
      await text(configs, 'image', 'recipe_fingerprint').addUniqueConstraint('configs_key', ['key']).execute();
      await db.schema.createIndex('configs_model').on('configs').columns(['model_prefix', 'hardware']).execute();
      await db.schema.createIndex('configs_model_path').on('configs').columns(['model']).execute();

      let runs = text(withId(db, dialect, 'runs'), 'run_id');
      runs = int(runs, 'attempt', 'official');
      runs = text(runs, 'source_run_id', 'merge_run_id', 'origin', 'name', 'url', 'commit_sha', 'branch', 'labels', 'status');
      runs = text(runs, 'date', 'started_at', 'finished_at', 'ingested_at');
      await runs.addUniqueConstraint('runs_run_id', ['run_id']).execute();
      await db.schema.createIndex('runs_date').on('runs').columns(['official', 'date']).execute();

      let bench = runRef(withId(db, dialect, 'benchmark_results'));
      bench = bench.addColumn('config_id', 'integer', (c) => c.notNull().references('configs.id'));
      bench = int(text(bench, 'date'), 'isl', 'osl', 'conc');
      bench = text(bench, 'runner');
      bench = bench.addColumn('tput_per_gpu', 'double precision', (c) => c.notNull());
      bench = bench.addColumn('output_tput_per_gpu', 'double precision', (c) => c.notNull());
      bench = bench.addColumn('input_tput_per_gpu', 'double precision', (c) => c.notNull());
      bench = real(
        bench,
        'median_ttft',
        'p99_ttft',
        'median_tpot',
        'median_intvty',
        'p90_intvty',
        'p99_intvty',
        'median_e2el',
        'p99_e2el',
      );
      await text(bench, 'metrics')
        .addUniqueConstraint('benchmark_results_key', ['run_pk', 'config_id', 'isl', 'osl', 'conc'])
        .execute();
      await db.schema
        .createIndex('benchmark_results_latest')
        .on('benchmark_results')
        .columns(['config_id', 'isl', 'osl', 'conc', 'date', 'run_pk'])
        .execute();
      await db.schema.createIndex('benchmark_results_date').on('benchmark_results').columns(['isl', 'osl', 'date']).execute();

      let latest = int(withId(db, dialect, 'latest_points'), 'official', 'config_id', 'isl', 'osl', 'conc');
      latest = latest.addColumn('result_id', 'integer', (c) =>
        c.notNull().references('benchmark_results.id').onDelete('cascade'),
      );
      latest = text(int(latest, 'run_pk'), 'date');
      await latest.addUniqueConstraint('latest_points_key', ['official', 'config_id', 'isl', 'osl', 'conc']).execute();
      await db.schema.createIndex('latest_points_result').on('latest_points').columns(['result_id']).execute();

      let evals = runRef(withId(db, dialect, 'eval_results'));
      evals = evals.addColumn('config_id', 'integer', (c) => c.notNull().references('configs.id'));
      evals = int(text(evals, 'task'), 'isl', 'osl', 'conc');
      evals = text(evals, 'date').addColumn('score', 'double precision', (c) => c.notNull());
      evals = text(real(evals, 'score_se'), 'score_name');
      evals = text(real(evals, 'n_eff', 'threshold'), 'metrics', 'samples', 'source').addColumn('passed', 'integer');
      await evals.addUniqueConstraint('eval_results_key', ['run_pk', 'config_id', 'task', 'isl', 'osl', 'conc']).execute();
      await db.schema.createIndex('eval_results_config').on('eval_results').columns(['config_id']).execute();

      let changelog = int(runRef(withId(db, dialect, 'changelog_entries')), 'position');
      changelog = text(changelog, 'date', 'base_ref', 'head_ref', 'config_keys', 'description', 'pr_link');
      await int(changelog, 'evals_only').addUniqueConstraint('changelog_entries_key', ['run_pk', 'position']).execute();

      const stats = int(text(runRef(withId(db, dialect, 'run_stats')), 'hardware'), 'n_success', 'total');
      await stats.addUniqueConstraint('run_stats_key', ['run_pk', 'hardware']).execute();

      const tokens = text(withId(db, dialect, 'tokens'), 'name', 'hash', 'created_at').addColumn('last_used_at', 'text');
      await tokens.addUniqueConstraint('tokens_name', ['name']).addUniqueConstraint('tokens_hash', ['hash']).execute();
    },
  };
}

/** The engines' logs of a run, so that a run's page links to them wherever its directory went. */
function runLogs(dialect: Dialect): Migration {
  return {
    async up(db) {
      const logs = int(text(runRef(withId(db, dialect, 'run_logs')), 'name', 'content'), 'size', 'truncated');
      await logs.addUniqueConstraint('run_logs_key', ['run_pk', 'name']).execute();
    },
  };
}

type AgenticColumn = keyof AgenticPointsTable & string;

/**
 * Agentic points (trace replay at one concurrency): a table of their own, since they have no
 * sequence lengths and other headline numbers than fixed-length points. The config is shared with
 * fixed-length points; the KV offloading fields complete the point's identity.
 */
function agenticPoints(dialect: Dialect): Migration {
  return {
    async up(db) {
      let t = runRef(withId(db, dialect, 'agentic_points'));
      t = t.addColumn('config_id', 'integer', (c) => c.notNull().references('configs.id'));
      t = text(t, ...(['date', 'runner', 'kv_offloading', 'kv_offload_backend'] satisfies AgenticColumn[]));
      t = int(
        t,
        ...([
          'conc',
          'allocated_cpu_dram_gb',
          'num_requests_total',
          'num_requests_successful',
          'num_errors',
        ] satisfies AgenticColumn[]),
      );
      t = real(
        t,
        ...([
          'tput_per_gpu',
          'output_tput_per_gpu',
          'input_tput_per_gpu',
          'mean_intvty',
          'median_intvty',
          'mean_ttft',
          'median_ttft',
          'p90_ttft',
          'p95_ttft',
          'mean_e2el',
          'median_e2el',
          'p90_e2el',
          'median_itl',
          'gpu_cache_hit_rate',
          'cpu_cache_hit_rate',
          'theoretical_cache_hit_rate',
          'gpu_kv_usage',
          'kv_cache_pool_tokens',
        ] satisfies AgenticColumn[]),
      );
      t = text(t, 'aggregate' satisfies AgenticColumn).addColumn('ttft_by_context' satisfies AgenticColumn, 'text');
      await t
        .addUniqueConstraint('agentic_points_key', [
          'run_pk',
          'config_id',
          'kv_offloading',
          'kv_offload_backend',
          'allocated_cpu_dram_gb',
          'conc',
        ])
        .execute();
      await db.schema.createIndex('agentic_points_config').on('agentic_points').columns(['config_id', 'date']).execute();
    },
  };
}

/**
 * The power verdict of each benchmark point (issue 21): valid or not, the aggregate's schema
 * version, the sidecar's reason codes and whether the power was measured or modelled by the
 * simulated engine. One ALTER per column: SQLite adds one column a statement. Points stored before
 * have no verdict (null); re-ingesting their run fills it in.
 */
function pointPower(): Migration {
  return {
    async up(db) {
      const table = () => db.schema.alterTable('benchmark_results');
      await table().addColumn('power_valid', 'integer').execute();
      await table().addColumn('power_schema_version', 'integer').execute();
      await table()
        .addColumn('power_reasons', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await table().addColumn('power_source', 'text').execute();
    },
  };
}

/**
 * A run's deferred points (`frontier run --defer`) and why: a partial run says what is still to
 * come. Runs stored before have none.
 */
function runDeferred(): Migration {
  return {
    async up(db) {
      const table = () => db.schema.alterTable('runs');
      await table()
        .addColumn('deferred_points', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await table()
        .addColumn('deferred_reason', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  };
}

/**
 * Repeated measurements of a point (issue 42): how many, whether each was a fresh launch, and each
 * metric's values with their mean, deviation and interval. Points stored before were measured once.
 */
function pointRepeats(): Migration {
  return {
    async up(db) {
      const table = () => db.schema.alterTable('benchmark_results');
      await table()
        .addColumn('n', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await table().addColumn('repeat_scope', 'text').execute();
      await table()
        .addColumn('stats', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
    },
  };
}

/**
 * Every attempt at each launch of a frontier run (issue 42: retries of flaky launches), so that the
 * nodes whose launches keep failing can be named. Runs stored before have none; re-ingesting a
 * run directory whose run.json records attempts fills them in.
 */
function launchAttempts(dialect: Dialect): Migration {
  return {
    async up(db) {
      let t = text(runRef(withId(db, dialect, 'launch_attempts')), 'cluster', 'launch', 'label');
      t = text(int(t, 'attempt'), 'nodes', 'outcome', 'reason', 'job', 'started_at', 'ended_at');
      await t.addUniqueConstraint('launch_attempts_key', ['run_pk', 'launch', 'attempt']).execute();
      await db.schema.createIndex('launch_attempts_outcome').on('launch_attempts').columns(['outcome', 'cluster']).execute();
    },
  };
}

/**
 * Corrections of the record (issue 45): the audit of every purge, un-purge and conclusion
 * override (whether a run id is purged is read from it, by run id, newest first), and the runs'
 * conclusion overrides, by run id (not by row: a later attempt replaces the row and keeps its override).
 */
function recordCorrections(dialect: Dialect): Migration {
  return {
    async up(db) {
      let audit = text(withId(db, dialect, 'record_audit'), 'action', 'run_id');
      audit = text(int(audit, 'attempt'), 'by', 'at', 'reason', 'run', 'counts', 'conclusion_from', 'conclusion_to');
      await audit.execute();
      await db.schema.createIndex('record_audit_run').on('record_audit').columns(['run_id', 'id']).execute();
      const overrides = text(withId(db, dialect, 'run_overrides'), 'run_id', 'conclusion', 'reason', 'by', 'at');
      await overrides.addUniqueConstraint('run_overrides_run_id', ['run_id']).execute();
    },
  };
}

/**
 * Staging (`/stage-results`, issue 45): a run staged from a pull request's sweep for review before
 * merge is a third kind of run, apart from official and unofficial ones: the pull request it was
 * staged from (0: not staged), who staged it and when. Staged runs never feed latest_points nor
 * any view that does not name them. Runs stored before are not staged.
 */
function runStaging(): Migration {
  return {
    async up(db) {
      const table = () => db.schema.alterTable('runs');
      await table()
        .addColumn('staged_pr', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await table()
        .addColumn('staged_by', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await table()
        .addColumn('staged_at', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('runs_staged').on('runs').columns(['staged_pr', 'date']).execute();
    },
  };
}

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '001_initial': initial(dialect),
    '002_run_logs': runLogs(dialect),
    '003_agentic_points': agenticPoints(dialect),
    '004_point_power': pointPower(),
    '005_run_deferred': runDeferred(),
    '006_point_repeats': pointRepeats(),
    '007_launch_attempts': launchAttempts(dialect),
    '008_record_corrections': recordCorrections(dialect),
    '009_run_staging': runStaging(),
  };
}

/** The names of the migrations this Frontier knows, in the order they run. */
export const MIGRATIONS: readonly string[] = Object.keys(migrations('sqlite')).sort();

/**
 * Bring the database up to date (or, with `upTo`, up to that migration: a dump of an older
 * schema is restored there first); returns the names of the migrations applied now. A database
 * already past `upTo` is refused: migrations are never undone.
 */
export async function migrate(db: Kysely<unknown>, dialect: Dialect, upTo?: string): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const migrator = new Migrator({ db, provider });
  if (upTo !== undefined) {
    const past = (await migrator.getMigrations()).filter((m) => m.executedAt !== undefined && m.name > upTo);
    if (past.length > 0)
      throw new Error(
        `its schema is past ${upTo}: it has ${past.map((m) => m.name).join(', ')} applied, and migrations are never undone`,
      );
  }
  // A migration added under a lower number than one a database already ran still runs (in name order).
  const { error, results } = await (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The migrations a database has applied, in name order (Kysely's bookkeeping table). */
export async function appliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** Tables whose rows belong to one run (`run_pk`), latest points first (they name benchmark results). */
export const RUN_TABLES = [
  'latest_points',
  'benchmark_results',
  'agentic_points',
  'eval_results',
  'changelog_entries',
  'run_stats',
  'run_logs',
  'launch_attempts',
] as const;

/**
 * Names of the tables, child tables first (for wiping in tests; a dump writes every one and a restore
 * fills them parents first). A new table goes here too: a dump refuses a database with a table it lacks.
 */
export const TABLES = [...RUN_TABLES, 'runs', 'configs', 'tokens', 'record_audit', 'run_overrides'] as const;
