import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_INFERENCEX, HAS_REFERENCE, REPO, readFixture } from './helpers.js';

describe('bundled fixtures', () => {
  it('hold every output the golden manifest names', () => {
    const cases = JSON.parse(readFixture('golden/matrix/cases.json', BUNDLED_INFERENCEX)) as { expect?: string }[];
    for (const c of cases)
      if (c.expect) expect(readFixture(`golden/matrix/${c.expect}`, BUNDLED_INFERENCEX).length).toBeGreaterThan(1);
  });

  it('carry the reference license and a note of their source', () => {
    for (const f of ['test/fixtures/inferencex/LICENSE', 'test/fixtures/SOURCES.md'])
      expect(existsSync(resolve(REPO, f)), f).toBe(true);
  });

  it('match the reference fixtures where $FRONTIER_REFERENCE_FIXTURES names them (refresh with scripts/sync-fixtures.mjs)', () => {
    // Without a reference copy (a plain clone) there is nothing to compare with: the check says so.
    const result = spawnSync(process.execPath, ['scripts/sync-fixtures.mjs', '--check'], { cwd: REPO, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout + result.stderr).toContain(HAS_REFERENCE ? 'fixtures up to date' : 'nothing to sync');
  });
});
