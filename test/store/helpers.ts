import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isMeasurementKey } from '../../src/results/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { REPO } from '../helpers.js';
import { evalSettings, runLocally, simCluster, singleRow } from '../launch/fixtures.js';
import { startPostgres } from '../support/postgres.js';
import type { LocalPostgres } from '../support/postgres.js';

export const DIALECTS = ['sqlite', 'postgres'] as const;
export type DialectName = (typeof DIALECTS)[number];

/** The InferenceX artifact set fixture (read-only: copy it before changing it). */
export const ARTIFACTS = join(REPO, 'test/fixtures/inferencex/artifacts');

/**
 * Stores for one describe block of a dialect: a PostgreSQL server started once for the file (a
 * fresh database per store) or a fresh SQLite file per store. Stores are closed after the file.
 */
export function storeFactory(dialect: DialectName): () => Promise<Store> {
  let pg: LocalPostgres | undefined;
  const open: Store[] = [];
  let n = 0;
  beforeAll(async () => {
    if (dialect === 'postgres') pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const s of open) await s.close();
    await pg?.stop();
  });
  return async () => {
    const location =
      dialect === 'postgres'
        ? await pg!.createDatabase(`store_${++n}`)
        : join(mkdtempSync(join(tmpdir(), 'frontier-store-')), 'frontier.db');
    const store = await openStore(location);
    open.push(store);
    return store;
  };
}

/** A copy of a directory to edit. */
export function copyDir(dir: string): string {
  const to = join(mkdtempSync(join(tmpdir(), 'frontier-copy-')), 'run');
  cpSync(dir, to, { recursive: true });
  return to;
}

export function editJson(file: string, edit: (value: unknown) => unknown): void {
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8'))), null, 2));
}

let frontierRun: Promise<string> | undefined;

/**
 * A real `frontier run` directory: two points on the simulated engine, the second with a GSM8K
 * eval (60 questions), made once per test file.
 */
export function frontierRunDir(): Promise<string> {
  frontierRun ??= (async () => {
    const rows = [singleRow({ conc: 1 }), singleRow({ conc: 2, 'run-eval': true })];
    const { manifest, dir } = await runLocally(rows, {
      // Speed 10, not more: a faster sim under a loaded machine can flush a whole response at once (TPOT 0, which InferenceX's processing refuses).
      cluster: simCluster({ engines: { sim: { speed: 10 } } }),
      commit: 'a'.repeat(40),
      evals: await evalSettings(),
    });
    if (manifest.status !== 'completed') throw new Error(`the fixture run did not complete: ${JSON.stringify(manifest.points)}`);
    return dir.root;
  })();
  return frontierRun;
}

/**
 * Scale every measurement of every aggregate in a result directory (the collected array and the
 * per-point files) by `factor`: another run of the same points, `factor` faster or slower.
 */
export function scaleMeasurements(dir: string, factor: number | ((key: string) => number)): void {
  const scale = (row: Record<string, unknown>): void => {
    for (const [k, v] of Object.entries(row))
      if (typeof v === 'number' && isMeasurementKey(k)) row[k] = v * (typeof factor === 'number' ? factor : factor(k));
  };
  const files = [join(dir, 'results_bmk/agg_bmk.json')];
  for (const d of readdirSync(dir))
    if (d.startsWith('bmk_')) for (const f of readdirSync(join(dir, d))) if (f.startsWith('agg_')) files.push(join(dir, d, f));
  for (const f of files.filter((f) => existsSync(f)))
    editJson(f, (v) => {
      for (const row of Array.isArray(v) ? v : [v]) scale(row as Record<string, unknown>);
      return v;
    });
}

/** The run-to-run factors of the official history the comparison tests give a fixture: ±1%. */
export const HISTORY_FACTORS = [0.99, 1.01, 1.0, 0.995, 1.005] as const;

/** Copies of a result directory as earlier official runs would have measured it, one per factor. */
export const historyRuns = (dir: string): string[] =>
  HISTORY_FACTORS.map((factor) => {
    const earlier = copyDir(dir);
    scaleMeasurements(earlier, factor);
    return earlier;
  });
