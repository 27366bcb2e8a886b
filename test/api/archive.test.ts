import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError, extractTarGz } from '../../src/api/index.js';

const temp = (name: string) => mkdtempSync(join(tmpdir(), `frontier-${name}-`));
const limits = { maxBytes: 1 << 20, maxEntries: 100 };

/** A tree with a file whose path is longer than ustar's 100-byte name field. */
function tree(): { dir: string; long: string } {
  const dir = temp('tree');
  const long = `bmk_${'x'.repeat(120)}/agg_${'y'.repeat(90)}.json`;
  mkdirSync(join(dir, long.split('/')[0]!));
  writeFileSync(join(dir, long), '{"conc": 4}');
  writeFileSync(join(dir, 'run.json'), '{}');
  return { dir, long };
}

describe('unpacking an uploaded .tar.gz', () => {
  for (const format of ['gnu', 'pax', 'ustar'] as const) {
    it(`reads GNU tar's ${format} format, long names included`, () => {
      const { dir, long } = tree();
      const archive = join(temp('archive'), 'a.tar.gz');
      // ustar cannot hold a 125-byte directory name: only the short file there.
      execFileSync('tar', [`--format=${format}`, '-czf', archive, '-C', dir, ...(format === 'ustar' ? ['run.json'] : ['.'])]);
      const dest = temp('dest');
      const files = extractTarGz(readFileSync(archive), dest, limits);
      if (format === 'ustar') expect(files).toEqual(['run.json']);
      else {
        expect(files.sort()).toEqual([long, 'run.json'].sort());
        expect(readFileSync(join(dest, long), 'utf8')).toBe('{"conc": 4}');
      }
    });
  }

  it('counts entries against the limit', () => {
    const { dir } = tree();
    const archive = join(temp('archive'), 'a.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', dir, '.']);
    expect(() => extractTarGz(readFileSync(archive), temp('dest'), { ...limits, maxEntries: 2 })).toThrow(
      new ArchiveError('more than 2 entries in the archive'),
    );
  });
});
