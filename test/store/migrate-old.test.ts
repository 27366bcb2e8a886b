// A store written by the release before repeats (migrations 001–005: test/fixtures/store/, made
// by `frontier ingest` of that build, see SOURCES.md) opens with today's code: the new columns
// appear with their defaults, every old point reads as one sample, and a new run with repeats is
// judged against the old official history.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combineRepeats } from '../../src/results/index.js';
import { benchmarks, compareRun, ingestBatch, openStore, readArtifacts } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';
import { ARTIFACTS, copyDir, editJson } from './helpers.js';

const OLD = join(REPO, 'test/fixtures/store');

/** The fixture's points as a run measured 3 times (launch scope), every throughput 10% lower. */
function repeatedSlowerRun(): string {
  const dir = copyDir(ARTIFACTS);
  editJson(join(dir, 'results_bmk/agg_bmk.json'), (rows) =>
    (rows as Record<string, unknown>[]).map((r) => {
      const repeat = (f: number) => JSON.stringify({ ...r, tput_per_gpu: (r.tput_per_gpu as number) * 0.9 * f });
      return JSON.parse(combineRepeats([repeat(0.995), repeat(1), repeat(1.005)], 'launch')) as unknown;
    }),
  );
  return dir;
}

async function check(store: Store): Promise<void> {
  const old = await benchmarks(store, { run: '100' });
  expect(old).toHaveLength(6);
  for (const p of old) expect(p).toMatchObject({ n: 1, repeat_scope: null, stats: {} });
  await ingestBatch(store, readArtifacts(repeatedSlowerRun(), { runId: 'pr', date: '2026-02-01' }));
  const fresh = await benchmarks(store, { run: 'pr' });
  expect(fresh.every((p) => p.n === 3 && p.repeat_scope === 'launch')).toBe(true);
  const c = (await compareRun(store, 'pr'))!;
  expect(c.regressions).toBe(6);
  expect(c.points[0]!.metrics.tput_per_gpu).toMatchObject({ n_run: 3, n_baseline: 1, verdict: 'regression' });
}

describe('a store made before repeats', () => {
  it('SQLite: migrates on open and reads its points as single samples', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'frontier-old-')), 'frontier.db');
    copyFileSync(join(OLD, 'store-005.db'), file);
    const store = await openStore(file);
    try {
      await check(store);
    } finally {
      await store.close();
    }
  });

  describe('PostgreSQL', () => {
    let pg: LocalPostgres;
    beforeAll(async () => {
      pg = await startPostgres();
    }, 60_000);
    afterAll(async () => pg?.stop());

    it('migrates on open and reads its points as single samples', async () => {
      const url = await pg.createDatabase('old_store');
      execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-f', join(OLD, 'store-005.postgres.sql'), url], { stdio: 'pipe' });
      const store = await openStore(url);
      try {
        await check(store);
      } finally {
        await store.close();
      }
    });
  });
});
