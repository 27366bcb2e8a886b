import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

describe('bundled fixtures', () => {
  // Runs where ../shared exists (development machines); a clone without it uses the bundled copy.
  it.runIf(existsSync(resolve(REPO, '../shared/fixtures/inferencex')))(
    'match ../shared (refresh with node scripts/sync-fixtures.mjs)',
    () => {
      const result = spawnSync(process.execPath, ['scripts/sync-fixtures.mjs', '--check'], { cwd: REPO, encoding: 'utf8' });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );

  it('carry the reference license and a note of their source', () => {
    for (const f of ['test/fixtures/inferencex/LICENSE', 'test/fixtures/SOURCES.md'])
      expect(existsSync(resolve(REPO, f)), f).toBe(true);
  });
});
