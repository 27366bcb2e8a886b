/**
 * Keeping `latest_points` right through every ingest. A new run's points advance the table where
 * they are newer (date, then run) than what it holds, which is all a normal ingest needs. When
 * points go away or change class (a replaced attempt, points a re-ingest no longer has, a run
 * whose date, official flag or staging changed), their entries are dropped first and those keys
 * are recomputed from what remains once the run is written. A staged run's points never enter it.
 */
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import { counted, runCounts } from './counted.js';
import type { Database } from './schema.js';

type Trx = Transaction<Database>;

interface Key {
  official: number;
  config_id: number;
  isl: number;
  osl: number;
  conc: number;
}

export class LatestKeys {
  private readonly keys = new Map<string, Key>();

  add(keys: Key[]): void {
    for (const k of keys) this.keys.set(`${k.official}/${k.config_id}/${k.isl}/${k.osl}/${k.conc}`, k);
  }

  get values(): Key[] {
    return [...this.keys.values()];
  }
}

const KEY_COLUMNS = ['official', 'config_id', 'isl', 'osl', 'conc'] as const;

/** Drop the entries that point at a run's points (or at some points); returns their keys. */
export async function forgetLatest(trx: Trx, where: { runPk: number } | { resultIds: number[] }): Promise<Key[]> {
  const out: Key[] = [];
  if ('runPk' in where) {
    out.push(...(await trx.deleteFrom('latest_points').where('run_pk', '=', where.runPk).returning(KEY_COLUMNS).execute()));
  } else {
    for (let i = 0; i < where.resultIds.length; i += 500) {
      const part = where.resultIds.slice(i, i + 500);
      out.push(...(await trx.deleteFrom('latest_points').where('result_id', 'in', part).returning(KEY_COLUMNS).execute()));
    }
  }
  return out;
}

/** Let a run's points take the keys where they are the newest (none when the run does not count: store/counted.ts). */
export async function advanceLatest(trx: Trx, runPk: number, official: boolean, date: string): Promise<void> {
  if (!(await runCounts(trx, runPk))) return;
  await trx
    .insertInto('latest_points')
    .columns(['official', 'config_id', 'isl', 'osl', 'conc', 'result_id', 'run_pk', 'date'])
    .expression((eb) =>
      eb
        .selectFrom('benchmark_results')
        .select((s) => [
          sql.lit(official ? 1 : 0).as('official'),
          'config_id',
          'isl',
          'osl',
          'conc',
          s.ref('id').as('result_id'),
          'run_pk',
          sql.val(date).as('date'),
        ])
        .where('run_pk', '=', runPk),
    )
    .onConflict((oc) =>
      oc
        .columns([...KEY_COLUMNS])
        .doUpdateSet((eb) => ({
          result_id: eb.ref('excluded.result_id'),
          run_pk: eb.ref('excluded.run_pk'),
          date: eb.ref('excluded.date'),
        }))
        .where(sql<boolean>`(excluded.date, excluded.run_pk) > (latest_points.date, latest_points.run_pk)`),
    )
    .execute();
}

/**
 * Recompute the keys that lost their entry, from the points that remain and count: one query per config
 * (its points, newest first), the first point of each lost key wins.
 */
export async function refillLatest(trx: Trx, keys: LatestKeys): Promise<void> {
  const byConfig = new Map<string, Key[]>();
  for (const k of keys.values) {
    const group = `${k.official}/${k.config_id}`;
    byConfig.set(group, [...(byConfig.get(group) ?? []), k]);
  }
  const rows: (Key & { result_id: number; run_pk: number; date: string })[] = [];
  for (const group of byConfig.values()) {
    const { official, config_id } = group[0]!;
    const lost = new Set(group.map((k) => `${k.isl}/${k.osl}/${k.conc}`));
    const points = await trx
      .selectFrom('benchmark_results as x')
      .innerJoin('runs as r', 'r.id', 'x.run_pk')
      .select(['x.id', 'x.run_pk', 'x.date', 'x.isl', 'x.osl', 'x.conc'])
      .where('r.official', '=', official)
      .where('r.staged_pr', '=', 0)
      .where('x.config_id', '=', config_id)
      .where(counted('r'))
      .orderBy('x.date', 'desc')
      .orderBy('x.run_pk', 'desc')
      .execute();
    for (const p of points) {
      if (!lost.delete(`${p.isl}/${p.osl}/${p.conc}`)) continue;
      rows.push({ official, config_id, isl: p.isl, osl: p.osl, conc: p.conc, result_id: p.id, run_pk: p.run_pk, date: p.date });
    }
  }
  for (let i = 0; i < rows.length; i += 500)
    await trx
      .insertInto('latest_points')
      .values(rows.slice(i, i + 500))
      .execute();
}
