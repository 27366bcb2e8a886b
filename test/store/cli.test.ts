// `frontier ingest` as a process (dist/): what it reports, and what it refuses.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES, openStore, runs } from '../../src/store/index.js';
import { runCli } from '../helpers.js';
import { ARTIFACTS, copyDir, editJson } from './helpers.js';

type Row = Record<string, unknown>;

const newDb = () => join(mkdtempSync(join(tmpdir(), 'frontier-cli-store-')), 'frontier.db');

async function tableCounts(db: string): Promise<Record<string, number>> {
  const store = await openStore(db);
  try {
    const out: Record<string, number> = {};
    for (const t of TABLES)
      out[t] = Number(
        (
          await store.db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return out;
  } finally {
    await store.close();
  }
}

describe('frontier ingest (the command)', () => {
  it('a re-ingest reports what it changed (official flag, date, point values) and stores it; “nothing changed” only when nothing did', async () => {
    const db = newDb();
    const ingest = (dir: string, ...args: string[]) => runCli(['ingest', dir, '--run-id', '5', '--db', db, ...args]);
    expect(ingest(ARTIFACTS, '--date', '2026-08-21').stdout).toContain('unofficial, 2026-08-21');

    const flipped = ingest(ARTIFACTS, '--official', '--date', '2026-09-01');
    expect(flipped.stderr).toBe('');
    expect(flipped.stdout).toContain('run changed: official: no → yes, date: 2026-08-21 → 2026-09-01');
    // Every point carries the run's date.
    expect(flipped.stdout).toContain('points: 6 (0 new, 6 changed)');
    expect(flipped.stdout).not.toContain('nothing changed');
    const store = await openStore(db);
    try {
      expect((await runs(store)).map((r) => [r.run_id, r.official, r.date])).toEqual([['5', true, '2026-09-01']]);
    } finally {
      await store.close();
    }

    // The stored date is kept when a re-ingest names none.
    expect(ingest(ARTIFACTS, '--official').stdout).toContain('(already stored: nothing changed)');

    const remeasured = copyDir(ARTIFACTS);
    editJson(join(remeasured, 'results_bmk/agg_bmk.json'), (rows) =>
      (rows as Row[]).map((r, i) => (i === 0 ? { ...r, tput_per_gpu: 1234.5 } : r)),
    );
    const again = ingest(remeasured, '--official', '--branch', 'main');
    expect(again.stdout).toContain('points: 6 (0 new, 1 changed)');
    expect(again.stdout).toContain('run changed: branch: (none) → main');
    expect(again.stdout).not.toContain('nothing changed');
  });

  it('refuses a run directory with a symbolic link in it, names the link and the fix, and writes nothing', async () => {
    const db = newDb();
    expect(runCli(['ingest', ARTIFACTS, '--run-id', '1', '--db', db]).status).toBe(0);
    const before = await tableCounts(db);

    const dir = copyDir(ARTIFACTS);
    mkdirSync(join(dir, 'server_logs_h200'));
    symlinkSync('/etc/passwd', join(dir, 'server_logs_h200', 'server.log'));
    const r = runCli(['ingest', dir, '--run-id', '2', '--db', db]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'server_logs_h200/server.log: a symbolic link (to /etc/passwd): ingest reads only plain files and folders; replace the link by the file it points to',
    );
    expect(r.stderr).toContain('nothing was written');
    expect(await tableCounts(db)).toEqual(before);
  });
});
