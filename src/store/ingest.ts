/**
 * Writing an ingest batch: one transaction, so a failure leaves the store as it was. Rows are
 * upserted on their natural keys, so re-ingesting a run changes nothing (ids stay, values match);
 * a later attempt of a run replaces the stored one; an earlier attempt than the stored one is
 * refused.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import { AGENTIC_HEADLINE } from './agentic.js';
import type { AgenticHeadline } from './agentic.js';
import type { IngestBatch, RunInfo, Staging } from './artifacts.js';
import { purgeOf } from './audit.js';
import { writeTransaction } from './db.js';
import type { Store } from './db.js';
import { LatestKeys, advanceLatest, forgetLatest, refillLatest } from './latest.js';
import { RUN_TABLES } from './migrations.js';
import { configKey } from './rows.js';
import type { ConfigIdentity } from './rows.js';
import type { Database } from './schema.js';
import { UserError } from '../util/user-error.js';

export interface IngestSummary {
  run_id: string;
  attempt: number;
  official: boolean;
  /** Staged from a pull request (never official; in no view that does not name it), or null. */
  staged: Staging | null;
  date: string;
  /** Whether an earlier attempt of the run was replaced. */
  replaced_attempt: number | undefined;
  /** What a re-ingest changed in the stored run (its official flag, date, branch…). */
  run_changes: RunChange[];
  configs: { total: number; new: number };
  /** `changed`: rows that were stored with other values. */
  benchmarks: RowCounts;
  /** Agentic points (trace replay), counted like benchmark points. */
  agentic: RowCounts;
  evals: RowCounts;
  run_stats: number;
  logs: number;
  /** Launch attempts (run.json's `launches[].attempts`), and how many failed for infrastructure reasons. */
  attempts: { total: number; infrastructure: number };
  changelog: number;
  /** The points' power verdicts: valid (of which modelled by the simulated engine), not valid, none. */
  power: PowerCounts;
  dry_run: boolean;
  /**
   * With `onlyIfChanged`: the store already held exactly this (every row of the run, and of its
   * merge run, the same), so nothing was written, not even the ingest time.
   */
  unchanged?: boolean;
}

export interface PowerCounts {
  valid: number;
  modelled: number;
  invalid: number;
  none: number;
}

export interface RowCounts {
  total: number;
  new: number;
  changed: number;
  removed: number;
}

export interface RunChange {
  field: string;
  from: string | boolean | string[];
  to: string | boolean | string[];
}

export class IngestConflict extends UserError {}

/** Columns per row are ~25: chunks of 400 rows stay under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 400;
const chunks = <T>(xs: T[], n = CHUNK): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
const today = (): string => new Date().toISOString().slice(0, 10);

const HOT = [
  'median_ttft',
  'p99_ttft',
  'median_tpot',
  'median_intvty',
  'p90_intvty',
  'p99_intvty',
  'median_e2el',
  'p99_e2el',
] as const;

function configRow(c: ConfigIdentity): Record<string, string | number> {
  const side = (prefix: 'prefill' | 'decode', s: ConfigIdentity['prefill']) => ({
    [`${prefix}_tp`]: s.tp,
    [`${prefix}_pp`]: s.pp,
    [`${prefix}_dcp`]: s.dcp,
    [`${prefix}_pcp`]: s.pcp,
    [`${prefix}_ep`]: s.ep,
    [`${prefix}_dp_attention`]: s.dp_attention ? 1 : 0,
    [`${prefix}_num_workers`]: s.num_workers,
    [`num_${prefix}_gpu`]: s.num_gpu,
  });
  return {
    key: configKey(c),
    hardware: c.hardware,
    framework: c.framework,
    model: c.model,
    model_prefix: c.model_prefix,
    precision: c.precision,
    spec_method: c.spec_method,
    disagg: c.disagg ? 1 : 0,
    is_multinode: c.is_multinode ? 1 : 0,
    ...side('prefill', c.prefill),
    ...side('decode', c.decode),
    image: c.image,
    recipe_fingerprint: c.recipe_fingerprint,
  };
}

function runValues(run: RunInfo, date: string) {
  return {
    run_id: run.run_id,
    attempt: run.attempt,
    official: run.official ? 1 : 0,
    date,
    source_run_id: run.source_run_id,
    merge_run_id: run.merge_run_id,
    origin: run.origin,
    name: run.name,
    url: run.url,
    commit_sha: run.commit_sha,
    branch: run.branch,
    labels: JSON.stringify(run.labels),
    status: run.status,
    deferred_points: run.deferred_points,
    deferred_reason: run.deferred_reason,
    staged_pr: run.staged?.pr ?? 0,
    staged_by: run.staged?.by ?? '',
    staged_at: run.staged ? new Date().toISOString() : '',
    started_at: run.started_at,
    finished_at: run.finished_at,
    ingested_at: new Date().toISOString(),
  };
}

/** Run fields a re-ingest does not report as changes: its key, its attempt (reported as a replacement), when it was ingested or staged. */
const UNREPORTED = new Set(['run_id', 'attempt', 'ingested_at', 'staged_at']);

