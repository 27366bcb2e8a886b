/**
 * Which runs' points count in the record (latest points, baselines, trends, variation, the latest
 * evals and agentic points): every run but one whose conclusion is overridden to failure
 * (`frontier runs override RUN --conclusion failure`). A run's own status never takes its points
 * out: a failed run's finished points were each checked on their own. Named runs (`?run=`) are
 * always shown whole.
 */
import { sql } from 'kysely';
import type { RawBuilder, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** A condition on the run aliased `alias`: its points count. */
export const counted = (alias: string): RawBuilder<boolean> =>
  sql<boolean>`not exists (select 1 from run_overrides o where o.run_id = ${sql.ref(`${alias}.run_id`)} and o.conclusion = 'failure')`;

/** Whether the stored run `runPk` counts. */
export async function runCounts(trx: Transaction<Database>, runPk: number): Promise<boolean> {
  const row = await trx.selectFrom('runs as r').select('r.id').where('r.id', '=', runPk).where(counted('r')).executeTakeFirst();
  return row !== undefined;
}