function runChanges(stored: StoredRun, run: RunInfo, date: string): RunChange[] {
  const now = runValues(run, date);
  const fields = (Object.keys(now) as (keyof typeof now)[]).filter((f) => !UNREPORTED.has(f));
  const shown = (field: string, v: string | number) =>
    field === 'official'
      ? v === 1
      : field === 'labels'
        ? (JSON.parse(v as string) as string[])
        : field === 'staged_pr' && v === 0
          ? ''
          : String(v);
  return fields.filter((f) => stored[f] !== now[f]).map((f) => ({ field: f, from: shown(f, stored[f]), to: shown(f, now[f]) }));
}

async function upsertRun(trx: Transaction<Database>, run: RunInfo, date: string): Promise<number> {
  const values = runValues(run, date);
  const { ingested_at: _, run_id: __, ...update } = values;
  const row = await trx
    .insertInto('runs')
    .values(values)
    .onConflict((oc) => oc.column('run_id').doUpdateSet(update))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

type StoredRun = Selectable<Database['runs']>;

/** A purged run id stays out of the store (every attempt of it) until it is un-purged. */
async function refusePurged(trx: Transaction<Database>, runId: string): Promise<void> {
  const purge = await purgeOf(trx, runId);
  if (purge)
    throw new IngestConflict(
      `run ${runId} was purged on ${purge.at} by ${purge.by} (${purge.reason}); nothing was written. ` +
        `To ingest it again, un-purge it first: frontier runs unpurge ${runId} --reason …`,
    );
}

/** Resolve the run's attempt against the stored one: the pk to replace, or a conflict. */
async function priorAttempt(trx: Transaction<Database>, run: RunInfo): Promise<StoredRun | undefined> {
  const stored = await trx.selectFrom('runs').selectAll().where('run_id', '=', run.run_id).executeTakeFirst();
  if (stored && stored.attempt > run.attempt) {
    throw new IngestConflict(
      `run ${run.run_id}: attempt ${stored.attempt} is stored, attempt ${run.attempt} is older; nothing was written (a later attempt replaces an earlier one, not the reverse)`,
    );
  }
  return stored;
}

export interface IngestBatchOptions {
  /** Do everything in a transaction that is rolled back: the summary is exact, nothing is written. */
  dryRun?: boolean;
  /** Roll back when the ingest would leave the run's rows as they are: the store stays byte for byte. */
  onlyIfChanged?: boolean;
}

export async function ingestBatch(
  store: Store,
  batch: IngestBatch,
  { dryRun = false, onlyIfChanged = false }: IngestBatchOptions = {},
): Promise<IngestSummary> {
  const runIds = [batch.run.run_id, ...(batch.mergeRun ? [batch.mergeRun.run_id] : [])];
  const work = async (trx: Transaction<Database>): Promise<IngestSummary> => {
    const before = onlyIfChanged ? await runContent(trx, runIds) : undefined;
    const summary = await write(trx);
    if (before !== undefined) summary.unchanged = before === (await runContent(trx, runIds));
    return summary;
  };
  const write = async (trx: Transaction<Database>): Promise<IngestSummary> => {
    const { run } = batch;
    for (const r of [run, batch.mergeRun]) if (r) await refusePurged(trx, r.run_id);
    const stored = await priorAttempt(trx, run);
    const replaced = stored && stored.attempt < run.attempt ? stored.attempt : undefined;
    // Keys of latest_points whose entry goes away below, recomputed once the run is written.
    const orphaned = new LatestKeys();
    if (replaced !== undefined) {
      orphaned.add(await forgetLatest(trx, { runPk: stored!.id }));
      await deleteRun(trx, stored!.id);
    }
    const date = run.date ?? (replaced === undefined ? stored?.date : undefined) ?? today();
    const changes = stored ? runChanges(stored, run, date) : [];
    const runPk = await upsertRun(trx, run, date);
    const staged = run.staged !== undefined;
    if (
      stored &&
      replaced === undefined &&
      (stored.date !== date || stored.official !== (run.official ? 1 : 0) || stored.staged_pr > 0 !== staged)
    ) {
      orphaned.add(await forgetLatest(trx, { runPk }));
    }

    // Configs: insert the new ones, then look every id up by key.
    const configs = new Map<string, ConfigIdentity>();
    for (const r of [...batch.benchmarks, ...batch.agentic, ...batch.evals]) configs.set(configKey(r.config), r.config);
    const keys = [...configs.keys()];
    let newConfigs = 0;
    for (const part of chunks(keys, 200)) {
      const inserted = await trx
        .insertInto('configs')
        .values(part.map((k) => configRow(configs.get(k)!)) as never)
        .onConflict((oc) => oc.column('key').doNothing())
        .returning('id')
        .execute();
      newConfigs += inserted.length;
    }
    const ids = new Map<string, number>();
    for (const part of chunks(keys, 500)) {
      for (const row of await trx.selectFrom('configs').select(['id', 'key']).where('key', 'in', part).execute())
        ids.set(row.key, row.id);
    }

    // Benchmark results, then the latest points they change.
    const bench = await replaceRunRows(
      trx,
      'benchmark_results',
      ['run_pk', 'config_id', 'isl', 'osl', 'conc'],
      runPk,
      batch.benchmarks.map((b) => ({
        run_pk: runPk,
        config_id: ids.get(configKey(b.config))!,
        date,
        isl: b.isl,
        osl: b.osl,
        conc: b.conc,
        runner: b.runner,
        tput_per_gpu: b.metrics.tput_per_gpu!,
        output_tput_per_gpu: b.metrics.output_tput_per_gpu!,
        input_tput_per_gpu: b.metrics.input_tput_per_gpu!,
        ...Object.fromEntries(HOT.map((k) => [k, b.metrics[k] ?? null])),
        metrics: JSON.stringify(b.metrics),
        power_valid: b.power.valid === null ? null : b.power.valid ? 1 : 0,
        power_schema_version: b.power.schema_version,
        power_reasons: JSON.stringify(b.power.reasons),
        power_source: b.power.source,
        n: b.repeats?.n ?? 1,
        repeat_scope: b.repeats?.scope ?? null,
        stats: JSON.stringify(b.repeats?.metrics ?? {}),
      })),
      async (stale) => orphaned.add(await forgetLatest(trx, { resultIds: stale })),
    );
    // Orphaned keys first, from every point left (this run's included), then this run's other keys.
    await refillLatest(trx, orphaned);
    // A staged run's points are kept apart: they never become a latest point.
    if (!staged) await advanceLatest(trx, runPk, run.official, date);

    const agentic = await replaceRunRows(
      trx,
      'agentic_points',
      ['run_pk', 'config_id', 'kv_offloading', 'kv_offload_backend', 'allocated_cpu_dram_gb', 'conc'],
      runPk,
      batch.agentic.map((a) => ({
        run_pk: runPk,
        config_id: ids.get(configKey(a.config))!,
        kv_offloading: a.kv_offloading,
        kv_offload_backend: a.kv_offload_backend,
        allocated_cpu_dram_gb: a.allocated_cpu_dram_gb,
        conc: a.conc,
        date,
        runner: a.runner,
        num_requests_total: a.num_requests_total,
        num_requests_successful: a.num_requests_successful,
        num_errors: a.num_errors,
        ...Object.fromEntries((Object.keys(AGENTIC_HEADLINE) as AgenticHeadline[]).map((k) => [k, a.headline[k]])),
        aggregate: JSON.stringify(a.aggregate),
        ttft_by_context: a.ttft_by_context === null ? null : JSON.stringify(a.ttft_by_context),
      })),
    );

    const evals = await replaceRunRows(
      trx,
      'eval_results',
      ['run_pk', 'config_id', 'task', 'isl', 'osl', 'conc'],
      runPk,
      batch.evals.map((e) => ({
        run_pk: runPk,
        config_id: ids.get(configKey(e.config))!,
        task: e.task,
        isl: e.isl,
        osl: e.osl,
        conc: e.conc,
        date,
        score: e.score,
        score_se: e.score_se ?? null,
        score_name: e.score_name,
        n_eff: e.n_eff ?? null,
        threshold: e.threshold ?? null,
        passed: e.threshold === undefined ? null : e.score >= e.threshold ? 1 : 0,
        metrics: JSON.stringify(e.metrics),
        samples: JSON.stringify(e.samples),
        source: e.source,
      })),
    );

    // Logs, run stats and the changelog: rewritten whole.
    await trx.deleteFrom('run_logs').where('run_pk', '=', runPk).execute();
    for (const part of chunks(batch.logs, 50)) {
      await trx
        .insertInto('run_logs')
        .values(
          part.map((l) => ({ run_pk: runPk, name: l.name, size: l.size, truncated: l.truncated ? 1 : 0, content: l.content })),
        )
        .execute();
    }
    await trx.deleteFrom('launch_attempts').where('run_pk', '=', runPk).execute();
    for (const part of chunks(batch.attempts, 200)) {
      await trx
        .insertInto('launch_attempts')
        .values(part.map((a) => ({ run_pk: runPk, ...a, nodes: JSON.stringify(a.nodes) })))
        .execute();
    }
    await trx.deleteFrom('run_stats').where('run_pk', '=', runPk).execute();
    if (batch.runStats.length > 0) {
      await trx
        .insertInto('run_stats')
        .values(batch.runStats.map((s) => ({ run_pk: runPk, ...s })))
        .execute();
    }
    let changelogPk = runPk;
    if (batch.mergeRun) {
      const merge = await priorAttempt(trx, batch.mergeRun);
      changelogPk = await upsertRun(trx, batch.mergeRun, batch.mergeRun.date ?? merge?.date ?? date);
    }
    await trx.deleteFrom('changelog_entries').where('run_pk', '=', changelogPk).execute();
    if (batch.changelog.length > 0) {
      await trx
        .insertInto('changelog_entries')
        .values(
          batch.changelog.map((c, position) => ({
            run_pk: changelogPk,
            position,
            date,
            base_ref: c.base_ref,
            head_ref: c.head_ref,
            config_keys: JSON.stringify(c.config_keys),
            description: c.description,
            pr_link: c.pr_link,
            evals_only: c.evals_only ? 1 : 0,
          })),
        )
        .execute();
    }

    return {
      run_id: run.run_id,
      attempt: run.attempt,
      official: run.official,
      staged: run.staged ?? null,
      date,
      replaced_attempt: replaced,
      run_changes: changes,
      configs: { total: keys.length, new: newConfigs },
      benchmarks: bench,
      agentic,
      evals,
      run_stats: batch.runStats.length,
      logs: batch.logs.length,
      attempts: {
        total: batch.attempts.length,
        infrastructure: batch.attempts.filter((a) => a.outcome === 'infrastructure').length,
      },
      changelog: batch.changelog.length,
      power: {
        valid: batch.benchmarks.filter((b) => b.power.valid === true).length,
        modelled: batch.benchmarks.filter((b) => b.power.valid === true && b.power.source === 'modelled').length,
        invalid: batch.benchmarks.filter((b) => b.power.valid === false).length,
        none: batch.benchmarks.filter((b) => b.power.valid === null).length,
      },
      dry_run: dryRun,
    };
  };

  // A dry run, or an ingest that changes nothing, does all the work inside a transaction that is
  // then rolled back: the summary is exact.
  let summary: IngestSummary | undefined;
  try {
    return await writeTransaction(store, async (trx) => {
      summary = await work(trx);
      if (dryRun || summary.unchanged === true) throw new Rollback();
      return summary;
    });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  return summary!;
}

class Rollback extends Error {}

/**
 * Everything stored for these runs, as text: each run's row and the rows of every table that
 * belongs to it, without surrogate ids and the ingest time, in a fixed order. Two equal texts
 * are the same content.
 */
async function runContent(trx: Transaction<Database>, runIds: string[]): Promise<string> {
  const strip = ({ id: _, ...rest }: Record<string, unknown>) => rest;
  const parts: unknown[] = [];
  for (const runId of runIds) {
    const stored = await trx.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    if (!stored) {
      parts.push(null);
      continue;
    }
    const { ingested_at: _, ...run } = strip(stored);
    parts.push(run);
    for (const table of RUN_TABLES) {
      const rows = await (trx as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .selectFrom(table)
        .selectAll()
        .where('run_pk', '=', stored.id)
        .execute();
      parts.push(rows.map((r) => JSON.stringify(strip(r))).sort());
    }
  }
  return JSON.stringify(parts);
}

/**
 * Make a run's rows of `table` exactly `rows`: upserted on the natural key (an unchanged row keeps
 * its id and values), and the run's rows that are no longer there deleted (`beforeDelete` sees
 * their ids first). Returns the counts.
 */
async function replaceRunRows(
  trx: Transaction<Database>,
  table: 'benchmark_results' | 'agentic_points' | 'eval_results',
  key: string[],
  runPk: number,
  rows: Record<string, unknown>[],
  beforeDelete?: (ids: number[]) => Promise<unknown>,
): Promise<RowCounts> {
  // Typed loosely: one body for tables whose columns differ.
  const db = trx as unknown as Kysely<Record<string, Record<string, unknown> & { id: number; run_pk: number }>>;
  const updated = Object.keys(rows[0] ?? {}).filter((c) => !key.includes(c));
  // The stored rows' values by key, to count the rows this ingest changes.
  const stored = (await db
    .selectFrom(table)
    .select(['id', ...key, ...updated] as never[])
    .where('run_pk', '=', runPk)
    .execute()) as Record<string, unknown>[];
  const before = new Set(stored.map((r) => r.id as number));
  const values = (r: Record<string, unknown>, columns: string[]) => JSON.stringify(columns.map((c) => r[c] ?? null));
  const storedValues = new Map(stored.map((r) => [values(r, key), values(r, updated)]));
  const changed = rows.filter((r) => {
    const was = storedValues.get(values(r, key));
    return was !== undefined && was !== values(r, updated);
  }).length;
  const kept = new Set<number>();
  for (const part of chunks(rows)) {
    const result = await db
      .insertInto(table)
      .values(part as never)
      .onConflict((oc) =>
        oc
          .columns(key as never)
          .doUpdateSet((eb) => Object.fromEntries(updated.map((c) => [c, eb.ref(`excluded.${c}` as never)])) as never),
      )
      .returning('id')
      .execute();
    for (const r of result) kept.add(r.id);
  }
  const stale = [...before].filter((id) => !kept.has(id));
  await beforeDelete?.(stale);
  for (const part of chunks(stale, 500)) await db.deleteFrom(table).where('id', 'in', part).execute();
  return { total: rows.length, new: [...kept].filter((id) => !before.has(id)).length, changed, removed: stale.length };
}

/** Remove a run and everything attributed to it. */
export async function deleteRun(db: Kysely<Database> | Transaction<Database>, runPk: number): Promise<void> {
  for (const table of RUN_TABLES) {
    await db.deleteFrom(table).where('run_pk', '=', runPk).execute();
  }
  await db.deleteFrom('runs').where('id', '=', runPk).execute();
}
